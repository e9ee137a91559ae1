/**
 * The sweep as deployed (hold mode: each batch sent when its events are due) on a virtual clock: its sleeps advance
 * the clock and take no real time, its sends reach the real queue and are recorded with the virtual time they left.
 */
import type { EventQueue } from '../../shared/adapters/queue';
import { handleSweepRequest, type SweepReport } from '../../shared/handlers/sweep-request';
import { createLogger } from '../../shared/platform/log';
import type { LbSyncEvent } from '../../shared/schemas/event';
import type { Target } from '../../shared/schemas/target';

/** Where the virtual clock starts (epoch ms). */
export const SWEEP_START = Date.UTC(2026, 10, 29, 10, 0, 0);

export interface PacedSweep {
  start: number;
  /** The virtual time the sweep returned. */
  end: number;
  /** Each SendMessageBatch: when it left (virtual) and the events it carried. */
  sends: { at: number; events: LbSyncEvent[] }[];
  report: SweepReport;
  /** Real time spent in the sends. */
  sendMs: number;
}

const logger = createLogger({ service: 'bench', level: 'silent' });

export async function pacedSweep(
  targets: readonly Target[],
  queue: EventQueue,
  reconcileQueueUrl: string,
  spreadMs: number,
): Promise<PacedSweep> {
  let clock = SWEEP_START;
  const sends: PacedSweep['sends'] = [];
  let sendMs = 0;
  const recording: EventQueue = {
    ...queue,
    sendBatch: async (url, entries) => {
      sends.push({ at: clock, events: entries.map((e) => JSON.parse(e.body) as LbSyncEvent) });
      const t0 = performance.now();
      const result = await queue.sendBatch(url, entries);
      sendMs += performance.now() - t0;
      return result;
    },
  };
  const answer = await handleSweepRequest('{}', {
    targets,
    queue: () => recording,
    reconcileQueueUrl,
    logger,
    spreadMs,
    delayMode: 'hold',
    now: () => new Date(clock),
    sleep: async (ms) => {
      clock += ms;
    },
  });
  return { start: SWEEP_START, end: clock, sends, report: JSON.parse(answer.body) as SweepReport, sendMs };
}
