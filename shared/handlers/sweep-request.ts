import * as z from 'zod';
import type { EventQueue } from '../adapters/queue';
import { delaySecondsUntil, pacedSends, spreadDueTimes, spreadOrder } from '../core/sweep-schedule';
import type { Logger } from '../platform/log';
import type { LineFields } from '../platform/log-schema';
import type { PlatformResponse } from '../platform/request-response';
import { jsonResponse } from '../platform/request-response';
import type { Target } from '../schemas/target';
import { cronArgsSchema, parseCronArgs, selectCronTargets } from './cron-args';
import type { EnqueueFailure, Outgoing } from './enqueue-events';
import { ENQUEUE_FAILURE_STATUS, enqueueEvents, enqueueFailureBody, newEvent, refusal } from './enqueue-events';

/** The cron trigger's JSON args: which targets to sweep (all when omitted), over how long. */
export const sweepArgsSchema = cronArgsSchema
  .extend({
    spreadSeconds: z
      .number()
      .int()
      .min(0)
      .max(900)
      .optional()
      .describe('spread the targets over this many seconds (default LBSYNC_SWEEP_SPREAD_MS)'),
  })
  .strict();

export interface SweepDeps {
  targets: readonly Target[];
  queue: () => EventQueue;
  reconcileQueueUrl: string;
  /** Read with the reconcile queue at the run's end. Both depths go on the heartbeat, since Cockpit documents no queue metrics. */
  deadLetterQueueUrl?: string;
  logger: Logger;
  /** Spread the events' notBefore over this interval unless the args say otherwise; 0 sends all at once. */
  spreadMs?: number;
  /** hold (Scaleway: no DelaySeconds): the sweep sends each batch when due; native: all at once, delayed. */
  delayMode?: 'hold' | 'native';
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface SweepReport {
  selected: number;
  enqueued: number;
  failed: { target: string; code: string; message: string }[];
  unknownTargets: string[];
  batches: number;
  /** The interval the events' notBefore were spread over (0: all due at once). */
  spreadMs: number;
  /** all-at-once, delayed (native: DelaySeconds until due) or paced (hold: each batch sent when due). */
  sending: 'all-at-once' | 'delayed' | 'paced';
}

/** A target's project as the API's rate limits count it: its own, else the deployment's (''). */
const projectGroup = (target: Target) => `${target.organizationId ?? ''}/${target.projectId ?? ''}`;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One `sweep` event per selected target, 10 per SendMessageBatch call, each with a notBefore spread
 * evenly over the interval (shared/core/sweep-schedule.ts says why and how they are sent).
 */
export async function handleSweepRequest(rawBody: string, deps: SweepDeps): Promise<PlatformResponse> {
  const parsed = parseCronArgs(rawBody, sweepArgsSchema, '{"targets":["prod"]}');
  if ('error' in parsed) return parsed.error;
  const { args } = parsed;
  const now = () => (deps.now?.() ?? new Date()).getTime();
  const sleep = deps.sleep ?? realSleep;
  const listed = selectCronTargets(args, deps.targets, deps.logger, 'sweep');
  const { unknownTargets } = listed;
  const spreadMs = args.spreadSeconds !== undefined ? args.spreadSeconds * 1000 : (deps.spreadMs ?? 0);
  // Deal the slots project by project, so each project's targets span the whole period (shared/core/sweep-schedule.ts says why).
  const selected = spreadMs > 0 ? spreadOrder(listed.selected, projectGroup).map((i) => listed.selected[i] as Target) : listed.selected;
  const startMs = now();
  const occurredAt = new Date(startMs).toISOString();
  const dueTimes = spreadMs > 0 ? spreadDueTimes(selected.length, spreadMs, startMs, deps.random) : [];
  const sending: SweepReport['sending'] = spreadMs === 0 ? 'all-at-once' : deps.delayMode === 'native' ? 'delayed' : 'paced';
  const outgoing: Outgoing[] = selected.map((target, index) => {
    const due = dueTimes[index];
    const event = newEvent({
      source: 'sweep',
      target: target.name,
      occurredAt,
      ...(args.dryRun !== undefined && { dryRun: args.dryRun }),
      ...(due !== undefined && { notBefore: new Date(due).toISOString() }),
    });
    return { event, ...(due !== undefined && sending === 'delayed' && { delaySeconds: delaySecondsUntil(due, startMs) }) };
  });
  const report: SweepReport = { selected: selected.length, enqueued: 0, failed: [], unknownTargets, batches: 0, spreadMs, sending };
  /** Sends one part. Events the queue refused are counted and sending goes on; a queue out of reach stops it. */
  const send = async (part: Outgoing[]): Promise<EnqueueFailure | undefined> => {
    const { sent, calls, failure } = await enqueueEvents(deps, part);
    report.enqueued += sent.length;
    report.batches += calls;
    report.failed.push(...(failure?.failed ?? []));
    return failure?.unreachable ? failure : undefined;
  };
  const parts = sending === 'paced' ? pacedSends(dueTimes) : [{ sendAt: startMs, indexes: outgoing.map((_, i) => i) }];
  for (const { sendAt, indexes } of parts) {
    const wait = sendAt - now();
    if (wait > 0) await sleep(wait);
    const unreachable = await send(indexes.map((i) => outgoing[i] as Outgoing));
    if (unreachable) {
      deps.logger.error(
        heartbeat(report, startMs, args.dryRun, { code: unreachable.code, error: unreachable.error }),
        'sweep could not enqueue',
      );
      return jsonResponse(ENQUEUE_FAILURE_STATUS, { ...enqueueFailureBody(unreachable), ...report });
    }
  }
  // Refused entries (their SQS codes in `failed`) are a hand-off failure as much as a queue that cannot be reached.
  const refused = report.failed.length > 0 ? { code: 'queue_unavailable' } : undefined;
  const depths = await queueDepths(deps);
  deps.logger[refused ? 'error' : 'info'](
    { ...heartbeat(report, startMs, args.dryRun, refused), ...depths },
    `sweep: ${report.enqueued}/${report.selected} targets enqueued in ${report.batches} batch(es), ${sending} over ${spreadMs} ms`,
  );
  if (!refused) return jsonResponse(200, report);
  return jsonResponse(ENQUEUE_FAILURE_STATUS, { ...enqueueFailureBody(refusal(report.failed)), ...report });
}

type Depths = Pick<
  LineFields<'sweep_heartbeat'>,
  'reconcile_queue_waiting' | 'reconcile_queue_in_flight' | 'dead_letters_waiting' | 'dead_letters_in_flight'
>;

const depth = (value: string | undefined): number | undefined => {
  const n = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isInteger(n) && n >= 0 ? n : undefined;
};

/**
 * Both queues' depths for the heartbeat, read by the alerts on a backlog and on waiting dead letters. Publish-only
 * credentials may call GetQueueAttributes. If a queue does not answer, its keys are left out, with a warning.
 */
async function queueDepths(deps: SweepDeps): Promise<Depths> {
  if (!deps.deadLetterQueueUrl) return {};
  const read = async (url: string) => {
    try {
      return await deps.queue().attributes(url);
    } catch (error) {
      deps.logger.warn({ error }, `sweep: could not read the depth of ${url}`);
      return {};
    }
  };
  const [reconcile, dead] = await Promise.all([read(deps.reconcileQueueUrl), read(deps.deadLetterQueueUrl)]);
  const fields: Depths = {
    reconcile_queue_waiting: depth(reconcile.ApproximateNumberOfMessages),
    reconcile_queue_in_flight: depth(reconcile.ApproximateNumberOfMessagesNotVisible),
    dead_letters_waiting: depth(dead.ApproximateNumberOfMessages),
    dead_letters_in_flight: depth(dead.ApproximateNumberOfMessagesNotVisible),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Depths;
}

/** The run's one heartbeat line (shared/platform/log-schema.ts); `failure` when the queue refused or failed. */
function heartbeat(
  report: SweepReport,
  startMs: number,
  dryRun: boolean | undefined,
  failure?: { code: string; error?: unknown },
): LineFields<'sweep_heartbeat'> {
  return {
    log_type: 'sweep_heartbeat',
    status: failure ? 'failed' : 'ok',
    ...failure,
    targets_selected: report.selected,
    targets_enqueued: report.enqueued,
    targets_failed: report.failed.length,
    failed: report.failed,
    unknown_targets: report.unknownTargets,
    batches: report.batches,
    sending: report.sending,
    spread_ms: report.spreadMs,
    window_from: new Date(startMs).toISOString(),
    window_to: new Date(startMs + report.spreadMs).toISOString(),
    dry_run: dryRun === true,
  };
}
