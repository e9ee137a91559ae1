/**
 * A kOps rolling update of the demo cluster's three control planes (emulator/kops/: kOps' own calls, User-Agent and
 * API key), played with kOps alone or with scw-lb-sync beside it (the local stack: watcher, sweep, and the boot hook's
 * event when each successor boots), on a clock scaled down `scale` times. What the pools hold is read off the
 * emulator every tick (its pools, the LB's health of each member, the servers' states) and what kOps deregistered off
 * the pool history (kOps' RemoveBackendServers), so the figures are the emulator's evidence, not our answers:
 * - deregisteredInPoolS: a pool holds an address kOps deregistered;
 * - terminatedInPoolS: a pool holds an address whose server is terminating (`stopping`) or gone;
 * - nonControlPlaneInPoolS: a pool holds an address of a server without the ControlPlane role (kOps' apply writes
 *   the workers in: they carry no role tag);
 * - belowTwoPassingS: a backend has fewer than two members the LB's health check passes;
 * - lbsyncWrites: writes made with scw-lb-sync's User-Agent; finalPoolRight: at the end every pool is exactly the
 *   running control planes not marked needs-update.
 * Seconds are real-world seconds (measured x scale); scw-lb-sync's own work runs at full speed, so it counts scale
 * times over: the figures are upper bounds for it.
 */
import type { EmulatorHandle, KopsRun, KopsStep, PoolWrite, SeedBackend } from '../../emulator';
import { KOPS_TIMINGS, KOPS_USER_AGENT, kopsRollingUpdate, scaledKopsTimings, startEmulator } from '../../emulator';
import { startLocalStack, type LocalStack } from '../../local/stack';
import { LBSYNC_USER_AGENT_MARKER } from '../../shared/outbound/user-agent';
import { readFileSync } from 'node:fs';
import type { EmulatorSeed } from '../../emulator';

export const ROLLING_CLUSTER = 'demo.k8s.local';
const ROLE_TAG = 'noprefix=kops.k8s.io/role=ControlPlane';
const NEEDS_UPDATE = 'noprefix=kops.k8s.io/needs-update';

/**
 * The real-world timings: kOps' (KOPS_TIMINGS: its defaults, post-drain 5 s, control-plane interval 15 s; assumed, a
 * drain of 2 min, a validation of 1 min), the recorded Instance timings (poweron 5 s, terminate 15 s), and the assumed
 * ones (a health check that passes 10 s and fails 15 s after the change, Audit Trail listing 30 s after a call); scw-lb-sync as deployed
 * (watcher every minute over a 2-minute overlap, sweep every 5 minutes).
 */
export const ROLLING_REAL = {
  ...KOPS_TIMINGS,
  poweronMs: 5_000,
  terminateMs: 15_000,
  healthPassAfterMs: 10_000,
  healthFailAfterMs: 15_000,
  auditDelayMs: 30_000,
  watchPeriodMs: 60_000,
  watchOverlapMs: 120_000,
  sweepEveryMs: 300_000,
} as const;

export interface RollingUpdateFigures {
  deregisteredInPoolS: number;
  terminatedInPoolS: number;
  nonControlPlaneInPoolS: number;
  belowTwoPassingS: number;
  lbsyncWrites: number;
  finalPoolRight: boolean;
}

export interface RollingUpdatePlay {
  figures: RollingUpdateFigures;
  /** The longest time from a kOps apply that wrote workers in to the pools holding none again (real-world s); null if never. */
  workersGoneAfterApplyS: number | null;
  /** How long the rolling update took (real-world s) and the window measured (until kOps was done plus a settle). */
  rollingUpdateS: number;
  windowS: number;
  kops: KopsRun;
  finalPools: Record<string, string[]>;
  history: PoolWrite[];
}

export interface RollingUpdateSettings {
  withLbsync: boolean;
  scale: number;
  cloudOnly?: boolean;
  /** dist: the deployable bundles (the bench); source: the TypeScript (tests). */
  functionsFrom?: 'dist' | 'source';
  tickMs?: number;
}

function demoWorld(): EmulatorSeed {
  const seed = JSON.parse(readFileSync(new URL('../../emulator/seeds/demo.json', import.meta.url), 'utf8')) as EmulatorSeed;
  const controlPlanes = (seed.servers ?? []).filter((s) => s.tags.includes(ROLE_TAG)).flatMap((s) => s.publicIps ?? []);
  const backend: SeedBackend = {
    name: 'lb-backend-https',
    forward_port: 443,
    pool: controlPlanes,
    health_check: { port: 443, check_delay: 3000, check_timeout: 1000, check_max_retries: 5, tcp_config: {} },
  };
  const [lb, ...rest] = seed.lbs ?? [];
  return { ...seed, lbs: [{ ...(lb as NonNullable<typeof lb>), backends: [backend] }, ...rest] };
}

const scaled = (ms: number, scale: number) => Math.max(1, Math.round(ms / scale));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One reading of the emulator: per backend, its members with their class, and how many pass. */
interface Reading {
  at: number;
  deregistered: boolean;
  terminated: boolean;
  nonControlPlane: boolean;
  belowTwoPassing: boolean;
  workers: boolean;
}

function read(emulator: EmulatorHandle, deregistered: ReadonlySet<string>): Reading {
  const holders = new Map<string, { state: string; tags: string[] }>();
  for (const server of emulator.state.servers.values()) for (const ip of server.publicIps) holders.set(ip.address, server);
  const members = emulator.backendHealth().backends.map((b) => b.members);
  const all = members.flat();
  const gone = (ip: string) => {
    const holder = holders.get(ip);
    return !holder || holder.state === 'stopping';
  };
  const worker = (ip: string) => {
    const holder = holders.get(ip);
    return holder !== undefined && !holder.tags.includes(ROLE_TAG);
  };
  return {
    at: Date.now(),
    deregistered: all.some((m) => deregistered.has(m.ip)),
    terminated: all.some((m) => gone(m.ip)),
    nonControlPlane: all.some((m) => worker(m.ip)),
    belowTwoPassing: members.some((pool) => pool.filter((m) => m.status === 'passed').length < 2),
    workers: all.some((m) => worker(m.ip)),
  };
}

/** Every pool exactly the running control planes that are not marked. */
function poolsRight(emulator: EmulatorHandle): boolean {
  const wanted = [...emulator.state.servers.values()]
    .filter((s) => s.state === 'running' && s.tags.includes(ROLE_TAG) && !s.tags.includes(NEEDS_UPDATE))
    .flatMap((s) => s.publicIps.map((ip) => ip.address))
    .sort();
  return emulator.backendHealth().backends.every((b) => JSON.stringify(b.members.map((m) => m.ip).sort()) === JSON.stringify(wanted));
}

export async function playRollingUpdate(settings: RollingUpdateSettings): Promise<RollingUpdatePlay> {
  const { scale } = settings;
  const at = (ms: number) => scaled(ms, scale);
  const behaviours = {
    poweronMs: at(ROLLING_REAL.poweronMs),
    terminateMs: at(ROLLING_REAL.terminateMs),
    healthPassAfterMs: at(ROLLING_REAL.healthPassAfterMs),
    healthFailAfterMs: at(ROLLING_REAL.healthFailAfterMs),
  };
  const seed = demoWorld();
  let stack: LocalStack | undefined;
  let emulator: EmulatorHandle;
  const tickers: { stop(): void }[] = [];
  if (settings.withLbsync) {
    stack = await startLocalStack({
      seed,
      targets: [{ kops: { cluster: ROLLING_CLUSTER, zone: 'fr-par-1' } }],
      functionsFrom: settings.functionsFrom ?? 'source',
      sweepCron: false,
      auditTrailDelayMs: at(ROLLING_REAL.auditDelayMs),
      watchEveryMs: at(ROLLING_REAL.watchPeriodMs),
      env: {
        LOG_LEVEL: 'silent',
        LBSYNC_WATCH_OVERLAP_MS: String(at(ROLLING_REAL.watchOverlapMs)),
        LBSYNC_RETRY_BASE_MS: '50',
        LBSYNC_RETRY_CAP_MS: '2000',
        LBSYNC_RETRY_HORIZON_MS: '600000',
        LBSYNC_TRANSIENT_WAIT_MS: '0',
      },
    });
    emulator = stack.emulator;
    const local = stack;
    const sweep = setInterval(() => void local.sweep({}).catch(() => undefined), at(ROLLING_REAL.sweepEveryMs));
    sweep.unref();
    tickers.push({ stop: () => clearInterval(sweep) });
  } else {
    emulator = await startEmulator({ seed, auditTrailDelayMs: at(ROLLING_REAL.auditDelayMs) });
  }
  emulator.setBehaviours(behaviours);
  const ownWrites = () => emulator.calls().filter((c) => c.write && (c.userAgent ?? '').includes(LBSYNC_USER_AGENT_MARKER)).length;
  const writesBefore = ownWrites();

  // kOps' deregistrations, off the pool history: what its RemoveBackendServers took out.
  const deregistered = new Set<string>();
  const noteDeregistered = () => {
    for (const w of emulator.history())
      if (w.operation === 'RemoveBackendServers' && w.userAgent === KOPS_USER_AGENT)
        for (const ip of w.poolBefore) if (!w.pool.includes(ip)) deregistered.add(ip);
  };
  const readings: Reading[] = [];
  let sampling = true;
  const tickMs = settings.tickMs ?? 10;
  const sampler = (async () => {
    while (sampling) {
      noteDeregistered();
      readings.push(read(emulator, deregistered));
      await sleep(tickMs);
    }
  })();

  const boots: Promise<unknown>[] = [];
  const onStep = (step: KopsStep) => {
    // The boot hook on each successor: one event, no serverIps, once it runs.
    if (step.step === 'running' && stack) boots.push(stack.inject({ source: 'instance-replacement', target: ROLLING_CLUSTER }));
  };
  const started = Date.now();
  let kops: KopsRun;
  try {
    kops = await kopsRollingUpdate({
      apiUrl: emulator.url,
      secretKey: 'kops-operator-0000-4000-8000-00000000c0de',
      cluster: ROLLING_CLUSTER,
      zone: 'fr-par-1',
      ...(settings.cloudOnly && { cloudOnly: true }),
      timings: scaledKopsTimings(scale),
      onStep,
    });
    const done = Date.now();
    // The same settle for both: long enough for the watcher to see kOps' last write and for a reconcile to follow.
    await sleep(at(ROLLING_REAL.auditDelayMs + 2 * ROLLING_REAL.watchPeriodMs));
    await Promise.all(boots);
    if (stack) await stack.bridge.waitIdle({ quietMs: 100, timeoutMs: 20_000 });
    sampling = false;
    await sampler;
    const finalPoolRight = poolsRight(emulator);
    const seconds = (pick: (r: Reading) => boolean) => {
      let ms = 0;
      readings.forEach((r, i) => {
        const next = readings[i + 1];
        if (next && pick(r)) ms += next.at - r.at;
      });
      return Math.round((ms * scale) / 100) / 10;
    };
    const history = emulator.history();
    return {
      figures: {
        deregisteredInPoolS: seconds((r) => r.deregistered),
        terminatedInPoolS: seconds((r) => r.terminated),
        nonControlPlaneInPoolS: seconds((r) => r.nonControlPlane),
        belowTwoPassingS: seconds((r) => r.belowTwoPassing),
        lbsyncWrites: ownWrites() - writesBefore,
        finalPoolRight,
      },
      workersGoneAfterApplyS: workersGone(history, readings, scale),
      rollingUpdateS: Math.round(((done - started) * scale) / 1000),
      windowS: Math.round(((Date.now() - started) * scale) / 1000),
      kops,
      finalPools: Object.fromEntries(emulator.backendHealth().backends.map((b) => [b.name, b.members.map((m) => m.ip).sort()])),
      history,
    };
  } finally {
    sampling = false;
    for (const t of tickers) t.stop();
    await (stack ? stack.stop() : emulator.stop());
  }
}

/** From each kOps pool write that brought workers in to the first reading with none (the longest such wait). */
function workersGone(history: readonly PoolWrite[], readings: readonly Reading[], scale: number): number | null {
  let longest: number | null = null;
  for (const w of history.filter((h) => h.operation === 'SetBackendServers' && h.userAgent === KOPS_USER_AGENT)) {
    const after = readings.filter((r) => r.at >= w.at);
    if (!after.some((r) => r.workers)) continue;
    const clear = after.find((r) => !r.workers);
    const ms = (clear?.at ?? (readings.at(-1)?.at as number)) - w.at;
    longest = Math.max(longest ?? 0, Math.round((ms * scale) / 100) / 10);
  }
  return longest;
}
