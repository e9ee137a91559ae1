/**
 * The chaos schedule: every step, fault and gap drawn up front from one seeded PRNG, so the same seed
 * gives the same schedule whatever the timings of the run that plays it.
 */
import { createHash } from 'node:crypto';
import { DRAINABLE, type ServerChange } from './fleet';
import { INJECTABLE_SOURCES, type InjectableSource } from '../shared/schemas/event-sources';
import { createPrng, type Prng } from './prng';

export const READ_OPERATIONS = ['ListLbs', 'ListBackends', 'ListServers', 'GetLb'] as const;
export const WRITE_OPERATIONS = ['SetBackendServers', 'CreateBackend'] as const;
const ANY_OPERATION = [...READ_OPERATIONS, ...WRITE_OPERATIONS] as const;

export type FaultStep =
  | { type: 'transient_409'; operation: string; count: number }
  | { type: 'lb_busy'; cluster: number; status: 'pending' | 'migrating'; forMs: number }
  | { type: 'rate_limited'; operation: string; resetSeconds: number }
  | { type: 'server_error'; operation: string; status: 500 | 502 | 503; count: number }
  | { type: 'connection_reset'; operation: string; count: number }
  /** The API never answers: the client gives up at LBSYNC_REQUEST_TIMEOUT_MS. */
  | { type: 'hang'; operation: string }
  /** The API answers after the client gave up, and the write is committed all the same. */
  | { type: 'slow_commit'; operation: string; latencyMs: number }
  /** Someone deletes the backend by hand. */
  | { type: 'backend_deleted'; cluster: number }
  /** The dead-letter queue disappears while an invalid event needs it: the function must answer 5xx. */
  | { type: 'handoff_failure'; body: string }
  | { type: 'permanent_403'; operation: string }
  /** The LB's health check reports a control plane (by slot) failing or unknown for a while, whatever the server does. */
  | { type: 'health_failure'; cluster: number; slot: number; status: 'failed' | 'unknown'; forMs: number }
  /**
   * The LB stays migrating longer than the production profile's retry horizon (5 s): the event sent with it is
   * dead-lettered retries_exhausted under production settings, and recovers under the CI ones (20 s). Placed.
   */
  | { type: 'lb_stuck'; cluster: number; forMs: number; id: string }
  /**
   * The reconcile function crashes on one message `times` times in a row (the answer recorder answers 502 without
   * calling it): past the queue's maxReceiveCount (production: 4) the queue redrives it to the dead-letter queue.
   */
  | { type: 'crash'; cluster: number; id: string; times: number }
  /**
   * ListServers' tags filter turns loose (the emulator's assumed switch `serverTagsFilter`) until the next such step:
   * every answer then holds workers and other clusters' control planes, which no pool write may ever hold. Placed.
   */
  | { type: 'tags_filter'; filter: 'all' | 'any' | 'prefix' };

export type Step = { gapMs: number } & (
  | { kind: 'inject'; id: string; cluster: number; source: InjectableSource; dryRun: boolean }
  | { kind: 'send'; id: string; cluster: number }
  | { kind: 'duplicate'; id: string; cluster: number }
  /** `later` is sent before `earlier`, and a retry copy (attempt 2, due soon) of `retried` before its attempt 0. */
  | { kind: 'reorder'; earlier: string; later: string; retried: string; cluster: number }
  | { kind: 'burst'; ids: string[]; cluster: number }
  | { kind: 'sweep' }
  | { kind: 'invalid'; body: string }
  | { kind: 'unknown_target'; id: string }
  /** A kOps rolling update of one server; the boot hook's event asserts the new server's address. */
  | { kind: 'replace'; cluster: number; slot: number; inject?: string }
  /** Two control planes deleted at once and replaced. */
  | { kind: 'replace_two'; cluster: number; slots: [number, number]; inject?: string }
  /**
   * Two control planes replaced surge-style: two new servers join while the two they replace lose their role tag,
   * still running and passing (a pool of five). Once the new ones pass, two passing members are leaving while every
   * desired member passes: maxUnavailable alone keeps them from leaving in one write. Placed; like a drain, played
   * on a cluster in sync (the `sync` event, then a wait until its pool is its control planes).
   */
  | { kind: 'surge'; cluster: number; slots: [number, number]; sync: string; inject: string }
  /**
   * Every control plane of the cluster whose target allows an empty pool (fleet.ts, DRAINABLE) loses its role tag,
   * all still passing: the pool shrinks one member per write down to the last passing one, which never leaves. The
   * driver waits until the pool holds one member and a reconcile of the target has met it, then gives the tags
   * back (`restore`: the event sent then). Placed.
   */
  | { kind: 'drain'; cluster: number; sync: string; inject: string; restore: string }
  /**
   * kOps' rolling update of the cluster's three control planes, played with kOps' own calls (emulator/kops/):
   * `kops update cluster` marks them needs-update, `kops rolling-update` deregisters, drains, terminates and
   * succeeds each (`--cloudonly`: no deregistration, no drain). On a cluster in sync (`sync`), outside a loose tags
   * filter. Beside it, as deployed: the watcher's event when kOps deregisters one and when its apply writes the pool,
   * the boot hook's when a successor runs. Placed.
   */
  | { kind: 'kops_rolling_update'; cluster: number; cloudOnly: boolean; sync: string }
  /** A control plane stops, is stopping, loses its role tag or its address, or comes back. */
  | { kind: 'server_change'; cluster: number; slot: number; change: ServerChange; inject?: string }
  /** An inject caller asserting addresses outside the target: accepted (202), never written, dead-lettered untrusted_server_ips. */
  | { kind: 'hostile_ips'; id: string; cluster: number; ips: 'other_cluster' | 'worker' | 'foreign' }
  /** An inject caller setting what only the system sets, or a loopback address: refused by inject (400), never enqueued. */
  | { kind: 'hostile_fields'; id: string; cluster: number; field: 'attempt' | 'notBefore' | 'source' | 'loopback' }
  | { kind: 'fault'; fault: FaultStep }
  /** The end: faults off, one event per target; convergence is measured once they are answered (no sweep). */
  | { kind: 'settle'; ids: string[] }
);

const STEP_WEIGHTS = {
  inject: 20,
  send: 11,
  duplicate: 5,
  reorder: 4,
  burst: 5,
  sweep: 2,
  invalid: 3,
  unknown_target: 2,
  replace: 10,
  replace_two: 2,
  server_change: 6,
  hostile_ips: 1,
  hostile_fields: 2,
  fault: 32,
} as const;

const FAULT_WEIGHTS = {
  transient_409: 6,
  lb_busy: 5,
  rate_limited: 2,
  server_error: 6,
  connection_reset: 4,
  hang: 3,
  slow_commit: 3,
  backend_deleted: 3,
  handoff_failure: 0, // placed on purpose, see below
  permanent_403: 1,
  health_failure: 5,
  lb_stuck: 0, // placed
  crash: 0, // placed
  tags_filter: 0, // placed
} as const;

const SERVER_CHANGES: Record<ServerChange, number> = { stopped: 2, stopping: 1, untagged: 2, no_address: 1, restore: 3 };

export interface Schedule {
  steps: Step[];
  /** Event ids (and invalid bodies) the schedule produces, not counting sweeps' own ids. */
  plannedEvents: number;
  hash: string;
}

/** Draws steps until `events` events are planned (a sweep and the closing settle count as one per target). */
export function buildSchedule(prng: Prng, options: { seed: number; events: number; targets: number }): Schedule {
  const steps: Step[] = [];
  let counter = 0;
  let planned = 0;
  const id = () => {
    counter += 1;
    return `chaos-${options.seed}-${counter}`;
  };
  const cluster = () => prng.int(0, options.targets - 1);
  const gap = () => (prng.chance(0.7) ? prng.int(0, 8) : prng.int(10, 60));
  // At least one hand-off failure in any run with room for it, about a third of the way in; more in long runs.
  const handoffEvery = Math.max(20, Math.floor(options.events / 3));
  let nextHandoff = Math.min(handoffEvery, Math.floor(options.events / 3));
  // The same for the faults that only production settings turn into dead letters (lb_stuck, crash): early, so
  // the redeliveries they cause (a visibility timeout apart) overlap the rest of the run.
  const placedEvery = Math.max(100, Math.floor(options.events / 4));
  let nextPlaced = Math.min(placedEvery, Math.floor(options.events / 6));
  // The make-before-break steps placed with them draw from their own stream: the rest of the schedule stays as it was.
  const rollout = createPrng((options.seed ^ 0x6d62) >>> 0);
  const invalidBody = (tag: string) =>
    prng.pick([
      `{"version":1,"id":"${tag}", oops`,
      JSON.stringify({ version: 1, id: tag, source: 'bogus', target: 'c0.k8s.local', occurredAt: new Date(0).toISOString() }),
      JSON.stringify({ version: 2, id: tag }),
      JSON.stringify({ version: 1, id: tag, source: 'manual', target: 'c0.k8s.local', occurredAt: 'yesterday', serverIps: ['999.1.1.1'] }),
      `not json at all ${tag}`,
    ]);

  const events = Math.max(1, options.events - options.targets); // the settle step's events come last
  // The middle third of the schedule plays under a ListServers tags filter that matches any one tag; no draw is
  // taken for it, so the rest of the schedule is the same as without it.
  const looseFilter = options.events >= 20 ? { from: Math.floor(events / 3), to: Math.floor((2 * events) / 3) } : undefined;
  let filterState: 'all' | 'any' = 'all';
  // kOps' rolling updates, outside the loose filter's third, from a stream of their own (the rest stays as it was).
  const kops = createPrng((options.seed ^ 0x6b6f) >>> 0);
  const kopsEvery = Math.max(40, Math.floor(options.events / 5));
  let nextKops = Math.floor(options.events / 8);
  let kopsRuns = 0;
  while (planned < events) {
    const wanted = looseFilter && planned >= looseFilter.from && planned < looseFilter.to ? 'any' : 'all';
    if (wanted !== filterState) {
      steps.push({ gapMs: 0, kind: 'fault', fault: { type: 'tags_filter', filter: wanted } });
      filterState = wanted;
    }
    if (options.events >= 20 && planned >= nextKops && filterState === 'all') {
      // Every other one --cloudonly, the first not: the deregistration is what the leaving rule guards.
      steps.push({
        gapMs: kops.int(0, 8),
        kind: 'kops_rolling_update',
        cluster: kops.int(0, options.targets - 1),
        cloudOnly: kopsRuns % 2 === 1,
        sync: id(),
      });
      kopsRuns += 1;
      planned += 1;
      nextKops += kopsEvery;
      continue;
    }
    if (options.events >= 20 && planned >= nextPlaced) {
      const first = rollout.int(0, 2);
      const surgeCluster = options.targets > 1 ? (DRAINABLE + rollout.int(1, options.targets - 1)) % options.targets : DRAINABLE;
      steps.push({ gapMs: rollout.int(0, 8), kind: 'drain', cluster: DRAINABLE, sync: id(), inject: id(), restore: id() });
      steps.push({
        gapMs: rollout.int(0, 8),
        kind: 'surge',
        cluster: surgeCluster,
        slots: [first, (first + rollout.int(1, 2)) % 3],
        sync: id(),
        inject: id(),
      });
      planned += 5;
      steps.push({ gapMs: gap(), kind: 'fault', fault: { type: 'lb_stuck', cluster: cluster(), forMs: prng.int(7_000, 8_000), id: id() } });
      steps.push({ gapMs: gap(), kind: 'fault', fault: { type: 'crash', cluster: cluster(), id: id(), times: 4 } });
      planned += 2;
      nextPlaced += placedEvery;
      continue;
    }
    if (options.events >= 20 && planned >= nextHandoff) {
      steps.push({ gapMs: gap(), kind: 'fault', fault: { type: 'handoff_failure', body: invalidBody(id()) } });
      planned += 1;
      nextHandoff += handoffEvery;
      continue;
    }
    const kind = prng.weighted(STEP_WEIGHTS);
    const gapMs = gap();
    switch (kind) {
      case 'inject':
        steps.push({
          gapMs,
          kind,
          id: id(),
          cluster: cluster(),
          source: prng.pick(INJECTABLE_SOURCES),
          dryRun: prng.chance(0.05),
        });
        planned += 1;
        break;
      case 'send':
      case 'duplicate':
        steps.push({ gapMs, kind, id: id(), cluster: cluster() });
        planned += 1;
        break;
      case 'reorder':
        steps.push({ gapMs, kind, earlier: id(), later: id(), retried: id(), cluster: cluster() });
        planned += 3;
        break;
      case 'burst': {
        const ids = Array.from({ length: prng.int(3, 6) }, id);
        steps.push({ gapMs, kind, ids, cluster: cluster() });
        planned += ids.length;
        break;
      }
      case 'sweep':
        steps.push({ gapMs, kind });
        planned += options.targets;
        break;
      case 'invalid':
        steps.push({ gapMs, kind, body: invalidBody(id()) });
        planned += 1;
        break;
      case 'unknown_target':
        steps.push({ gapMs, kind, id: id() });
        planned += 1;
        break;
      case 'replace': {
        const inject = prng.chance(0.8) ? id() : undefined;
        steps.push({ gapMs, kind, cluster: cluster(), slot: prng.int(0, 2), ...(inject && { inject }) });
        if (inject) planned += 1;
        break;
      }
      case 'replace_two': {
        const first = prng.int(0, 2);
        const inject = prng.chance(0.8) ? id() : undefined;
        steps.push({ gapMs, kind, cluster: cluster(), slots: [first, (first + prng.int(1, 2)) % 3], ...(inject && { inject }) });
        if (inject) planned += 1;
        break;
      }
      case 'server_change': {
        const inject = prng.chance(0.6) ? id() : undefined;
        steps.push({
          gapMs,
          kind,
          cluster: cluster(),
          slot: prng.int(0, 2),
          change: prng.weighted(SERVER_CHANGES),
          ...(inject && { inject }),
        });
        if (inject) planned += 1;
        break;
      }
      case 'hostile_ips':
        steps.push({ gapMs, kind, id: id(), cluster: cluster(), ips: prng.pick(['other_cluster', 'worker', 'foreign'] as const) });
        planned += 1;
        break;
      case 'hostile_fields':
        // Refused at the edge: no event is produced, so it does not count towards `events`.
        steps.push({
          gapMs,
          kind,
          id: id(),
          cluster: cluster(),
          field: prng.pick(['attempt', 'notBefore', 'source', 'loopback'] as const),
        });
        break;
      case 'fault':
        steps.push({ gapMs, kind, fault: drawFault(prng, cluster) });
        break;
    }
  }
  if (filterState !== 'all') steps.push({ gapMs: 0, kind: 'fault', fault: { type: 'tags_filter', filter: 'all' } });
  steps.push({ gapMs: 0, kind: 'settle', ids: Array.from({ length: options.targets }, id) });
  planned += options.targets;
  const hash = createHash('sha256').update(JSON.stringify(steps)).digest('hex').slice(0, 12);
  return { steps, plannedEvents: planned, hash };
}

function drawFault(prng: Prng, cluster: () => number): FaultStep {
  const type = prng.weighted(FAULT_WEIGHTS);
  switch (type) {
    case 'transient_409':
      return { type, operation: prng.pick(WRITE_OPERATIONS), count: prng.int(1, 3) };
    case 'lb_busy':
      return { type, cluster: cluster(), status: prng.pick(['pending', 'migrating'] as const), forMs: prng.int(200, 1_500) };
    case 'rate_limited':
      return { type, operation: prng.pick(ANY_OPERATION), resetSeconds: 1 };
    case 'server_error':
      return { type, operation: prng.pick(ANY_OPERATION), status: prng.pick([500, 502, 503] as const), count: prng.int(1, 3) };
    case 'connection_reset':
      return { type, operation: prng.pick(ANY_OPERATION), count: prng.int(1, 2) };
    case 'hang':
      return { type, operation: prng.pick(ANY_OPERATION) };
    case 'slow_commit':
      // A write that commits after the client gave up; on CreateBackend it leaves a second backend, which the
      // next reconcile removes (test/chaos/ghost-create.test.ts).
      return { type, operation: prng.pick(WRITE_OPERATIONS), latencyMs: prng.int(600, 900) };
    case 'backend_deleted':
      return { type, cluster: cluster() };
    case 'permanent_403':
      return { type, operation: 'SetBackendServers' };
    case 'health_failure':
      return {
        type,
        cluster: cluster(),
        slot: prng.int(0, 2),
        status: prng.chance(0.8) ? 'failed' : 'unknown',
        forMs: prng.int(200, 1_500),
      };
    case 'handoff_failure':
    case 'lb_stuck':
    case 'crash':
    case 'tags_filter':
      throw new Error(`${type} faults are placed, not drawn`);
  }
}
