// A function's triggers: their syntax, which function gets which trigger, the queue reconcile
// reads, and the input the sweep's schedule sends.
import { isPlainObject, isUnset } from '../resolve.mjs';
import { REGIONS, SQS_QUEUE_NAME, TRIGGER_NAME, TRIGGER_TYPES, UUID } from '../scaleway-limits.mjs';
import { cronProblems } from './cron.mjs';

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
  const kinds = [];
  events.forEach((event, i) => {
    const keys = isPlainObject(event) ? Object.keys(event) : [];
    if (keys.length !== 1) return report.error(`${where}[${i}] must hold exactly one trigger type`);
    const [kind] = keys;
    kinds.push(kind);
    checkTriggerSyntax(`${where}[${i}]`, kind, event[kind] ?? {}, report);
  });
  const wanted = WANTED_TRIGGERS[name];
  if (wanted && kinds.join(',') !== wanted.join(',')) {
    report.error(`${where}: ${name} needs ${wanted.length ? `exactly one ${wanted[0]} trigger` : 'no trigger (it is called over HTTP)'}, found [${kinds.join(', ')}]`);
  }
  if (name === 'reconcile') checkReconcileQueue(where, events, resolvedEnv, report);
  if (SCHEDULE_ARGS[name]) checkScheduleInput(name, where, events, report);
}

/** One trigger as the plugin's validator would see it. */
function checkTriggerSyntax(at, kind, trigger, report) {
  if (!TRIGGER_TYPES.includes(kind)) return report.error(`${at}: trigger type "${kind}" is not supported (${TRIGGER_TYPES.join(', ')})`);
  if (kind === 'schedule') {
    for (const problem of cronProblems(trigger.rate)) report.error(`${at}.schedule.rate: ${problem}`);
    if (trigger.input !== undefined && !isPlainObject(trigger.input)) report.error(`${at}.schedule.input must be a map (the cron's JSON args)`);
  }
  if (kind === 'sqs') {
    if (!TRIGGER_NAME.test(String(trigger.name ?? ''))) report.error(`${at}.sqs.name must match ${TRIGGER_NAME}`);
    if (!isUnset(trigger.queue) && !SQS_QUEUE_NAME.test(String(trigger.queue ?? ''))) report.error(`${at}.sqs.queue "${trigger.queue}" must be a queue name matching ${SQS_QUEUE_NAME} (not a URL)`);
    if (trigger.projectId !== undefined && !isUnset(trigger.projectId) && !UUID.test(trigger.projectId)) report.error(`${at}.sqs.projectId must be a project UUID`);
    if (trigger.region !== undefined && !isUnset(trigger.region) && !REGIONS.includes(trigger.region)) report.error(`${at}.sqs.region must be one of ${REGIONS.join(', ')}`);
  }
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
