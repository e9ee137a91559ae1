// A function's triggers as this project wires them: which function gets which trigger, the queue reconcile
// reads, and the input each schedule sends. Their syntax is the plugin's own validation (npm run package).
import { isPlainObject, isUnset } from '../resolve.mjs';

/** @typedef {import('../report.mjs').Report} Report */

/** The triggers each function needs: reconcile reads the queue, inject is called over HTTP, sweep and watch run on a schedule. */
const WANTED_TRIGGERS = { reconcile: ['sqs'], inject: [], sweep: ['schedule'], watch: ['schedule'] };
/** The keys each scheduled function's args accept (shared/handlers/sweep-request.ts, watch-request.ts). */
const SCHEDULE_ARGS = { sweep: ['targets', 'dryRun', 'spreadSeconds'], watch: ['targets', 'dryRun'] };

/**
 * @param {string} name  the function's name under functions:
 * @param {Record<string, any>} fn
 * @param {Record<string, unknown>} resolvedEnv  the variables the function gets (env and secret, resolved)
 * @param {Report} report
 */
export function checkTriggers(name, fn, resolvedEnv, report) {
  const where = `functions.${name}.events`;
  const events = fn.events ?? [];
  if (!Array.isArray(events)) return report.error(`${where} must be a list`);
  const kinds = events.map((event) => (isPlainObject(event) ? Object.keys(event).join('+') : typeof event));
  const wanted = WANTED_TRIGGERS[name];
  if (wanted && kinds.join(',') !== wanted.join(',')) {
    report.error(
      `${where}: ${name} needs ${wanted.length ? `exactly one ${wanted[0]} trigger` : 'no trigger (it is called over HTTP)'}, found [${kinds.join(', ')}]`,
    );
  }
  if (name === 'reconcile') checkReconcileQueue(where, events, resolvedEnv, report);
  if (SCHEDULE_ARGS[name]) checkScheduleInput(name, where, events, report);
}

/** The queue trigger reads a <prefix>-reconcile queue, the one RECONCILE_QUEUE_URL points at. */
function checkReconcileQueue(where, events, resolvedEnv, report) {
  const queue = events.find((e) => isPlainObject(e) && e.sqs)?.sqs.queue;
  const url = resolvedEnv.RECONCILE_QUEUE_URL;
  if (typeof queue === 'string' && !isUnset(queue) && !queue.endsWith('-reconcile')) {
    report.error(`${where}: the queue "${queue}" is not a <prefix>-reconcile queue made by "lbsync provision"`);
  }
  if (typeof queue === 'string' && !isUnset(queue) && typeof url === 'string' && !isUnset(url) && url.split('/').pop() !== queue) {
    report.error(`${where}: the trigger reads "${queue}" but RECONCILE_QUEUE_URL points at ${url}`);
  }
}

/** The schedule's input is the function's arguments: only the keys its handler accepts. */
function checkScheduleInput(name, where, events, report) {
  const input = events.find((e) => isPlainObject(e) && e.schedule)?.schedule.input ?? {};
  const accepted = SCHEDULE_ARGS[name];
  const unknown = isPlainObject(input) ? Object.keys(input).filter((k) => !accepted.includes(k)) : [];
  if (unknown.length > 0) report.error(`${where}: the ${name}'s input accepts only ${accepted.join(', ')} (found ${unknown.join(', ')})`);
}
