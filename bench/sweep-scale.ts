/**
 * 5. Sweep at scale: fan-out time of the sweep bundle for 10 / 100 / 1000 targets against the local queue
 * (SendMessageBatch calls), then the Scaleway API reads spent reconciling what it enqueued (all in sync).
 */
import { join } from 'node:path';
import { startBenchWorld } from './support/bench-world';
import { distHandler, REPO } from './support/bundles';
import { runChild } from './support/child';
import { drive } from './support/drive';
import { buildFleet } from './support/fleet';
import { round } from './support/stats';

export interface SweepRow {
  targets: number;
  fanOutMs: number;
  batches: number;
  enqueued: number;
  /** Undefined when the backlog was not reconciled (quick mode skips the largest). */
  reads?: number;
  writes?: number;
  readsPerTarget?: number;
  reconcileWallMs?: number;
}

interface SweepAnswer {
  enqueued: number;
  batches: number;
}

export async function measureSweepScale(sizes: number[], reconcileUpTo: number): Promise<SweepRow[]> {
  const largest = Math.max(...sizes);
  const fleet = buildFleet({ clusters: largest, inSync: true });
  const world = await startBenchWorld({ seed: fleet.seed });
  try {
    const rows: SweepRow[] = [];
    for (const size of sizes) {
      const env = world.env(fleet.targets.slice(0, size));
      const event = { httpMethod: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body: '{}', isBase64Encoded: false };
      // Warm-up with an empty selection: process start, config and target parsing are not part of the fan-out.
      const report = await drive({
        handler: distHandler('sweep'),
        env,
        event,
        count: 1,
        concurrency: 1,
        warmup: { count: 1, event: { ...event, body: '{"targets":[]}' } },
      });
      const answer = JSON.parse(report.lastBody ?? '{}') as SweepAnswer;
      const row: SweepRow = { targets: size, fanOutMs: round(report.wallMs), batches: answer.batches, enqueued: answer.enqueued };
      if (size <= reconcileUpTo) {
        world.emulator.resetCalls();
        const drained = await runChild<{ handled: number; wallMs: number; outcomes: Record<string, number> }>(
          join(REPO, 'bench/child/drain.cjs'),
          [distHandler('reconcile')],
          env,
          { timeoutMs: 240_000 },
        );
        if (drained.result.handled !== size)
          throw new Error(`sweep ${size}: reconciled ${drained.result.handled} events: ${JSON.stringify(drained.result.outcomes)}`);
        const counts = world.callCounts();
        Object.assign(row, {
          reads: counts.reads,
          writes: counts.writes,
          readsPerTarget: round(counts.reads / size, 2),
          reconcileWallMs: round(drained.result.wallMs, 0),
        });
      } else {
        await world.events?.purge(world.reconcileQueueUrl);
      }
      rows.push(row);
    }
    return rows;
  } finally {
    await world.stop();
  }
}
