/**
 * The chaos schedule: every step, fault and gap drawn up front from one seeded PRNG, so the same seed
 * gives the same schedule whatever the timings of the run that plays it.
 */
import { createHash } from 'node:crypto';
import type { Prng } from './prng';

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
  | { type: 'permanent_403'; operation: string };

export type Step = { gapMs: number } & (
  | { kind: 'inject'; id: string; cluster: number; source: 'manual' | 'instance-replacement'; dryRun: boolean }
  | { kind: 'send'; id: string; cluster: number }
  | { kind: 'duplicate'; id: string; cluster: number }
  /** `later` is sent before `earlier`, and a retry copy (attempt 2, due soon) of `retried` before its attempt 0. */
  | { kind: 'reorder'; earlier: string; later: string; retried: string; cluster: number }
  | { kind: 'burst'; ids: string[]; cluster: number }
  | { kind: 'sweep' }
  | { kind: 'invalid'; body: string }
  | { kind: 'unknown_target'; id: string }
  | { kind: 'replace'; cluster: number; slot: number; inject?: string }
  | { kind: 'fault'; fault: FaultStep }
);

const STEP_WEIGHTS = {
  inject: 22,
  send: 12,
  duplicate: 6,
  reorder: 4,
  burst: 5,
  sweep: 2,
  invalid: 3,
  unknown_target: 2,
  replace: 12,
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
} as const;

export interface Schedule {
  steps: Step[];
  /** Event ids (and invalid bodies) the schedule produces, not counting sweeps' own ids. */
  plannedEvents: number;
  hash: string;
}

/** Draws steps until `events` events are planned (a sweep counts as one per target). */
export function buildSchedule(prng: Prng, options: { seed: number; events: number; targets: number }): Schedule {
  const steps: Step[] = [];
  let counter = 0;
  let planned = 0;
  const id = () => `chaos-${options.seed}-${(counter += 1)}`;
  const cluster = () => prng.int(0, options.targets - 1);
  const gap = () => (prng.chance(0.7) ? prng.int(0, 8) : prng.int(10, 60));
  // At least one hand-off failure in any run with room for it, about a third of the way in; more in long runs.
  const handoffEvery = Math.max(20, Math.floor(options.events / 3));
  let nextHandoff = Math.min(handoffEvery, Math.floor(options.events / 3));
  const invalidBody = (tag: string) =>
    prng.pick([
      `{"version":1,"id":"${tag}", oops`,
      JSON.stringify({ version: 1, id: tag, source: 'bogus', target: 'c0.k8s.local', occurredAt: new Date(0).toISOString() }),
      JSON.stringify({ version: 2, id: tag }),
      JSON.stringify({ version: 1, id: tag, source: 'manual', target: 'c0.k8s.local', occurredAt: 'yesterday', serverIps: ['999.1.1.1'] }),
      `not json at all ${tag}`,
    ]);

  while (planned < options.events) {
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
        steps.push({ gapMs, kind, id: id(), cluster: cluster(), source: prng.pick(['manual', 'instance-replacement'] as const), dryRun: prng.chance(0.05) });
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
      case 'fault':
        steps.push({ gapMs, kind, fault: drawFault(prng, cluster) });
        break;
    }
  }
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
    case 'handoff_failure':
      throw new Error('hand-off failures are placed, not drawn');
  }
}
