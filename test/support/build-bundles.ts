/**
 * Vitest global setup: the tests that run the `lbsync` bin, the function bundles or check serverless.yml
 * against dist/ need `npm run build`'s output. Builds it when missing or older than the sources, so
 * `npm ci && npm test` works on a fresh clone.
 */
export default async function buildBundles(): Promise<void> {
  // @ts-expect-error: plain .mjs build script without types
  const { buildAll, bundlesFresh } = (await import('../../scripts/build.mjs')) as {
    buildAll: (o: { quiet: boolean }) => Promise<unknown>;
    bundlesFresh: () => boolean;
  };
  if (!bundlesFresh()) await buildAll({ quiet: true });
}
