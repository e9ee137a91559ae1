// `npm run build`: one self-contained, minified bundle per function, and the `lbsync` CLI bundle
// (`--if-stale`: only when a source is newer than the bundles, as `npm start` runs it).
// `npm run build -- --targets FILE`: the targets shipped in the archive too, for a fleet too big for a variable.
//   dist/<name>/bundle.js         the function's code and every dependency, exporting handle(event, context)
//   dist/<name>/handler.js        what the platform loads (handler: dist/<name>/handler.handle): bundle.js with
//                                 the V8 code cache below when the runtime's V8 made it (scripts/code-cache/)
//   dist/<name>/bundle.cache      V8 code cache of bundle.js (+ bundle.cache.json: the node and V8 that made it)
//   dist/targets.json             with --targets FILE: FILE's targets, checked by the functions' own loader first
//                                 (nothing is written when they are invalid); the functions read it from beside
//                                 their folders (shared/platform/shipped-targets.ts). A build without --targets
//                                 removes it.
//   dist-cli/lbsync.cjs           the CLI (bin/lbsync.mjs loads it), with its own code cache
// The code cache is made by the node running the build, or by LBSYNC_CODE_CACHE_NODE (a path to another node
// binary, e.g. the runtime's major version); a runtime with another V8 loads the bundle without it.
// `npm run bench` imports bundleOptions() to measure exactly what gets deployed.
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { FUNCTION_NAMES } from '../functions/names.mjs';
import { FUNCTION_NODE_OPTIONS } from './function-sizing.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const FUNCTIONS_DIR = join(ROOT, 'functions');
const LOADER = join(ROOT, 'scripts/code-cache/loader.cjs');

/**
 * The Scaleway SDK uses the fetch API's globals (fetch, Request, Headers). Node's are undici: touching one
 * loads it (~45 ms, ~8 MB) and its client compiles a WebAssembly parser (~25 MB transient). In the bundles
 * the SDK's references are bound to shared/adapters/sdk-fetch-globals.ts (plain classes sent with node:http).
 */
const SDK_FETCH_GLOBALS = ['fetch', 'Request', 'Headers', 'Response'];
const SDK_FETCH_MODULE = join(ROOT, 'shared/adapters/sdk-fetch-globals.ts');
const scalewaySdkOnNodeHttp = {
  name: 'scaleway-sdk-on-node-http',
  setup(b) {
    b.onLoad({ filter: /[\\/]@scaleway[\\/]sdk-client[\\/]dist[\\/].*\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      // Free references only: not a property (.fetch), an object key (fetch:) or part of a longer name.
      const used = SDK_FETCH_GLOBALS.filter((name) =>
        new RegExp(`(?<![\\w$.])${name}(?![\\w$:])`).test(source.replace(/(["'`]).*?\1/g, '""')),
      );
      if (used.length === 0) return undefined;
      return {
        contents: `import { ${used.join(', ')} } from ${JSON.stringify(SDK_FETCH_MODULE)};\n${source}`,
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

/**
 * Modules the bundles never run, left out: the AWS SDK's default credential chain (the functions pass static
 * Scaleway Queues keys, so it is never consulted; it brings STS/SSO clients, INI/process/IMDS providers) and
 * pino's worker-thread transports (the logger writes to a stream in this thread).
 */
const NEVER_RUN = {
  '@aws-sdk/credential-provider-node': join(ROOT, 'shared/adapters/static-credentials-only.ts'),
  'thread-stream': join(ROOT, 'shared/platform/no-log-transports.cjs'),
};
/**
 * Everything the build writes for the functions: these files under dist/<name>/ for each function, and
 * dist/package.json. `npm run package` checks that the deployment archive holds exactly these.
 */
export const FUNCTION_OUTPUTS = ['handler.js', 'bundle.js', 'bundle.cache', 'bundle.cache.json'];
export const SHARED_OUTPUTS = ['dist/package.json'];
/** What the build writes when asked (--targets): shipped, and checked to be in the archive, when dist/ holds it. */
export const SHIPPED_TARGETS = 'dist/targets.json';

/** The esbuild options for one function's bundle. */
export function bundleOptions(name, outfile = `dist/${name}/bundle.js`) {
  return {
    entryPoints: [join(FUNCTIONS_DIR, name, 'handler.ts')],
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
    // import('node:http') and the like as require(): the bundle is compiled with its code cache by vm.Script,
    // which has no dynamic-import loader, and CommonJS needs none for Node's own modules.
    supported: { 'dynamic-import': false },
    // Our sources import zod as `import * as z`: a named `{ z }` import would pull in all of zod (~350 KiB more).
    alias: NEVER_RUN,
    // The bundle's own folder, where the function looks for the shipped targets (shared/platform/shipped-targets.ts).
    define: { FUNCTION_BUNDLE_DIR: '__dirname' },
    plugins: [scalewaySdkOnNodeHttp],
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  };
}

/**
 * `import.meta.url` of our own sources, in a CommonJS bundle: the source file's URL, found from the bundle's
 * place in the clone (the CLI bundle is used where it is built), e.g. the emulator's demo seed.
 */
function sourceUrlsFrom(outdir) {
  return {
    name: 'import-meta-url-of-source',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes('node_modules')) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const fromBundle = JSON.stringify(relative(outdir, args.path));
        const url = `require('node:url').pathToFileURL(require('node:path').join(__dirname, ${fromBundle})).href`;
        return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

/** The CLI: one bundle for `lbsync`. */
export function cliBundleOptions(outfile = join(ROOT, 'dist-cli/bundle.js')) {
  const { define: _functionsOnly, ...base } = bundleOptions('cli', outfile);
  // No FUNCTION_BUNDLE_DIR: the CLI never reads a shipped targets file by itself (--file names one).
  return { ...base, entryPoints: [join(ROOT, 'cli/main.ts')], plugins: [...base.plugins, sourceUrlsFrom(dirname(outfile))] };
}

const run = promisify(execFile);

/**
 * Runs the bundle's start-up in the node, with the node options, that will load it, and saves V8's code.
 * V8 accepts the cache only under the same V8 version and flags.
 */
async function writeCodeCache(loader, nodeOptions, node) {
  await run(node, [...nodeOptions.split(' ').filter(Boolean), loader, '--write-code-cache'], {
    env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
}

/**
 * Every file a bundle is made of lies under SOURCES (or node_modules): otherwise `--if-stale` would keep serving a
 * bundle made before that file changed (cockpit/ once went unlisted, and a test ran the CLI built from old code).
 */
export function unlistedSources(metafile) {
  // esbuild names inputs from its working directory; a plugin's namespaced ones (`ns:path`) are not files.
  // Packages count wherever node_modules really is (a linked one resolves outside the tree).
  const files = Object.keys(metafile.inputs).filter((input) => !/^[a-z-]+:/.test(input) && !input.split(/[\\/]/).includes('node_modules'));
  const tops = files.map((input) => relative(ROOT, resolve(input)).split(sep)[0]);
  return [...new Set(tops)].filter((top) => !SOURCES.includes(top)).sort();
}

function assertSourcesListed(name, metafile) {
  const unlisted = unlistedSources(metafile);
  if (unlisted.length > 0)
    throw new Error(`the ${name} bundle is made from ${unlisted.join(', ')}, which SOURCES in scripts/build.mjs does not list: add it`);
}

async function bundleFunction(name) {
  const dir = join(ROOT, 'dist', name);
  const result = await build(bundleOptions(name, join(dir, 'bundle.js')));
  assertSourcesListed(name, result.metafile);
  copyFileSync(LOADER, join(dir, 'handler.js'));
  // For the functions' runtime: LBSYNC_CODE_CACHE_NODE names its node when the build runs another version.
  await writeCodeCache(join(dir, 'handler.js'), FUNCTION_NODE_OPTIONS, process.env.LBSYNC_CODE_CACHE_NODE || process.execPath);
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  return { name, bytes };
}

async function bundleCli() {
  const dir = join(ROOT, 'dist-cli');
  const result = await build(cliBundleOptions(join(dir, 'bundle.js')));
  assertSourcesListed('cli', result.metafile);
  copyFileSync(LOADER, join(dir, 'lbsync.cjs'));
  // For the node running this build, which runs the CLI too.
  await writeCodeCache(join(dir, 'lbsync.cjs'), '', process.execPath);
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  return { name: 'cli', bytes };
}

/** What the bundles are made from: a change under any of these makes them stale. */
const SOURCES = ['functions', 'shared', 'cli', 'cockpit', 'emulator', 'scripts', 'package.json', 'package-lock.json'];

function newestChange(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}

/**
 * Whether every bundle of these parts is newer than every source (each bundle's code cache manifest is written
 * last). `--if-stale` (npm start, npm run lbsync) then builds nothing, so a running test suite never sees dist/
 * rewritten under it, and a command does not wait for a build it does not need.
 */
export function bundlesFresh(parts = ['functions', 'cli']) {
  const stamps = [
    ...(parts.includes('functions') ? FUNCTION_NAMES.map((name) => join(ROOT, 'dist', name, 'bundle.cache.json')) : []),
    ...(parts.includes('cli') ? [join(ROOT, 'dist-cli/bundle.cache.json')] : []),
  ];
  // Shipped targets are built on purpose (--targets); a build without them (npm start, the tests) removes them.
  if (parts.includes('functions') && existsSync(join(ROOT, SHIPPED_TARGETS))) return false;
  const built = Math.min(...stamps.map((stamp) => (existsSync(stamp) ? statSync(stamp).mtimeMs : 0)));
  const changed = Math.max(
    ...SOURCES.map((source) => join(ROOT, source))
      .filter(existsSync)
      .map(newestChange),
  );
  return built > changed;
}

/** A targets file the build was asked to ship, refused as the functions would refuse it. */
export class TargetsFileError extends Error {}

/**
 * The targets of `file`, checked by the functions' own loader (shared/platform/config.ts): the JSON to ship,
 * compact, as written (an array or {"targets": [...]}). Its errors name the file, each field's path and its fix.
 */
export async function checkedTargets(file) {
  const { tsImport } = await import('tsx/esm/api');
  const { loadTargets } = await tsImport(join(ROOT, 'shared/platform/config.ts'), import.meta.url);
  let targets;
  try {
    targets = loadTargets({ LBSYNC_CONFIG: file }, file);
  } catch (error) {
    throw new TargetsFileError(`${error.message}\nnothing was built: fix ${file} and build again`);
  }
  return { json: `${JSON.stringify(JSON.parse(readFileSync(file, 'utf8')))}\n`, count: targets.length };
}

/**
 * Builds the function bundles and the CLI bundle (`parts` narrows it: `--only cli` for `npm run lbsync`);
 * `targets`: a targets file to ship in dist/ (checked before anything is written).
 */
export async function buildAll({ quiet = false, parts = ['functions', 'cli'], targets } = {}) {
  const shipped = targets === undefined ? undefined : await checkedTargets(targets);
  if (shipped && !parts.includes('functions'))
    throw new TargetsFileError('--targets ships the targets with the functions: drop --only cli');
  for (const dir of ['dist', 'dist-cli']) {
    mkdirSync(join(ROOT, dir), { recursive: true });
    // The repo is "type": "module"; the bundles are CommonJS.
    writeFileSync(join(ROOT, dir, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
  }
  const results = parts.includes('functions') ? await Promise.all(FUNCTION_NAMES.map(bundleFunction)) : [];
  if (parts.includes('functions')) {
    if (shipped) writeFileSync(join(ROOT, SHIPPED_TARGETS), shipped.json);
    else rmSync(join(ROOT, SHIPPED_TARGETS), { force: true });
  }
  const cli = parts.includes('cli') ? [await bundleCli()] : [];
  if (!quiet) {
    for (const { name, bytes } of results) console.log(`dist/${name}/bundle.js  ${(bytes / 1024).toFixed(1)} KiB`);
    if (shipped) console.log(`${SHIPPED_TARGETS}  ${shipped.count} target(s), ${(Buffer.byteLength(shipped.json) / 1024).toFixed(1)} KiB`);
    for (const { bytes } of cli) console.log(`dist-cli/bundle.js  ${(bytes / 1024).toFixed(1)} KiB`);
  }
  return results;
}

/** The value after `flag`, or undefined; a flag given without one is bad usage. */
function flagValue(flag) {
  const at = process.argv.indexOf(flag);
  if (at === -1) return undefined;
  const value = process.argv[at + 1];
  return value === undefined || value.startsWith('--') ? null : value;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const only = flagValue('--only');
  const parts = only === undefined ? undefined : [only];
  const targets = flagValue('--targets');
  if (only === null || targets === null || (parts && !['functions', 'cli'].includes(parts[0]))) {
    console.error('usage: node scripts/build.mjs [--quiet] [--only functions|cli] [--if-stale] [--targets FILE]');
    process.exit(64);
  }
  // --targets always builds: shipping a file is asked for, never skipped as fresh.
  if (targets !== undefined || !(process.argv.includes('--if-stale') && bundlesFresh(parts))) {
    try {
      await buildAll({ quiet: process.argv.includes('--quiet'), ...(parts && { parts }), ...(targets !== undefined && { targets }) });
    } catch (error) {
      if (!(error instanceof TargetsFileError)) throw error;
      console.error(`build: ${error.message}`);
      process.exit(1);
    }
  }
}
