'use strict';
// Written by `npm run build` as dist/<name>/handler.js (from scripts/code-cache/loader.cjs).
// Loads ./bundle.js, the function's self-contained bundle, with the V8 code cache made at build time
// (./bundle.cache) when this process runs the V8 that made it: the bundle is then not parsed and its
// start-up code not compiled again. Any other case loads it exactly as require('./bundle.js') would:
// no cache, a cache of another V8 (other Node version), or one V8 turns down (flags, corruption).
// `codeCache` tells which happened: accepted | rejected | other-v8 | missing. `handle` and `codeCache` are named
// exports under both require() and import().
const { readFileSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');

const BUNDLE = join(__dirname, 'bundle.js');
const CACHE = join(__dirname, 'bundle.cache');
const MANIFEST = join(__dirname, 'bundle.cache.json');

/** V8's own version (12.4.254.21 of "12.4.254.21-node.57"): what V8 checks a cache against, with the flags. */
const v8Version = (version) => String(version).split('-')[0];

function readManifest() {
  try {
    return JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Compiles and runs the bundle as CommonJS would, with `cachedData` when given. */
function compileAndRun(cachedData) {
  const vm = require('node:vm');
  const source = readFileSync(BUNDLE, 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: BUNDLE,
    ...(cachedData && { cachedData }),
  });
  const bundleModule = { id: BUNDLE, filename: BUNDLE, path: __dirname, exports: {}, loaded: false, children: [], paths: [] };
  script.runInThisContext().call(bundleModule.exports, bundleModule.exports, createRequire(BUNDLE), bundleModule, BUNDLE, __dirname);
  bundleModule.loaded = true;
  return { script, exports: bundleModule.exports };
}

function load() {
  const manifest = readManifest();
  if (!manifest) return { codeCache: 'missing', exports: require(BUNDLE) };
  if (v8Version(manifest.v8) !== v8Version(process.versions.v8)) return { codeCache: 'other-v8', exports: require(BUNDLE) };
  let cachedData;
  try {
    cachedData = readFileSync(CACHE);
  } catch {
    return { codeCache: 'missing', exports: require(BUNDLE) };
  }
  // A turned-down cache costs nothing more: V8 has compiled the source instead.
  const { script, exports } = compileAndRun(cachedData);
  return { codeCache: script.cachedDataRejected ? 'rejected' : 'accepted', exports };
}

/**
 * Build step (`node [flags] dist/<name>/handler.js --write-code-cache`, scripts/build.mjs): runs the
 * bundle's start-up, then saves what V8 compiled, for this V8 and these node flags.
 */
function writeCodeCache() {
  const { script } = compileAndRun(undefined);
  const data = script.createCachedData();
  writeFileSync(CACHE, data);
  const manifest = { node: process.version, v8: process.versions.v8, flags: process.execArgv.join(' '), bytes: data.length };
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
}

if (require.main === module && process.argv[2] === '--write-code-cache') {
  writeCodeCache();
} else {
  const loaded = load();
  module.exports = { ...loaded.exports, codeCache: loaded.codeCache };
  // import() of this file gets only the names Node's CommonJS export detection (cjs-module-lexer) finds in its
  // source, and it cannot see into the spread above: the names a caller imports are assigned one by one too.
  // `handle` is every function's entry point (the platform may load it with require() or import()).
  if (typeof loaded.exports.handle === 'function') module.exports.handle = loaded.exports.handle;
  module.exports.codeCache = loaded.codeCache;
}
