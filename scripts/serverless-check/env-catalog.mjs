// The functions, the variables their bundles read and where each belongs, and the scan of the
// built bundles for the names our code reads.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { FUNCTION_NAMES } from '../../functions/names.mjs';
import { FUNCTION_NODE_OPTIONS } from '../function-sizing.mjs';

/** One bundle per function, dist/<name>/handler.js exporting handle. */
export const FUNCTIONS = FUNCTION_NAMES;

/**
 * @typedef {object} CatalogEntry
 * @property {typeof ALL | string[]} [in]  the functions that read it
 * @property {boolean} [required]          the bundle does not start without it
 * @property {boolean} [secret]            a credential: deployed under "secret"
 * @property {boolean} [eitherKind]        may be deployed under "env" or "secret"
 * @property {string} [forbidden]          must not be deployed, and why
 * @property {string} [exactly]            read by node itself, not the bundles: must be this value
 */

/**
 * Every variable the bundles read, where it must be provided and how (see shared/platform/config.ts,
 * functions/*). The bundles are scanned: a name they read that is missing here fails the check,
 * and so does a name here they no longer read. SCW_X in a bundle is read as LBSYNC_SCW_X first.
 */
export const ALL = 'all';
/** @type {Record<string, CatalogEntry>} */
export const ENV_CATALOG = {
  SQS_ACCESS_KEY_ID: { in: ALL, required: true, secret: true },
  SQS_SECRET_ACCESS_KEY: { in: ALL, required: true, secret: true },
  RECONCILE_QUEUE_URL: { in: ALL, required: true },
  DEAD_LETTER_QUEUE_URL: { in: ALL, required: true },
  // A plain variable, or a secret when the JSON outgrows 1000 characters.
  LBSYNC_TARGETS: { in: ALL, required: true, eitherKind: true },
  // reconcile's key writes LBs; watch's own key only reads Audit Trail (least privilege: two keys).
  LBSYNC_SCW_ACCESS_KEY: { in: ['reconcile', 'watch'], required: true, secret: true },
  LBSYNC_SCW_SECRET_KEY: { in: ['reconcile', 'watch'], required: true, secret: true },
  LBSYNC_SCW_DEFAULT_ORGANIZATION_ID: { in: ['watch'], required: true },
  INJECT_TOKEN: { in: ['inject'], required: true, secret: true },
  SQS_ENDPOINT: { in: ALL },
  SQS_REGION: { in: ALL },
  LOG_LEVEL: { in: ALL },
  LOG_FORMAT: { in: ALL },
  QUEUE_DELAY_MODE: { in: ALL },
  LBSYNC_SCW_DEFAULT_PROJECT_ID: { in: ['reconcile', 'watch'] },
  LBSYNC_SCW_DEFAULT_ZONE: { in: ['reconcile'] },
  LBSYNC_SCW_API_URL: { in: ['reconcile', 'watch'] },
  LBSYNC_RETRY_BASE_MS: { in: ALL },
  LBSYNC_RETRY_CAP_MS: { in: ALL },
  LBSYNC_RETRY_HORIZON_MS: { in: ALL },
  LBSYNC_MAX_ATTEMPTS: { in: ALL },
  LBSYNC_MAX_HOLD_MS: { in: ALL },
  LBSYNC_WAIT_BUDGET_MS: { in: ALL },
  LBSYNC_TRANSIENT_WAIT_MS: { in: ['reconcile'] },
  LBSYNC_REQUEST_TIMEOUT_MS: { in: ALL },
  LBSYNC_DUPLICATE_GRACE_MS: { in: ['reconcile'] },
  LBSYNC_WATCH_PERIOD_MS: { in: ['watch'] },
  LBSYNC_WATCH_OVERLAP_MS: { in: ['watch'] },
  LBSYNC_WATCH_OWN_PRINCIPAL_IDS: { in: ['watch'] },
  LBSYNC_SWEEP_SPREAD_MS: { in: ['sweep'] },
  // reconcile's own timeout and the margin it keeps for the hand-off (rules/timing.mjs checks the first equals `timeout`).
  LBSYNC_FUNCTION_TIMEOUT_MS: { in: ['reconcile'] },
  LBSYNC_DEADLINE_MARGIN_MS: { in: ['reconcile'] },
  // Read by node: the heap bound the bench measures and the code cache is made under (scripts/function-sizing.mjs).
  NODE_OPTIONS: { in: ALL, required: true, exactly: FUNCTION_NODE_OPTIONS },
  LBSYNC_CONFIG: { forbidden: 'names a file, and only dist/** is shipped: give the targets in LBSYNC_TARGETS' },
  LBSYNC_INJECT_INSECURE: { forbidden: 'turns off the inject token check; it is for the local stack only' },
};
/** Prefixes of the names our code reads (AWS_* belong to the AWS SDK and are not ours). */
const OUR_NAMES = /\b(?:LBSYNC|SQS|SCW|RECONCILE|DEAD_LETTER|QUEUE|INJECT|LOG)_[A-Z0-9_]*[A-Z0-9]\b/g;
/**
 * The functions' defaults, for the timing checks when serverless.yml leaves a value out: the very file the runtime
 * schema (shared/platform/config.ts) takes its defaults from, so the check cannot judge other values than the
 * functions use.
 */
export const RUNTIME_DEFAULTS = JSON.parse(readFileSync(new URL('../../shared/platform/runtime-defaults.json', import.meta.url), 'utf8'));

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
        names.add(match[0].startsWith('SCW_') ? `LBSYNC_${match[0]}` : match[0]);
      }
    }
  }
  return names;
}
