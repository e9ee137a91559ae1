// One function's own settings: handler, runtime, privacy, memory, timeout, scale, sandbox, HTTP option.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { FUNCTION_MEMORY_MB } from '../../function-sizing.mjs';
import { MAX_SCALE, MEMORY_TIERS, NODE_RUNTIMES } from '../scaleway-limits.mjs';

/** @typedef {import('../report.mjs').Report} Report */

/**
 * @param {string} name  the function's name under functions:
 * @param {Record<string, any>} fn
 * @param {string} root  the directory holding dist/
 * @param {Report} report
 * @returns {number | undefined} the timeout in seconds, when it is well formed
 */
export function checkFunctionSettings(name, fn, root, report) {
  const where = `functions.${name}`;
  checkHandler(where, name, fn.handler, root, report);
  if (fn.runtime !== undefined && !NODE_RUNTIMES.includes(fn.runtime)) report.error(`${where}.runtime "${fn.runtime}" is not one of ${NODE_RUNTIMES.join(', ')}`);
  // A public reconcile would let anyone drive LB writes (an event may carry serverIps); a public
  // inject or sweep would let anyone fill the queue. Triggers invoke private functions.
  if (fn.privacy !== 'private') report.error(`${where}.privacy must be "private" (got ${JSON.stringify(fn.privacy)})`);
  if (!MEMORY_TIERS.includes(fn.memoryLimit)) report.error(`${where}.memoryLimit ${JSON.stringify(fn.memoryLimit)} is not a Scaleway memory tier (${MEMORY_TIERS.join(', ')} MB)`);
  else if (fn.memoryLimit !== FUNCTION_MEMORY_MB) {
    report.error(`${where}.memoryLimit is ${fn.memoryLimit} MB; every function is sized for ${FUNCTION_MEMORY_MB} MB (scripts/function-sizing.mjs: npm run bench measures each under 96 MB there, and a bigger tier bills more GB-s for memory nothing uses)`);
  }
  const timeout = /^(\d+)s$/.exec(String(fn.timeout ?? ''));
  if (!timeout || Number(timeout[1]) < 1) report.error(`${where}.timeout must be a whole number of seconds like "60s" (got ${JSON.stringify(fn.timeout)})`);
  const { minScale, maxScale } = fn;
  if (!Number.isInteger(minScale) || minScale < 0) report.error(`${where}.minScale must be a whole number >= 0`);
  if (!Number.isInteger(maxScale) || maxScale < 1 || maxScale > MAX_SCALE) report.error(`${where}.maxScale must be a whole number from 1 to ${MAX_SCALE}`);
  if (Number.isInteger(minScale) && Number.isInteger(maxScale) && minScale > maxScale) report.error(`${where}: minScale ${minScale} exceeds maxScale ${maxScale}`);
  if (fn.sandbox !== undefined && !['v1', 'v2'].includes(fn.sandbox)) report.error(`${where}.sandbox must be v1 or v2`);
  if (fn.httpOption !== undefined && !['enabled', 'redirected'].includes(fn.httpOption)) report.error(`${where}.httpOption must be enabled or redirected`);
  return timeout ? Number(timeout[1]) : undefined;
}

/** The handler names this function's bundle, the file exists under root, and it exports that function. */
function checkHandler(where, name, handler, root, report) {
  const expected = `dist/${name}/handler.handle`;
  if (handler !== expected) report.error(`${where}.handler is "${handler}"; the bundle of ${name} is ${expected}`);
  if (typeof handler !== 'string') return;
  const parts = handler.split('.');
  const file = join(root, `${parts[0]}.js`);
  if (parts.length !== 2) report.error(`${where}.handler must be path/to/file.export with a single dot (the plugin splits on ".")`);
  else if (!existsSync(file)) report.error(`${where}.handler: ${parts[0]}.js does not exist under ${root} (npm run build writes dist/)`);
  else {
    try {
      const loaded = createRequire(import.meta.url)(file);
      if (typeof loaded[parts[1]] !== 'function') report.error(`${where}.handler: ${parts[0]}.js does not export a function "${parts[1]}"`);
    } catch (error) {
      report.error(`${where}.handler: ${parts[0]}.js fails to load: ${error.message}`);
    }
  }
}
