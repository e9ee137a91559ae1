/** 1. Scaleway API calls per reconcile, counted from the emulator's call log: scw-lb-sync vs kOps' RenderScw. */
import type { EmulatorSeed } from '../emulator';
import { reconcileTarget } from '../shared/reconcile/reconcile-target';
import { parseTargets } from '../shared/schemas/target';
import { runKopsLbBackend } from './kops-baseline';
import { ACCESS_KEY, SECRET_KEY, startBenchWorld, type BenchWorld } from './support/bench-world';
import { BACKEND_NAME, buildFleet, newControlPlane, ZONE, type Cluster } from './support/fleet';

export interface CallCount {
  reads: number;
  writes: number;
  writeOps: string[];
}

export interface ScenarioCalls {
  scenario: string;
  ours: CallCount;
  kops: CallCount;
  oursPool: string[];
  kopsPool: string[];
}

export interface ApiCallsResult {
  scenarios: ScenarioCalls[];
  /** Reads of an in-sync reconcile of one target whose pool has 3 vs 30 control planes. */
  poolSize: { servers: number; ours: number; kops: number }[];
}

interface Scenario {
  name: string;
  controlPlanes?: number;
  inSync: boolean;
  prepare?: (world: BenchWorld, cluster: Cluster, seed: EmulatorSeed) => void;
}

const SCENARIOS: Scenario[] = [
  { name: 'noop', inSync: true },
  {
    name: 'replace',
    inSync: true,
    prepare: (world, cluster) =>
      world.emulator.replaceServer(cluster.controlPlaneIds[0] as string, newControlPlane(cluster, '51.15.200.1', 'replacement')),
  },
  { name: 'create', inSync: false },
  {
    name: 'drift',
    inSync: true,
    // The backend on the LB drifted from the spec both tools want (roundrobin).
    prepare: (world, _cluster, seed) => {
      const backend = seed.lbs?.[0]?.backends?.[0];
      if (backend) backend.forward_port_algorithm = 'leastconn';
      world.emulator.loadSeed(seed);
    },
  },
];

function count(world: BenchWorld): CallCount {
  const calls = world.emulator.calls();
  return {
    reads: calls.filter((c) => !c.write).length,
    writes: calls.filter((c) => c.write).length,
    writeOps: calls.filter((c) => c.write).map((c) => c.operation),
  };
}

function poolOf(world: BenchWorld): string[] {
  const state = world.emulator.dumpState() as { lbs: { backends: { name: string; pool: string[] }[] }[] };
  return state.lbs[0]?.backends.find((b) => b.name === BACKEND_NAME)?.pool ?? [];
}

async function runBoth(world: BenchWorld, scenario: Scenario): Promise<Omit<ScenarioCalls, 'scenario'>> {
  const { seed, clusters, targets } = buildFleet({ clusters: 1, controlPlanes: scenario.controlPlanes ?? 3, inSync: scenario.inSync });
  const cluster = clusters[0] as Cluster;
  const target = parseTargets(targets)[0];
  if (!target) throw new Error('no target');

  const reset = () => {
    world.emulator.loadSeed(structuredClone(seed));
    scenario.prepare?.(world, cluster, structuredClone(seed));
    world.emulator.resetCalls();
  };

  reset();
  const result = await reconcileTarget(target, {}, { gateway: world.gateway(), waitBudgetMs: 5_000 });
  if (result.error) throw new Error(`scw-lb-sync ${scenario.name}: ${result.error.message}`);
  const ours = count(world);
  const oursPool = poolOf(world);

  reset();
  await runKopsLbBackend({
    apiUrl: world.emulator.url,
    accessKey: ACCESS_KEY,
    secretKey: SECRET_KEY,
    zone: ZONE,
    lbId: cluster.lbId,
    clusterName: cluster.name,
    backend: { name: BACKEND_NAME, forwardPort: 443 },
    waitPollMs: 50,
  });
  return { ours, kops: count(world), oursPool, kopsPool: poolOf(world) };
}

export async function measureApiCalls(): Promise<ApiCallsResult> {
  // instancePendingMs 0: a write is applied at once, so readiness costs one GetLb and the counts are exact.
  const world = await startBenchWorld({ seed: {}, withQueue: false, instancePendingMs: 0 });
  try {
    const scenarios: ScenarioCalls[] = [];
    for (const scenario of SCENARIOS) scenarios.push({ scenario: scenario.name, ...(await runBoth(world, scenario)) });
    const poolSize: ApiCallsResult['poolSize'] = [];
    for (const servers of [3, 30]) {
      const run = await runBoth(world, { name: `noop-${servers}`, inSync: true, controlPlanes: servers });
      poolSize.push({ servers, ours: run.ours.reads, kops: run.kops.reads });
    }
    return { scenarios, poolSize };
  } finally {
    await world.stop();
  }
}
