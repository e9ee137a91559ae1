// The functions, the variables their bundles read and where each belongs (the environment catalogue), and the
// scan of the built bundles for the names our code reads.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { FUNCTION_NAMES } from '../../functions/names.mjs';
import { FUNCTION_NODE_OPTIONS } from '../function-sizing.mjs';

/** One bundle per function, dist/<name>/handler.js exporting handle. */
export const FUNCTIONS = FUNCTION_NAMES;

/**
 * @typedef {object} CatalogEntry
 * @property {typeof ALL | readonly string[]} [in]  the functions that read it
 * @property {boolean} [required]          the bundle does not start without it
 * @property {boolean} [secret]            a credential: deployed under "secret"
 * @property {boolean} [eitherKind]        may be deployed under "env" or "secret"
 * @property {string} [forbidden]          must not be deployed, and why
 * @property {string} [exactly]            read by node itself, not the bundles: must be this value
 * @property {boolean} [cliOnly]          only the lbsync CLI reads it, no function
 */

/**
 * The environment catalogue (shared/platform/environment-catalogue.json), the file shared/platform/config.ts takes
 * its variables, defaults and secrets from: every variable the functions read, where it must be provided and how.
 */
const CATALOGUE = JSON.parse(readFileSync(new URL('../../shared/platform/environment-catalogue.json', import.meta.url), 'utf8')).variables;

/** Values fixed by this project's own files rather than by a deployment: node reads these, not the bundles. */
const EXACT_VALUES = { NODE_OPTIONS: FUNCTION_NODE_OPTIONS };

/** Deployed functions read SCW_X as LBSYNC_SCW_X: Scaleway reserves SCW_* inside Functions. */
const deployedName = (name) => (name.startsWith('SCW_') ? `LBSYNC_${name}` : name);

export const ALL = 'all';
/**
 * The catalogue by the names serverless.yml deploys. The bundles are scanned: a name they read that is missing here
 * fails the check, and so does a name here they no longer read.
 * @type {Record<string, CatalogEntry>}
 */
export const ENV_CATALOG = Object.fromEntries(
  Object.entries(CATALOGUE).map(([name, variable]) => {
    const cliOnly = variable.functions !== ALL && variable.functions.length === 0;
    const forbidden = variable.notDeployed ?? (cliOnly ? 'no function reads it (only the lbsync CLI does)' : undefined);
    return [
      deployedName(name),
      {
        in: variable.functions,
        required: variable.required === true,
        secret: variable.secret === true,
        eitherKind: variable.secretAllowed === true,
        ...(forbidden && { forbidden }),
        ...(variable.readByNode && { exactly: EXACT_VALUES[name] }),
        ...(cliOnly && { cliOnly }),
      },
    ];
  }),
);
/** Prefixes of the names our code reads (AWS_* belong to the AWS SDK and are not ours). */
const OUR_NAMES = /\b(?:LBSYNC|SQS|SCW|RECONCILE|DEAD_LETTER|QUEUE|INJECT|LOG)_[A-Z0-9_]*[A-Z0-9]\b/g;
/**
 * The functions' defaults, for the timing checks when serverless.yml leaves a value out: the catalogue's, which the
 * runtime schema (shared/platform/config.ts) applies, so the check cannot judge other values than the functions use.
 */
export const RUNTIME_DEFAULTS = Object.fromEntries(
  Object.entries(CATALOGUE).flatMap(([name, variable]) => (variable.default === undefined ? [] : [[name, variable.default]])),
);

/**
 * Names our bundles read, deployed names (SCW_X -> LBSYNC_SCW_X). Bundles not built yet are skipped.
 * @param {string} root  the directory holding dist/
 * @returns {Set<string>}
 */
export function namesReadByBundles(root) {
  const names = new Set();
  for (const name of FUNCTIONS) {
    const dir = join(root, 'dist', name);
    if (!existsSync(dir)) continue;
    // handler.js (the code-cache loader) and bundle.js (the code).
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
      for (const match of readFileSync(join(dir, file), 'utf8').matchAll(OUR_NAMES)) {
        names.add(deployedName(match[0]));
      }
    }
  }
  return names;
}
