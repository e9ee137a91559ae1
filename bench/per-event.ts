/**
 * 3. Per-event overhead of the reconcile function on one core: no-op events one after another through the
 * deployed bundle's handle(), the emulator at zero latency in another process (so its CPU is not counted).
 * Included per event: decode + schema check, logger child and its JSON lines (written to /dev/null), the
 * three reads through the Scaleway SDK and undici (request building, JSON parsing, unmarshalling), plan.
 */
import { startBenchWorld } from './support/bench-world';
import { distHandler } from './support/bundles';
import { drive } from './support/drive';
import { buildFleet, clusterName } from './support/fleet';
import { platformEvent } from './support/platform-events';
import { round } from './support/stats';

export interface PerEventResult {
  events: number;
  eventsPerSec: number;
  cpuMs: number;
  wallMsPerEvent: number;
  outcomes: Record<string, number>;
}

export async function measurePerEvent(events: number): Promise<PerEventResult> {
  const { seed, targets } = buildFleet({ clusters: 1, inSync: true });
  const world = await startBenchWorld({ seed, latencyMs: 0 });
  try {
    const event = platformEvent('reconcile', clusterName(0));
    const report = await drive({
      handler: distHandler('reconcile'),
      env: world.env(targets),
      event,
      count: events,
      concurrency: 1,
      warmup: { count: Math.min(50, events) },
    });
    const cpuMs = (report.cpuUserMs + report.cpuSystemMs) / events;
    return {
      events,
      // CPU-bound rate: what one core sustains if the API answered instantly.
      eventsPerSec: round(1000 / cpuMs, 0),
      cpuMs: round(cpuMs, 2),
      wallMsPerEvent: round(report.wallMs / events, 2),
      outcomes: report.outcomes,
    };
  } finally {
    await world.stop();
  }
}
