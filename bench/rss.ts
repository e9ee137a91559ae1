/** 4. Peak RSS of each function bundle under a burst, in a fresh child process, against the 128 MB tier. */
import { startBenchWorld } from './support/bench-world';
import { distHandler, FUNCTION_NAMES, type FunctionName } from './support/bundles';
import { drive } from './support/drive';
import { buildFleet, clusterName } from './support/fleet';
import { platformEvent } from './support/platform-events';
import { round } from './support/stats';

export interface RssRow {
  fn: FunctionName;
  peakMB: number;
  events: number;
  concurrency: number;
  outcomes: Record<string, number>;
}

/** Sweep events each fan out to every configured target: 10 here. */
const SWEEP_TARGETS = 10;

export async function measureRss(events: number, concurrency: number): Promise<RssRow[]> {
  const { seed, targets } = buildFleet({ clusters: SWEEP_TARGETS, inSync: true });
  const world = await startBenchWorld({ seed });
  try {
    const rows: RssRow[] = [];
    for (const fn of FUNCTION_NAMES) {
      const report = await drive({
        handler: distHandler(fn),
        env: world.env(targets),
        event: platformEvent(fn, clusterName(0)),
        count: events,
        concurrency,
      });
      rows.push({ fn, peakMB: round(report.vmHwmMB ?? report.maxRssMB), events, concurrency, outcomes: report.outcomes });
    }
    return rows;
  } finally {
    await world.stop();
  }
}
