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
/**
 * The variables whose names the targets give (each target's `credentials`): the functions that read them, always
 * as secrets. Their names are the deployer's, so they are found in the targets, not in the catalogue.
 */
const NAMED = JSON.parse(readFileSync(new URL('../../shared/platform/environment-catalogue.json', import.meta.url), 'utf8')).namedByTargets;
export const TARGET_KEY_VARIABLES = { in: NAMED.functions, secret: NAMED.secret === true };

/**
 * The variables the targets' credentials name, each with who names it (`target "gamma": credentials.accessKeyEnv`);
 * undefined when the targets are not known here (LBSYNC_TARGETS left to the deployer's environment, or not JSON).
 * @param {unknown} targetsValue  LBSYNC_TARGETS as serverless.yml resolves it
 * @returns {Map<string, string> | undefined}
 */
export function targetKeyVariables(targetsValue) {
  if (typeof targetsValue !== 'string') return undefined;
  let parsed;
  try {
    parsed = JSON.parse(targetsValue);
  } catch {
    return undefined;
  }
  const list = Array.isArray(parsed) ? parsed : Array.isArray(parsed?.targets) ? parsed.targets : undefined;
  if (!list) return undefined;
  const named = new Map();
  for (const item of list) {
    const target = item?.kops ?? item;
    const credentials = target?.credentials;
    if (!credentials || typeof credentials !== 'object') continue;
    const name = target.name ?? target.cluster ?? '?';
    for (const field of ['accessKeyEnv', 'secretKeyEnv']) {
      const variable = credentials[field];
      // A key pasted where its variable's name belongs is never repeated here (the functions refuse it, unquoted).
      if (typeof variable === 'string' && !LOOKS_LIKE_A_KEY.test(variable) && !named.has(variable))
        named.set(variable, `target "${name}" (credentials.${field})`);
    }
  }
  return named;
}

/** An access key or a secret key (shared/schemas/api-key.ts). */
const LOOKS_LIKE_A_KEY = /^(SCW[A-Z0-9]{17}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

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
