/**
 * Vitest global setup: the tests that run the `lbsync` bin, the function bundles or check serverless.yml
 * against dist/ need `npm run build`'s output. Builds it when missing or older than the sources, so
 * `npm ci && npm test` works on a fresh clone.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
const SOURCES = ['functions', 'shared', 'cli', 'emulator', 'scripts', 'package-lock.json'];
/** Written last for each bundle: its code cache manifest. */
function stamps(): string[] {
  const functions = readdirSync(join(ROOT, 'functions')).filter((name) => existsSync(join(ROOT, 'functions', name, 'handler.ts')));
  return [...functions.map((name) => join(ROOT, 'dist', name, 'bundle.cache.json')), join(ROOT, 'dist-cli/bundle.cache.json')];
}

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}

export default async function buildBundles(): Promise<void> {
  const built = Math.min(...stamps().map((stamp) => (existsSync(stamp) ? statSync(stamp).mtimeMs : 0)));
  const changed = Math.max(...SOURCES.map((s) => join(ROOT, s)).filter(existsSync).map(newestChange));
  if (built > changed) return;
  // @ts-expect-error: plain .mjs build script without types
  const { buildAll } = (await import('../../scripts/build.mjs')) as { buildAll: (o: { quiet: boolean }) => Promise<unknown> };
  await buildAll({ quiet: true });
}
