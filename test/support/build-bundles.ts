/**
 * Vitest global setup: the tests that check serverless.yml and its deployment archive need `npm run build`'s
 * output. Builds dist/ once, before any test file runs, when a bundle is missing or older than the sources,
 * so `npm ci && npm test` works on a fresh clone and no two test files build at the same time.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
const SOURCES = ['functions', 'shared', 'scripts/build.mjs', 'package-lock.json'];

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}

export default function buildBundles(): void {
  const functions = readdirSync(join(ROOT, 'functions')).filter((name) => existsSync(join(ROOT, 'functions', name, 'handler.ts')));
  const bundles = [join(ROOT, 'dist/package.json'), ...functions.map((name) => join(ROOT, 'dist', name, 'handler.js'))];
  const built = Math.min(...bundles.map((bundle) => (existsSync(bundle) ? statSync(bundle).mtimeMs : 0)));
  const changed = Math.max(...SOURCES.map((source) => join(ROOT, source)).filter(existsSync).map(newestChange));
  if (built > changed) return;
  execFileSync(process.execPath, ['scripts/build.mjs', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
}
