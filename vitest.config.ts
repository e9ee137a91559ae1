import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ and dist-cli/ when missing or stale (the bin, bundle and serverless.yml tests use them).
    globalSetup: ['test/support/build-bundles.ts'],
    // The AWS SDK's documented switch for its "node >=22 after January 2027" notice, which every test process that
    // loads the SQS client would print on Node 20 (supported here). Tests only: the functions and the CLI keep it.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two test files at a time, whatever the core count (vitest's default is cores - 1: one on a 2-core CI machine).
    // Most suites wait on loopback servers, queues and timers rather than compute: on 2 cores, two files at once
    // halve the wall time (8 -> 4 minutes) without starving the timing-sensitive ones (their races use barriers).
    maxWorkers: 2,
  },
});
