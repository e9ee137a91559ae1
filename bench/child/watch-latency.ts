// Child process (run with `node --import tsx`): replacement -> pool converged with only the watcher, on the local
// stack with the dist bundles, on a scaled clock. argv: <runs> <scale>. Reports over IPC.
// Its own process: the local stack sets process.env and the bundles read their environment once per process.
import { startLocalStack } from '../../local/stack';
import { buildFleet, newControlPlane, BACKEND_NAME, type Cluster } from '../support/fleet';
import { sleep } from '../support/stats';
import { WATCH_REAL, type WatchLatencyRun } from '../watch-latency';

const runs = Number(process.argv[2] ?? '10');
const scale = Number(process.argv[3] ?? '30');
const periodMs = WATCH_REAL.periodMs / scale;
const delayMs = WATCH_REAL.auditDelayMs / scale;
const overlapMs = WATCH_REAL.overlapMs / scale;

interface DumpedLb {
  status: string;
  instances?: { status: string }[];
  backends: { name: string; pool: string[] }[];
}

async function main(): Promise<void> {
  const { seed, clusters, targets } = buildFleet({ clusters: 1, inSync: true });
  const cluster = clusters[0] as Cluster;
  const stack = await startLocalStack({
    seed,
    targets,
    functionsFrom: 'dist',
    instancePendingMs: 300,
    sweepCron: false,
    auditTrailDelayMs: delayMs,
    env: { LOG_LEVEL: 'silent', LBSYNC_WATCH_PERIOD_MS: String(periodMs), LBSYNC_WATCH_OVERLAP_MS: String(overlapMs) },
  });
  // The cron: a run every periodMs on a fixed grid, whatever happens; each run's time and answer kept.
  const watchRuns: { at: number; enqueued: number }[] = [];
  const origin = performance.now();
  let stopped = false;
  const cron = (async () => {
    for (let k = 1; !stopped; k += 1) {
      const due = origin + k * periodMs;
      await sleep(Math.max(0, due - performance.now()));
      if (stopped) break;
      const at = performance.now();
      const answer = await stack.watch({});
      watchRuns.push({ at, enqueued: (answer.body as { enqueued?: number }).enqueued ?? -1 });
    }
  })();
  const results: WatchLatencyRun[] = [];
  const lb = () => (stack.emulator.dumpState() as { lbs: DumpedLb[] }).lbs[0] as DumpedLb;
  try {
    for (let i = 0; i < runs; i += 1) {
      // Start clean: nothing in flight, nothing of the last replacement left in the watcher's window.
      await stack.bridge.waitIdle({ quietMs: 200, timeoutMs: 30_000 });
      stack.emulator.auditTrail.clear();
      const runsBefore = watchRuns.length;
      while (watchRuns.length < runsBefore + 1) await sleep(20);
      await stack.bridge.waitIdle({ quietMs: 100, timeoutMs: 30_000 });
      // A random phase against the cron, as a real replacement has.
      await sleep(Math.random() * periodMs);
      const newIp = `51.15.240.${i + 1}`;
      const newId = `00000009-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;
      const wanted = [...cluster.controlPlaneIps.slice(1), newIp].sort();
      const t0 = performance.now();
      stack.emulator.replaceServer(cluster.controlPlaneIds[0] as string, { ...newControlPlane(cluster, newIp, `w${i}`), id: newId });
      cluster.controlPlaneIds.shift();
      cluster.controlPlaneIds.push(newId);
      cluster.controlPlaneIps.shift();
      cluster.controlPlaneIps.push(newIp);
      let poolRightMs: number | undefined;
      for (;;) {
        const state = lb();
        const pool = [...(state.backends.find((b) => b.name === BACKEND_NAME)?.pool ?? [])].sort();
        const right = JSON.stringify(pool) === JSON.stringify(wanted);
        if (right && poolRightMs === undefined) poolRightMs = performance.now() - t0;
        if (right && state.status === 'ready' && (state.instances ?? []).every((x) => x.status === 'ready')) break;
        if (performance.now() - t0 > 60_000) throw new Error(`replacement ${i}: no convergence within 60 s`);
        await sleep(10);
      }
      const appliedMs = performance.now() - t0;
      const noticing = watchRuns.find((r) => r.at >= t0 && r.enqueued > 0);
      if (!noticing) throw new Error(`replacement ${i}: converged without a watcher run enqueuing it`);
      results.push({ poolRightMs: poolRightMs ?? appliedMs, appliedMs, noticedAfterMs: noticing.at - t0 });
    }
  } finally {
    stopped = true;
    await cron;
    await stack.stop();
  }
  process.send?.({ runs: results, periodMs, delayMs, overlapMs, scale }, () => process.exit(0));
}

main().catch((error: unknown) => {
  console.error((error as Error)?.stack ?? String(error));
  process.exit(1);
});
