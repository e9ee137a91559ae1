/**
 * 6. Convergence after an instance replacement, through the whole local system (dist bundles, local queue,
 * trigger bridge), with realistic transients: the LB is held `pending` for LB_PENDING_MS after the
 * replacement, and every backend write takes INSTANCE_PENDING_MS to apply (instances `pending`).
 *
 * Physical floor = LB_PENDING_MS + INSTANCE_PENDING_MS: no write can be made while the LB is pending, and a
 * write is applied exactly INSTANCE_PENDING_MS after it lands. Measured: injection -> pool right (the
 * SetBackendServers lands) -> applied (lb ready, every instance ready, pool right), polled every 20 ms.
 */
import { startLocalStack } from '../local/stack';
import { buildFleet, newControlPlane, BACKEND_NAME, type Cluster } from './support/fleet';
import { median, round, sleep } from './support/stats';

export const LB_PENDING_MS = 2_000;
export const INSTANCE_PENDING_MS = 3_000;

export interface ConvergenceRun {
  poolRightMs: number;
  appliedMs: number;
  deliveries: number;
}

export interface ConvergenceResult {
  ms: number;
  floorMs: number;
  ratio: number;
  poolRightMs: number;
  runs: ConvergenceRun[];
  retryBaseMs: number;
}

interface DumpedLb {
  id: string;
  status: string;
  instances?: { status: string }[];
  backends: { name: string; pool: string[] }[];
}

type Stack = Awaited<ReturnType<typeof startLocalStack>>;

/** One replacement of the first control plane; the stack stays up between runs (functions read env once). */
async function oneRun(stack: Stack, cluster: Cluster, index: number, deliveries: () => number): Promise<ConvergenceRun> {
  const before = deliveries();
  const newIp = `51.15.250.${index + 1}`;
  const newId = `00000009-0000-4000-8000-${String(index + 1).padStart(12, '0')}`;
  const wanted = [...cluster.controlPlaneIps.slice(1), newIp].sort();
  const t0 = performance.now();
  stack.emulator.replaceServer(cluster.controlPlaneIds[0] as string, { ...newControlPlane(cluster, newIp, `r${index}`), id: newId });
  cluster.controlPlaneIds[0] = newId;
  cluster.controlPlaneIps[0] = newIp;
  stack.emulator.setLbStatus(cluster.lbId, 'pending', LB_PENDING_MS);
  const injected = await stack.inject({ target: cluster.name, source: 'instance-replacement' });
  if (injected.status !== 202) throw new Error(`inject answered ${injected.status} ${JSON.stringify(injected.body)}`);
  let poolRightMs: number | undefined;
  for (;;) {
    const lb = (stack.emulator.dumpState() as { lbs: DumpedLb[] }).lbs[0] as DumpedLb;
    const pool = [...(lb.backends.find((b) => b.name === BACKEND_NAME)?.pool ?? [])].sort();
    const right = JSON.stringify(pool) === JSON.stringify(wanted);
    if (right && poolRightMs === undefined) poolRightMs = performance.now() - t0;
    if (right && lb.status === 'ready' && (lb.instances ?? []).every((i) => i.status === 'ready')) {
      const appliedMs = performance.now() - t0;
      // Let the function's own readiness wait finish before the next run.
      await sleep(1_500);
      return { poolRightMs: poolRightMs ?? 0, appliedMs, deliveries: deliveries() - before };
    }
    if (performance.now() - t0 > 60_000) throw new Error('no convergence within 60 s');
    await sleep(20);
  }
}

export async function measureConvergence(runs: number): Promise<ConvergenceResult> {
  const { seed, clusters, targets } = buildFleet({ clusters: 1, inSync: true });
  const cluster = clusters[0] as Cluster;
  let deliveries = 0;
  const stack = await startLocalStack({
    seed,
    targets,
    functionsFrom: 'dist',
    instancePendingMs: INSTANCE_PENDING_MS,
    sweepCron: false,
    env: { LOG_LEVEL: 'silent' },
    onDelivery: () => (deliveries += 1),
  });
  const results: ConvergenceRun[] = [];
  try {
    for (let i = 0; i < runs; i += 1) results.push(await oneRun(stack, cluster, i, () => deliveries));
  } finally {
    await stack.stop();
  }
  const floorMs = LB_PENDING_MS + INSTANCE_PENDING_MS;
  const ms = median(results.map((r) => r.appliedMs));
  return {
    ms: round(ms, 0),
    floorMs,
    ratio: round(ms / floorMs, 2),
    poolRightMs: round(median(results.map((r) => r.poolRightMs)), 0),
    runs: results.map((r) => ({ poolRightMs: round(r.poolRightMs, 0), appliedMs: round(r.appliedMs, 0), deliveries: r.deliveries })),
    retryBaseMs: 2_000,
  };
}
