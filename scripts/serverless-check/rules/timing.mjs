// reconcile's worst case (hold, transient wait, wait budget, one request) fits in its timeout, and the
// function knows that timeout (LBSYNC_FUNCTION_TIMEOUT_MS): it stops working a margin before it.
import { RUNTIME_DEFAULTS } from '../env-catalog.mjs';
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
    return raw === undefined || isUnset(raw) ? RUNTIME_DEFAULTS[name] : Number(raw);
  };
  const known = env.LBSYNC_FUNCTION_TIMEOUT_MS;
  if (known === undefined || isUnset(known)) {
    report.error(
      `functions.reconcile: set env LBSYNC_FUNCTION_TIMEOUT_MS to '${timeoutSeconds * 1000}' (its timeout): the function stops working a margin before it, and must know when`,
    );
  } else if (Number(known) !== timeoutSeconds * 1000) {
    report.error(
      `functions.reconcile: LBSYNC_FUNCTION_TIMEOUT_MS is ${known} but the timeout is ${timeoutSeconds} s; set it to '${timeoutSeconds * 1000}'`,
    );
  }
  const hold = value('LBSYNC_MAX_HOLD_MS');
  const transient = value('LBSYNC_TRANSIENT_WAIT_MS');
  const wait = value('LBSYNC_WAIT_BUDGET_MS');
  const request = value('LBSYNC_REQUEST_TIMEOUT_MS');
  if (![hold, transient, wait, request].every(Number.isFinite)) {
    return report.error(
      'functions.reconcile: LBSYNC_MAX_HOLD_MS, LBSYNC_TRANSIENT_WAIT_MS, LBSYNC_WAIT_BUDGET_MS and LBSYNC_REQUEST_TIMEOUT_MS must be numbers',
    );
  }
  if (hold + transient + wait + request > timeoutSeconds * 1000) {
    report.error(
      `functions.reconcile: hold ${hold} ms + transient wait ${transient} ms + wait budget ${wait} ms + one request ${request} ms exceed the ${timeoutSeconds} s timeout; the platform would cut the invocation and redeliver`,
    );
  }
}

/**
 * In hold mode the sweep sends each batch when its events are due (Scaleway Queues have no DelaySeconds),
 * so one run lasts about LBSYNC_SWEEP_SPREAD_MS and must end within the sweep's timeout.
 * @param {number | undefined} timeoutSeconds  sweep's timeout
 * @param {Record<string, unknown>} env  the variables sweep gets
 * @param {Report} report
 */
export function checkSweepTiming(timeoutSeconds, env, report) {
  if (timeoutSeconds === undefined) return;
  const raw = env.LBSYNC_SWEEP_SPREAD_MS;
  const spread = raw === undefined || isUnset(raw) ? RUNTIME_DEFAULTS.LBSYNC_SWEEP_SPREAD_MS : Number(raw);
  if (!Number.isFinite(spread)) return report.error('functions.sweep: LBSYNC_SWEEP_SPREAD_MS must be a number');
  const mode =
    env.QUEUE_DELAY_MODE === undefined || isUnset(env.QUEUE_DELAY_MODE) ? RUNTIME_DEFAULTS.QUEUE_DELAY_MODE : env.QUEUE_DELAY_MODE;
  if (mode === 'hold' && spread + 30_000 > timeoutSeconds * 1000) {
    report.error(
      `functions.sweep: in hold mode the sweep paces its sends over LBSYNC_SWEEP_SPREAD_MS (${spread} ms); with 30 s to spare that needs a timeout of at least ${Math.ceil(spread / 1000) + 30}s (got ${timeoutSeconds}s)`,
    );
  }
}

/**
 * The largest gap, in minutes, between two runs of a schedule that runs every hour of every day;
 * undefined when the schedule is restricted to some hours or days.
 * @param {unknown} rate
 */
export function largestGapMinutes(rate) {
  if (typeof rate !== 'string') return undefined;
  const [minute, ...rest] = rate.split(' ');
  if (rest.length !== 4 || rest.some((field) => field !== '*') || minute === undefined) return undefined;
  if (minute === '*') return 1;
  const minutes = new Set();
  for (const part of minute.split(',')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!range) return undefined;
    for (let m = Number(range[1]); m <= Number(range[2] ?? range[1]); m += 1) minutes.add(m);
  }
  const sorted = [...minutes].sort((a, b) => a - b);
  return Math.max(...sorted.map((m, i) => (i === sorted.length - 1 ? (sorted[0] ?? 0) + 60 - m : (sorted[i + 1] ?? m) - m)));
}

/**
 * The watcher reads the last LBSYNC_WATCH_PERIOD_MS + overlap of Audit Trail on each run: the period must
 * cover the longest gap between two runs of its schedule, or events in between are never read.
 * @param {Record<string, any>} fn  the watch function
 * @param {Record<string, unknown>} env  the variables watch gets
 * @param {Report} report
 */
export function checkWatchTiming(fn, env, report) {
  const rate = (fn.events ?? []).find((e) => e && typeof e === 'object' && e.schedule)?.schedule.rate;
  if (rate === undefined) return;
  const gap = largestGapMinutes(rate);
  if (gap === undefined)
    return report.error(
      `functions.watch: the schedule "${rate}" must run every hour of every day (minute field only), or events are missed`,
    );
  const raw = env.LBSYNC_WATCH_PERIOD_MS;
  const period = raw === undefined || isUnset(raw) ? RUNTIME_DEFAULTS.LBSYNC_WATCH_PERIOD_MS : Number(raw);
  if (!Number.isFinite(period) || period < gap * 60_000) {
    report.error(
      `functions.watch: the schedule "${rate}" leaves up to ${gap} min between runs but LBSYNC_WATCH_PERIOD_MS is ${raw ?? period}; set it to at least ${gap * 60_000} so each run reads back to the previous one`,
    );
  }
}
