import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ and dist-cli/ when missing or stale (the bin, bundle and serverless.yml tests use them).
    globalSetup: ['test/support/build-bundles.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
