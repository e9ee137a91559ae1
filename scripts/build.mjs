// Bundles each function into one self-contained, minified file: dist/<name>/handler.js,
// exporting handle(event, context) as the Scaleway Node runtime expects.
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';

export const FUNCTIONS = ['reconcile', 'inject', 'sweep'];

const quiet = process.argv.includes('--quiet');

async function bundle(name) {
  const result = await build({
    entryPoints: [`functions/${name}/handler.ts`],
    outfile: `dist/${name}/handler.js`,
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node20',
    // CommonJS loads under both require() and import(), whatever the runtime does.
    format: 'cjs',
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  return { name, bytes };
}

mkdirSync('dist', { recursive: true });
// The repo is "type": "module"; the bundles are CommonJS.
writeFileSync('dist/package.json', `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
const results = await Promise.all(FUNCTIONS.map(bundle));
if (!quiet) {
  for (const { name, bytes } of results) console.log(`dist/${name}/handler.js  ${(bytes / 1024).toFixed(1)} KiB`);
}
