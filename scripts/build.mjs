// Bundles each function into one self-contained, minified file: dist/<name>/handler.js,
// exporting handle(event, context) as the Scaleway Node runtime expects.
// `npm run bench` imports bundleOptions() to measure exactly what gets deployed.
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const FUNCTIONS = ['reconcile', 'inject', 'sweep', 'watch'];
/**
 * Everything the build writes for the functions: these files under dist/<name>/ for each function, and
 * dist/package.json. `npm run package` checks that the deployment archive holds exactly these.
 */
export const FUNCTION_OUTPUTS = ['handler.js'];
export const SHARED_OUTPUTS = ['dist/package.json'];

/** The esbuild options for one function's bundle. */
export function bundleOptions(name, outfile = `dist/${name}/handler.js`) {
  return {
    entryPoints: [`functions/${name}/handler.ts`],
    outfile,
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node20',
    // CommonJS loads under both require() and import(), whatever the runtime does.
    format: 'cjs',
    // Prefer packages' ESM builds (the AWS SDK's dist-es): esbuild can tree-shake ESM, not CommonJS.
    // Still one file: ESM inputs are converted into the CommonJS bundle.
    mainFields: ['module', 'main'],
    // Our sources import zod as `import * as z`: a named `{ z }` import would pull in all of zod (~350 KiB more).
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  };
}

async function bundle(name) {
  const result = await build(bundleOptions(name));
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  return { name, bytes };
}

export async function buildAll({ quiet = false } = {}) {
  mkdirSync('dist', { recursive: true });
  // The repo is "type": "module"; the bundles are CommonJS.
  writeFileSync('dist/package.json', `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
  const results = await Promise.all(FUNCTIONS.map(bundle));
  if (!quiet) {
    for (const { name, bytes } of results) console.log(`dist/${name}/handler.js  ${(bytes / 1024).toFixed(1)} KiB`);
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildAll({ quiet: process.argv.includes('--quiet') });
}
