// One function's settings that only this project can judge: its handler is its own bundle and exports
// handle (to require() and to import(): the platform does not say how it loads a handler), it is private, and its timeout is in whole seconds (the timing rules need the number).
// Handler files existing, runtimes, triggers' syntax: the plugin's own validation (npm run package).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FUNCTION_MEMORY_MB } from '../../function-sizing.mjs';

/** @typedef {import('../report.mjs').Report} Report */

/**
 * @param {string} name  the function's name under functions:
 * @param {Record<string, any>} fn
 * @param {string} root  the directory holding dist/
 * @param {Report} report
 * @returns {Promise<number | undefined>} the timeout in seconds, when it is well formed
 */
export async function checkFunctionSettings(name, fn, root, report) {
  const where = `functions.${name}`;
  await checkHandler(where, name, fn.handler, root, report);
  // A public reconcile would let anyone drive LB writes (an event may carry serverIps); a public
  // inject or sweep would let anyone fill the queue. Triggers invoke private functions.
  if (fn.privacy !== 'private') report.error(`${where}.privacy must be "private" (got ${JSON.stringify(fn.privacy)})`);
  if (fn.memoryLimit !== FUNCTION_MEMORY_MB) {
    report.error(
      `${where}.memoryLimit is ${JSON.stringify(fn.memoryLimit)} MB; every function is sized for ${FUNCTION_MEMORY_MB} MB (scripts/function-sizing.mjs: npm run bench measures each under 96 MB there, and a bigger tier bills more GB-s for memory nothing uses)`,
    );
  }
  const timeout = /^(\d+)s$/.exec(String(fn.timeout ?? ''));
  if (!timeout || Number(timeout[1]) < 1)
    report.error(`${where}.timeout must be a whole number of seconds like "60s" (got ${JSON.stringify(fn.timeout)})`);
  return timeout ? Number(timeout[1]) : undefined;
}

/** The handler names this function's bundle, and the bundle exports that function to require() and to import(). */
async function checkHandler(where, name, handler, root, report) {
  const expected = `dist/${name}/handler.handle`;
  if (handler !== expected) return report.error(`${where}.handler is "${handler}"; the bundle of ${name} is ${expected}`);
  const file = join(root, `dist/${name}/handler.js`);
  if (!existsSync(file))
    return report.error(`${where}.handler: dist/${name}/handler.js does not exist under ${root} (npm run build writes dist/)`);
  try {
    const loaded = createRequire(import.meta.url)(file);
    if (typeof loaded.handle !== 'function')
      return report.error(`${where}.handler: dist/${name}/handler.js does not export a function "handle"`);
    // import() of a CommonJS file sees only the names Node's export detection finds in its text (not those a spread makes).
    const imported = await import(pathToFileURL(file).href);
    if (typeof imported.handle !== 'function')
      report.error(
        `${where}.handler: dist/${name}/handler.js exports "handle" to require() but not to import() (assign module.exports.handle by name): a runtime that imports handlers would start no function`,
      );
  } catch (error) {
    report.error(`${where}.handler: dist/${name}/handler.js fails to load: ${error.message}`);
  }
  return undefined;
}
