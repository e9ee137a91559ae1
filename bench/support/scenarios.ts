/**
 * The kinds of event each function gets on the platform, as HTTP requests its instance serves one after
 * another. One list: a function found in functions/<name>/handler.ts runs the scenarios named here for it,
 * or, when it has none, the cron tick (a `{}` POST answered 2xx), so a new cron function is measured as is.
 * A function that needs its own events gets an entry in SCENARIOS.
 */
import type { BenchWorld } from './bench-world';
import { INJECT_TOKEN } from './bench-world';
import { buildFleet, clusterName, newControlPlane, type Cluster } from './fleet';
import { reconcileMessage } from './platform-events';
import { DEFAULT_PAGE_SIZE } from '../../shared/adapters/audit-trail';
import { MAX_PAGES_PER_RUN } from '../../shared/handlers/watch-request';

/** Clusters of the bench world the scenarios share; the sweep's targets are the first SWEEP_TARGETS. */
export const SWEEP_TARGETS = 100;
export const FLEET = () => buildFleet({ clusters: SWEEP_TARGETS, inSync: true });
type Fleet = ReturnType<typeof FLEET>;

/** Which cluster each reconcile scenario works on, so they never disturb each other. */
const NOOP = 0;
const WRITE = 1;
const BUSY = 2;
const WATCHED = 3;

export interface ScenarioRequest {
  headers: Record<string, string>;
  body: string;
}

export interface Scenario {
  fn: string;
  kind: string;
  /** Its key in the bench JSON (cost.per1M.<key>). */
  key: string;
  /** Delivered by the queue trigger: the event itself is one queue message. */
  fromQueue?: boolean;
  /** How many targets the function's configuration holds (the first N clusters of the fleet). */
  targets: number;
  /** At most this many events of this kind, when each is long (the run's own count otherwise). */
  maxEvents?: number;
  /** Extra environment for the function process. */
  env?: Record<string, string>;
  /** Once, before the first event (the emulator state this kind of event needs). */
  setup?: (world: BenchWorld, fleet: Fleet) => void;
  /** The i-th request (and whatever the world must change first for it to be this kind of event). */
  request: (i: number, world: BenchWorld, fleet: Fleet) => ScenarioRequest;
  /** What a correct answer is; anything else stops the bench (a failing run is never measured as a pass). */
  expect: (status: number, body: string) => boolean;
}

const json = { 'content-type': 'application/json' };
const outcome = (status: number, body: string) => (status === 200 ? (JSON.parse(body) as { outcome?: string }).outcome : undefined);
const cluster = (fleet: Fleet, i: number) => fleet.clusters[i] as Cluster;
/** A reconcile that meets an LB in a transient state retries at once instead of waiting inside the invocation. */
const NO_TRANSIENT_WAIT = { LBSYNC_TRANSIENT_WAIT_MS: '0' };
/** A retry whose first attempt lies a day back: past any retry horizon, so a transient failure dead-letters it. */
const PAST_THE_HORIZON = { attempt: 7, firstAttemptAt: new Date(Date.now() - 86_400_000).toISOString() };

function reconcileEvent(target: string, retry: { attempt: number; firstAttemptAt?: string } = { attempt: 0 }): ScenarioRequest {
  const event = JSON.parse(reconcileMessage(target)) as Record<string, unknown>;
  return { headers: json, body: JSON.stringify({ ...event, ...retry }) };
}

/**
 * Events of each watched type in a full window: one run reads MAX_PAGES_PER_RUN pages of DEFAULT_PAGE_SIZE, shared between its
 * two listings (servers, backends) of the one region, so this fills both and leaves the server listing unread beyond.
 */
const FULL_WINDOW_EVENTS_PER_TYPE = (MAX_PAGES_PER_RUN / 2) * DEFAULT_PAGE_SIZE;

/**
 * Every run of a watch kind sees the same window: one control-plane replacement, listable at once, and `others`
 * server and backend events that concern no target. Without the clear, a run would list whatever the scenarios before
 * it wrote in the last 180 s (the write kind alone leaves 2,000 instance events), and two runs of one kind would
 * not measure the same work.
 */
function watchWindow(world: BenchWorld, fleet: Fleet, others: number): void {
  world.emulator.auditTrail.clear();
  world.emulator.auditTrail.setDelayMs(0);
  world.emulator.auditTrail.inject(
    Array.from({ length: others }, (_, i) => [
      {
        method_name: 'UpdateServer',
        request_body: { name: `renamed-${i}` },
        resources: [{ id: `bench-renamed-${i}`, type: 'instance_server' }],
      },
      {
        method_name: 'UpdateBackend',
        request_body: { name: `elsewhere-${i}` },
        resources: [
          { id: `bench-backend-${i}`, type: 'load_balancer_backend', load_balancer_backend_info: { lb_id: 'not-a-target-lb', name: 'x' } },
        ],
      },
    ]).flat(),
  );
  const c = cluster(fleet, WATCHED);
  const id = `0000abcd-0000-4000-9000-${String(Date.now() % 1e12).padStart(12, '0')}`;
  world.emulator.replaceServer(c.controlPlaneIds[0] as string, { ...newControlPlane(c, '51.98.0.1', 'watched'), id });
  c.controlPlaneIds[0] = id;
}

/** kOps' ServerAction terminate carries no tags, so it names every target of its zone (shared/core/audit-relevance.ts). */
const watchNamesTheZone = (status: number, body: string) => status === 200 && (JSON.parse(body) as { enqueued?: number }).enqueued === 4;

export const SCENARIOS: Scenario[] = [
  {
    fn: 'reconcile',
    kind: 'noop',
    key: 'reconcileNoop',
    fromQueue: true,
    targets: 4,
    request: () => reconcileEvent(clusterName(NOOP)),
    expect: (status, body) => outcome(status, body) === 'noop',
  },
  {
    fn: 'reconcile',
    kind: 'write',
    key: 'reconcileWrite',
    fromQueue: true,
    targets: 4,
    // An instance replacement before each event: one SetBackendServers per event.
    request: (i, world, fleet) => {
      const c = cluster(fleet, WRITE);
      const slot = i % c.controlPlaneIds.length;
      const id = `0000abcd-0000-4000-8000-${String(i).padStart(12, '0')}`;
      world.emulator.replaceServer(c.controlPlaneIds[slot] as string, {
        ...newControlPlane(c, `51.99.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`, `w${i}`),
        id,
      });
      c.controlPlaneIds[slot] = id;
      return reconcileEvent(clusterName(WRITE));
    },
    expect: (status, body) => outcome(status, body) === 'applied',
  },
  {
    fn: 'reconcile',
    kind: 'retry',
    key: 'reconcileRetry',
    fromQueue: true,
    targets: 4,
    env: NO_TRANSIENT_WAIT,
    setup: (world, fleet) => world.emulator.setLbStatus(cluster(fleet, BUSY).lbId, 'migrating'),
    request: () => reconcileEvent(clusterName(BUSY)),
    expect: (status, body) => outcome(status, body) === 'retry_scheduled',
  },
  {
    fn: 'reconcile',
    kind: 'dead letter',
    key: 'reconcileDeadLetter',
    fromQueue: true,
    targets: 4,
    env: NO_TRANSIENT_WAIT,
    // The last attempt (its retry horizon past) meets the LB still busy: the event goes to the dead-letter queue.
    setup: (world, fleet) => world.emulator.setLbStatus(cluster(fleet, BUSY).lbId, 'migrating'),
    request: () => reconcileEvent(clusterName(BUSY), PAST_THE_HORIZON),
    expect: (status, body) => outcome(status, body) === 'dead_lettered',
  },
  {
    fn: 'inject',
    kind: 'inject',
    key: 'inject',
    targets: 4,
    request: () => ({ headers: { ...json, authorization: `Bearer ${INJECT_TOKEN}` }, body: JSON.stringify({ target: clusterName(NOOP) }) }),
    expect: (status) => status === 202,
  },
  {
    fn: 'watch',
    kind: 'cron tick after a replacement',
    key: 'watch',
    targets: 4,
    setup: (world, fleet) => watchWindow(world, fleet, 0),
    request: () => ({ headers: json, body: '{}' }),
    expect: watchNamesTheZone,
  },
  {
    fn: 'watch',
    kind: 'cron tick, a full window',
    key: 'watchFullWindow',
    targets: 4,
    // The most one run reads: its memory is the watcher's worst case, not a typical tick.
    maxEvents: 20,
    setup: (world, fleet) => watchWindow(world, fleet, FULL_WINDOW_EVENTS_PER_TYPE),
    request: () => ({ headers: json, body: '{}' }),
    expect: watchNamesTheZone,
  },
  {
    fn: 'sweep',
    kind: `sweep of ${SWEEP_TARGETS} targets`,
    key: `sweep${SWEEP_TARGETS}`,
    targets: SWEEP_TARGETS,
    request: () => ({ headers: json, body: '{}' }),
    expect: (status, body) => status === 200 && (JSON.parse(body) as { enqueued?: number }).enqueued === SWEEP_TARGETS,
  },
];

/** A cron function without its own entry: its tick, with the fleet's targets. */
export function cronTick(fn: string): Scenario {
  return {
    fn,
    kind: 'cron tick',
    key: fn,
    targets: 4,
    request: () => ({ headers: json, body: '{}' }),
    expect: (status) => status >= 200 && status < 300,
  };
}

export function scenariosFor(fn: string): Scenario[] {
  const own = SCENARIOS.filter((s) => s.fn === fn);
  return own.length > 0 ? own : [cronTick(fn)];
}
