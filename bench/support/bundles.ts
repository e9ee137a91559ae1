/** The builds the bench compares: dist/ as deployed, our code alone over node_modules, and a marked bundle. */
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FUNCTION_NAMES, type FunctionName } from '../../functions/registry';
// @ts-expect-error: plain .mjs build script without types
import { buildAll, bundleOptions } from '../../scripts/build.mjs';
// @ts-expect-error: plain .mjs module without types
import { FUNCTION_NODE_OPTIONS } from '../../scripts/function-sizing.mjs';

export { FUNCTION_NAMES, type FunctionName };

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const OUT = join(REPO, 'bench/.out');

/** What the platform loads: the code-cache loader, which loads bundle.js. */
export const distHandler = (name: FunctionName) => join(REPO, `dist/${name}/handler.js`);
/** The self-contained bundle itself (its size is the deployed code size). */
export const distBundle = (name: FunctionName) => join(REPO, `dist/${name}/bundle.js`);
/**
 * The node that runs the functions in the bench: the one their code cache is made for (scripts/build.mjs),
 * so `LBSYNC_CODE_CACHE_NODE=/path/to/node22 npm run bench` measures them on the runtime's Node version.
 */
export const FUNCTION_NODE = process.env.LBSYNC_CODE_CACHE_NODE || process.execPath;
/** The node flags the functions are deployed with (serverless.yml NODE_OPTIONS); every bench child runs with them. */
export const DEPLOYED_NODE_FLAGS = (FUNCTION_NODE_OPTIONS as string).split(' ').filter(Boolean);
export const unbundledHandler = (name: FunctionName) => join(OUT, `unbundled/${name}/handler.cjs`);
export const markedHandler = (name: FunctionName) => join(OUT, `marked/${name}/handler.cjs`);

const options = bundleOptions as (name: string, outfile?: string) => BuildOptions;

/** `npm run build`, as deployed. */
export async function buildDist(): Promise<{ name: FunctionName; bytes: number }[]> {
  return await (buildAll as (o: { quiet: boolean }) => Promise<{ name: FunctionName; bytes: number }[]>)({ quiet: true });
}

/**
 * Our own code transpiled into one file, every package left to node's resolver: what node does when the
 * function ships node_modules instead of a bundle. Compiled ahead of time (no tsx in the measured process),
 * so the difference to dist/ is only how the dependencies are loaded.
 */
export async function buildUnbundled(): Promise<void> {
  await Promise.all(
    FUNCTION_NAMES.map((name) =>
      build({
        ...options(name, unbundledHandler(name)),
        absWorkingDir: REPO,
        packages: 'external',
        minify: false,
        mainFields: undefined,
        plugins: [],
      }),
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

/**
 * dist/ with its code cache made for node without the deployed flags (V8 turns a cache down under other
 * flags): the same bundles under V8's default heap sizing, to measure what the heap bound buys.
 */
export function buildForDefaultHeap(): (name: FunctionName) => string {
  const root = join(OUT, 'v8-default-heap');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"type":"commonjs"}\n');
  for (const name of FUNCTION_NAMES) {
    cpSync(join(REPO, 'dist', name), join(root, name), { recursive: true });
    execFileSync(FUNCTION_NODE, [join(root, name, 'handler.js'), '--write-code-cache'], { env: { PATH: process.env.PATH ?? '' } });
  }
  return (name) => join(root, name, 'handler.js');
}

export function prepareOut(): void {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, '.gitignore'), '*\n');
}
