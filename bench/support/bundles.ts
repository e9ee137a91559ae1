/** The builds the bench compares: dist/ as deployed, our code alone over node_modules, and a marked bundle. */
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain .mjs build script without types
import { buildAll, bundleOptions, FUNCTIONS } from '../../scripts/build.mjs';

export type FunctionName = 'reconcile' | 'inject' | 'sweep' | 'watch';
export const FUNCTION_NAMES = FUNCTIONS as FunctionName[];

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const OUT = join(REPO, 'bench/.out');

export const distHandler = (name: FunctionName) => join(REPO, `dist/${name}/handler.js`);
export const unbundledHandler = (name: FunctionName) => join(OUT, `unbundled/${name}/handler.cjs`);
export const markedHandler = (name: FunctionName) => join(OUT, `marked/${name}/handler.cjs`);

const options = bundleOptions as (name: string, outfile?: string) => BuildOptions;

/** `npm run build`, as deployed. */
export async function buildDist(): Promise<{ name: FunctionName; bytes: number }[]> {
  return (await (buildAll as (o: { quiet: boolean }) => Promise<{ name: FunctionName; bytes: number }[]>)({ quiet: true }));
}

/**
 * Our own code transpiled into one file, every package left to node's resolver: what node does when the
 * function ships node_modules instead of a bundle. Compiled ahead of time (no tsx in the measured process),
 * so the difference to dist/ is only how the dependencies are loaded.
 */
export async function buildUnbundled(): Promise<void> {
  await Promise.all(
    FUNCTION_NAMES.map((name) =>
      build({ ...options(name, unbundledHandler(name)), absWorkingDir: REPO, packages: 'external', minify: false, mainFields: undefined, plugins: [] }),
    ),
  );
}

/** The deployed bundle plus one line that flags when the AWS SQS client module is initialised. */
const sqsMarker: Plugin = {
  name: 'sqs-marker',
  setup(b) {
    b.onLoad({ filter: /@aws-sdk[\\/]client-sqs[\\/]dist-(es|cjs)[\\/]index\.js$/ }, async (args) => {
      const { readFile } = await import('node:fs/promises');
      const source = await readFile(args.path, 'utf8');
      return { contents: `globalThis.__lbsyncBenchSqsLoaded = true;\n${source}`, loader: 'js' };
    });
  },
};

export async function buildMarked(): Promise<void> {
  await Promise.all(
    FUNCTION_NAMES.map((name) => {
      const base = options(name, markedHandler(name));
      return build({ ...base, absWorkingDir: REPO, plugins: [...(base.plugins ?? []), sqsMarker] });
    }),
  );
}

export function prepareOut(): void {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, '.gitignore'), '*\n');
}
