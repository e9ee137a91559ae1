// reconcile's worst case (hold, transient wait, wait budget, one request) fits in its timeout, and the
// function knows that timeout (LBSYNC_FUNCTION_TIMEOUT_MS): it stops working a margin before it.
import { TIMING_DEFAULTS } from '../env-catalog.mjs';
import { isUnset } from '../resolve.mjs';

/** @typedef {import('../report.mjs').Report} Report */

/**
 * @param {number | undefined} timeoutSeconds  reconcile's timeout; nothing is checked without one
 * @param {Record<string, unknown>} env  the variables reconcile gets
 * @param {Report} report
 */
export function checkTiming(timeoutSeconds, env, report) {
  if (timeoutSeconds === undefined) return;
  const value = (name) => {
    const raw = env[name];
    return raw === undefined || isUnset(raw) ? TIMING_DEFAULTS[name] : Number(raw);
  };
  const known = env.LBSYNC_FUNCTION_TIMEOUT_MS;
  if (known === undefined || isUnset(known)) {
    report.error(`functions.reconcile: set env LBSYNC_FUNCTION_TIMEOUT_MS to '${timeoutSeconds * 1000}' (its timeout): the function stops working a margin before it, and must know when`);
  } else if (Number(known) !== timeoutSeconds * 1000) {
    report.error(`functions.reconcile: LBSYNC_FUNCTION_TIMEOUT_MS is ${known} but the timeout is ${timeoutSeconds} s; set it to '${timeoutSeconds * 1000}'`);
  }
  const hold = value('LBSYNC_MAX_HOLD_MS');
  const transient = value('LBSYNC_TRANSIENT_WAIT_MS');
  const wait = value('LBSYNC_WAIT_BUDGET_MS');
  const request = value('LBSYNC_REQUEST_TIMEOUT_MS');
  if (![hold, transient, wait, request].every(Number.isFinite)) {
    return report.error('functions.reconcile: LBSYNC_MAX_HOLD_MS, LBSYNC_TRANSIENT_WAIT_MS, LBSYNC_WAIT_BUDGET_MS and LBSYNC_REQUEST_TIMEOUT_MS must be numbers');
  }
  if (hold + transient + wait + request > timeoutSeconds * 1000) {
    report.error(
      `functions.reconcile: hold ${hold} ms + transient wait ${transient} ms + wait budget ${wait} ms + one request ${request} ms exceed the ${timeoutSeconds} s timeout; the platform would cut the invocation and redeliver`,
    );
  }
}
