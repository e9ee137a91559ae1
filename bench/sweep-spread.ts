/**
 * 8. A sweep of N targets (10,000 in the full run) spread over its 5-minute period: the enqueue itself against the
 * local queue (all at once; native mode with DelaySeconds; hold mode paced on a virtual clock, so its five minutes
 * take no real time), then the Scaleway API read rate over the period, simulated from the events' notBefore
 * (3 reads per no-op reconcile: docs/architecture.md, "The functions' answers") with and without spreading, in two consumer models:
 *   A. every event read the moment it is due (unbounded consumers: the rate the API would see with no cap);
 *   B. Scaleway's queue trigger, at most 10 messages in flight, each no-op taking RECONCILE_MS (ASSUMED:
 *      3 reads in 2 round trips of ~75 ms to the real API); its reads counted when it starts.
 */
import { startLocalQueue } from '../local/queue-server';
import { createEventQueue, type EventQueue } from '../shared/adapters/queue';
import { handleSweepRequest, type SweepReport } from '../shared/handlers/sweep-request';
import { createLogger } from '../shared/platform/log';
import { parseTargets } from '../shared/schemas/target';
import { VARIABLES } from '../shared/platform/environment-catalogue';
// @ts-expect-error: plain .mjs module without types
import { FUNCTION_MEMORY_MB } from '../scripts/function-sizing.mjs';
import { pacedSweep } from './support/paced-sweep';
import { round } from './support/stats';

export const SPREAD_MS = 300_000;
export const READS_PER_NOOP = 3;
export const IN_FLIGHT = 10;
export const RECONCILE_MS = 150;
/** The deployed memory (MB, every function) and LBSYNC_MAX_HOLD_MS, for the cost of holding early events instead. */
const FUNCTION_MB: number = FUNCTION_MEMORY_MB;
const MAX_HOLD_MS = VARIABLES.LBSYNC_MAX_HOLD_MS.default;

export interface ReadRate {
  peakPerSecond: number;
  meanPerSecond: number;
  /** Model B: from the first event due to the last one started. */
  drainSeconds?: number;
  /** Model B: the longest an event waited behind others (what a replacement event would wait behind the sweep). */
  maxQueueingSeconds?: number;
}

export interface SweepSpreadResult {
  targets: number;
  enqueue: {
    allAtOnceMs: number;
    delayedMs: number;
    /** Hold mode: real time spent sending (the virtual five minutes excluded), SendMessageBatch calls, virtual duration. */
    pacedSendMs: number;
    pacedCalls: number;
    pacedDurationS: number;
    maxBatch: number;
    /** Hold mode: latest send after an event's notBefore, and earliest send before one (must be 0). */
    maxLateMs: number;
    maxEarlyMs: number;
    batches: number;
  };
  dueOnly: { unspread: ReadRate; spread: ReadRate };
  trigger: { unspread: ReadRate; spread: ReadRate };
  /** Derived: the paced sweep's own instance time vs holding early events in reconcile instances. */
  cost: { pacedSweepGbS: number; holdInReconcileGbS: number; holdDrainHours: number };
}

const logger = createLogger({ service: 'bench', level: 'silent' });

function perSecond(times: number[], start: number, spanS: number): ReadRate {
  const bins = new Map<number, number>();
  for (const t of times) bins.set(Math.floor((t - start) / 1000), (bins.get(Math.floor((t - start) / 1000)) ?? 0) + READS_PER_NOOP);
  const total = times.length * READS_PER_NOOP;
  return { peakPerSecond: Math.max(...bins.values()), meanPerSecond: round(total / spanS, 1) };
}

/** Model B: FIFO, IN_FLIGHT workers, each event busy RECONCILE_MS; returns the start times. */
function throughTrigger(due: number[]): { starts: number[]; maxQueueingMs: number } {
  const free = Array.from({ length: IN_FLIGHT }, () => -Infinity);
  const starts: number[] = [];
  let maxQueueingMs = 0;
  for (const t of [...due].sort((a, b) => a - b)) {
    let w = 0;
    for (let i = 1; i < free.length; i += 1) if ((free[i] as number) < (free[w] as number)) w = i;
    const start = Math.max(t, free[w] as number);
    free[w] = start + RECONCILE_MS;
    starts.push(start);
    maxQueueingMs = Math.max(maxQueueingMs, start - t);
  }
  return { starts, maxQueueingMs };
}

function triggerRate(due: number[], start: number): ReadRate {
  const { starts, maxQueueingMs } = throughTrigger(due);
  return {
    ...perSecond(starts, start, SPREAD_MS / 1000),
    drainSeconds: round((Math.max(...starts) - start) / 1000, 1),
    maxQueueingSeconds: round(maxQueueingMs / 1000, 1),
  };
}

async function fresh(queue: EventQueue, label: string): Promise<string> {
  return queue.createQueue(`bench-spread-${label}-${process.pid}-${Math.random().toString(36).slice(2, 7)}`, {});
}

export async function measureSweepSpread(count: number): Promise<SweepSpreadResult> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const local = await startLocalQueue();
  const queue = createEventQueue(local.settings);
  const targets = parseTargets(Array.from({ length: count }, (_, i) => ({ kops: { cluster: `c${i}.bench.local`, zone: 'fr-par-1' } })));
  try {
    const timed = async (run: () => Promise<{ body: string }>) => {
      const t0 = performance.now();
      const answer = await run();
      return { ms: performance.now() - t0, report: JSON.parse(answer.body) as SweepReport };
    };
    // Warm-up (SQS client, queue server, JIT), not timed.
    await handleSweepRequest('{}', {
      targets: targets.slice(0, 20),
      queue: () => queue,
      reconcileQueueUrl: await fresh(queue, 'warm'),
      logger,
      spreadMs: 0,
    });
    const allAtOnce = await timed(async () =>
      handleSweepRequest('{}', { targets, queue: () => queue, reconcileQueueUrl: await fresh(queue, 'once'), logger, spreadMs: 0 }),
    );
    const delayed = await timed(async () =>
      handleSweepRequest('{}', {
        targets,
        queue: () => queue,
        reconcileQueueUrl: await fresh(queue, 'native'),
        logger,
        spreadMs: SPREAD_MS,
        delayMode: 'native',
      }),
    );

    // Hold mode on a virtual clock: sleeps advance it, sends are real.
    const {
      start,
      end: clock,
      sends: sent,
      report: paced,
      sendMs,
    } = await pacedSweep(targets, queue, await fresh(queue, 'paced'), SPREAD_MS);
    const sends = sent.map((s) => ({ at: s.at, dues: s.events.map((e) => Date.parse(e.notBefore ?? '')) }));
    if (paced.enqueued !== count || allAtOnce.report.enqueued !== count || delayed.report.enqueued !== count) {
      throw new Error(`sweep spread: enqueued ${allAtOnce.report.enqueued} / ${delayed.report.enqueued} / ${paced.enqueued} of ${count}`);
    }
    const dues = sends.flatMap((s) => s.dues);
    const lateness = sends.flatMap((s) => s.dues.map((d) => s.at - d));
    const unspreadDue = dues.map(() => start);

    const holdWaitS = dues.reduce((sum, d) => sum + (d - start), 0) / 1000;
    return {
      targets: count,
      enqueue: {
        allAtOnceMs: round(allAtOnce.ms, 0),
        delayedMs: round(delayed.ms, 0),
        pacedSendMs: round(sendMs, 0),
        pacedCalls: paced.batches,
        pacedDurationS: round((clock - start) / 1000, 1),
        maxBatch: Math.max(...sends.map((s) => s.dues.length)),
        maxLateMs: Math.max(...lateness),
        maxEarlyMs: Math.max(0, -Math.min(...lateness)),
        batches: allAtOnce.report.batches,
      },
      dueOnly: { unspread: perSecond(unspreadDue, start, SPREAD_MS / 1000), spread: perSecond(dues, start, SPREAD_MS / 1000) },
      trigger: { unspread: triggerRate(unspreadDue, start), spread: triggerRate(dues, start) },
      cost: {
        pacedSweepGbS: round(((clock - start) / 1000) * (FUNCTION_MB / 1024), 1),
        holdInReconcileGbS: round(holdWaitS * (FUNCTION_MB / 1024), 0),
        holdDrainHours: round((count * MAX_HOLD_MS) / IN_FLIGHT / 3_600_000, 1),
      },
    };
  } finally {
    await local.stop();
  }
}

const rate = (r: ReadRate) =>
  `peak ${r.peakPerSecond}/s, mean ${r.meanPerSecond}/s${r.drainSeconds !== undefined ? `, backlog drained after ${r.drainSeconds} s, an event waits up to ${r.maxQueueingSeconds} s` : ''}`;

export function renderSweepSpread(r: SweepSpreadResult): string[] {
  const e = r.enqueue;
  return [
    `enqueue of ${r.targets} events: all at once ${e.allAtOnceMs} ms (${e.batches} SendMessageBatch); native, DelaySeconds until due: ${e.delayedMs} ms; hold mode, paced: ${e.pacedCalls} calls of <= ${e.maxBatch}, ${e.pacedSendMs} ms of sending over the ${e.pacedDurationS} s the sweep runs (virtual clock), sent up to ${e.maxLateMs} ms after due, ${e.maxEarlyMs} ms early`,
    `API reads (simulated, ${READS_PER_NOOP} per no-op, over ${SPREAD_MS / 1000} s) A. read when due: without spread ${rate(r.dueOnly.unspread)}; spread ${rate(r.dueOnly.spread)}`,
    `  B. queue trigger, ${IN_FLIGHT} in flight, ${RECONCILE_MS} ms per no-op (assumed): without spread ${rate(r.trigger.unspread)}; spread ${rate(r.trigger.spread)}`,
    `cost (derived): the paced sweep holds one ${FUNCTION_MB} MB instance ${e.pacedDurationS} s = ${r.cost.pacedSweepGbS} GB-s per sweep; holding early events in reconcile instances instead would cost ${r.cost.holdInReconcileGbS} GB-s per sweep and, ${IN_FLIGHT} in flight x ${MAX_HOLD_MS / 1000} s holds, need ${r.cost.holdDrainHours} h to drain a 5-minute sweep`,
  ];
}
