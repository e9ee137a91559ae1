/**
 * The reconciler under every setting of every emulator switch for what no recording shows (docs/emulator.md).
 * Each scenario runs once per setting, through the real path: an event on the local SQS-protocol queue, the
 * reconcile handler (real SDK -> emulator), its re-enqueues and dead letters, until the queue is empty. The same
 * guarantees are checked under each setting:
 * - no lost event: the event ends in exactly one final answer (applied / noop, or dead_lettered with its record
 *   on the dead-letter queue), and the reconcile queue is empty;
 * - no bad write: every pool the emulator's history shows holds only control-plane addresses, never none, no
 *   backend a frontend used was deleted, and one backend carries the managed name at the end;
 * - the right outcome for the scenario (the same under both settings, unless the scenario says why not).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  BEHAVIOUR_CHOICES,
  DEFAULT_BEHAVIOURS,
  faultBodies,
  type EmulatorBehaviours,
  type EmulatorHandle,
  type EmulatorSeed,
  type SwitchName,
} from '../../../emulator';
import { provisionQueues } from '../../../cli/adapters/queue-provisioning';
import { createScalewayGateway } from '../../../shared/adapters/scaleway';
import { RATE_LIMIT_FLOOR_MS } from '../../../shared/core/backoff';
import type { DeadLetterRecord } from '../../../shared/handlers/dead-letter';
import { handleReconcileMessage, type ReconcileAnswerBody } from '../../../shared/handlers/reconcile-message';
import { runtimeConfigFromEnv } from '../../../shared/platform/config';
import { createLogger } from '../../../shared/platform/log';
import { parseTargets, type Target } from '../../../shared/schemas/target';
import {
  DEMO_CLUSTER,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  DEMO_LB_ID,
  demoSeed,
  FAKE_ACCESS_KEY,
  FAKE_SECRET_KEY,
  neighbourServers,
} from '../../support/world';
import { useScenarioStack } from '../../support/scenario-stack';

const BACKEND = 'lb-backend-https';
const OLD = '00000000-0000-4000-8000-0000000000a1';
const NEW = '00000000-0000-4000-8000-0000000000a2';
const REPLACEMENT_IP = '51.15.100.31';
const CONTROL_PLANE_TAGS = ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'];
/** The private NICs of the demo control planes (emulator/seeds/demo.json). */
const DEMO_CONTROL_PLANE_NIC_IDS = [
  '17fc695a-07a0-4a6e-8822-e8f36c031199',
  'b74d0fb1-32e7-4629-8fad-c1a606cb0fb3',
  '47378190-96da-4dac-b2ff-5d2a386ecbe0',
];
/** The demo control planes' routed IPv6, when a scenario gives them one (SLAAC addresses, as recorded). */
const CONTROL_PLANE_IPV6 = ['2001:bc8:710:4a11:dc00:ff:fe00:11', '2001:bc8:710:4a12:dc00:ff:fe00:12', '2001:bc8:710:4a13:dc00:ff:fe00:13'];
/** Every address a pool may ever hold in these scenarios: the control planes, before and after a replacement. */
const ALLOWED = new Set([...DEMO_CONTROL_PLANE_IPS, REPLACEMENT_IP, '10.0.0.11', '10.0.0.12', '10.0.0.13', ...CONTROL_PLANE_IPV6]);

type Final = 'applied' | 'noop' | 'dead_lettered';

interface Run {
  answers: ReconcileAnswerBody[];
  deadLetters: DeadLetterRecord[];
  /** Every wait the handler asked for (holds until notBefore, readiness polls). */
  sleeps: number[];
}

interface Scenario {
  name: string;
  switch: SwitchName;
  target?: Target;
  /** The world before the event (the demo seed converged by default). */
  seed?: () => EmulatorSeed;
  /** Changes after the seed: a server replaced, faults armed... */
  arrange: (emulator: EmulatorHandle) => void;
  /** Called after each answer: the world moving on between deliveries (an LB done migrating...). */
  afterAnswer?: (emulator: EmulatorHandle, answer: ReconcileAnswerBody, index: number) => void;
  /** The final answer and the pool at the end, per setting (`pool: null`: the backend does not exist at the end). */
  expect: (setting: unknown) => { final: Final; pool: string[] | null; code?: string; backendId?: string };
  /** Extra checks on the run. */
  check?: (run: Run, emulator: EmulatorHandle, setting: unknown) => void;
  /** The one setting the scenario can hold under, when not both (the reason is in the scenario and the docs). */
  onlyUnder?: unknown;
}

// ---- the world ----

function convergedSeed(extra: Partial<Record<string, unknown>> = {}): EmulatorSeed {
  const seed = demoSeed();
  const lb = seed.lbs?.[0];
  if (!lb) throw new Error('demo seed has no LB');
  lb.backends = [
    {
      id: OLD,
      name: BACKEND,
      forward_port: 443,
      pool: [...DEMO_CONTROL_PLANE_IPS],
      created_at: '2026-01-01T00:00:00Z',
      health_check: { port: 443, check_delay: 3000, check_timeout: 1000, check_max_retries: 5, tcp_config: {} },
      ...extra,
    },
  ];
  return seed;
}

const replaceControlPlane = (emulator: EmulatorHandle) =>
  emulator.replaceServer(DEMO_CP0_ID, {
    name: 'control-plane-fr-par-1-0b',
    zone: 'fr-par-1',
    publicIps: [REPLACEMENT_IP],
    tags: CONTROL_PLANE_TAGS,
  });

const REPLACED_POOL = ['51.15.100.12', '51.15.100.13', REPLACEMENT_IP];
const demoTarget = (patch: Record<string, unknown> = {}): Target => {
  const [base] = parseTargets([{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }]);
  return parseTargets([{ ...base, ...patch }])[0] as Target;
};

// ---- the scenarios ----

/** The demo's control planes dual-stack: each its routed IPv4 and a routed IPv6. */
const dualStack = (seed: EmulatorSeed): EmulatorSeed => ({
  ...seed,
  servers: seed.servers?.map((server) => {
    const at = DEMO_CONTROL_PLANE_IPS.indexOf(server.publicIps?.[0] ?? '');
    return at < 0 ? server : { ...server, publicIps: [...(server.publicIps ?? []), CONTROL_PLANE_IPV6[at] as string] };
  }),
});
const DUAL_POOL = [...DEMO_CONTROL_PLANE_IPS, ...CONTROL_PLANE_IPV6];
/** A pool the LB refused for its IPv6: one answer, a permanent error naming the IPv6 members, no retry loop. */
const refusedOnce = (run: Run, emulator: EmulatorHandle, setting: unknown) => {
  const refusals = emulator.calls().filter((c) => c.status === 400);
  if (setting === 'accept') {
    expect(refusals).toEqual([]);
    return;
  }
  expect(run.answers).toHaveLength(1);
  expect(refusals).toHaveLength(1);
  expect(run.answers[0]?.error?.message).toContain(`refused the IPv6 member(s) ${CONTROL_PLANE_IPV6.join(', ')}`);
  expect(run.deadLetters[0]).toMatchObject({ reason: 'permanent_error', error: { code: 'ipv6_pool_refused' } });
};

/** The seed with the demo cluster's neighbours in its zone (test/support/world.ts). */
const withNeighbours = (seed: EmulatorSeed): EmulatorSeed => ({ ...seed, servers: [...(seed.servers ?? []), ...neighbourServers()] });
const withoutBackends = (seed: EmulatorSeed): EmulatorSeed => ({ ...seed, lbs: seed.lbs?.map((lb) => ({ ...lb, backends: [] })) });

/** The servers a ListServers for the demo control-plane tags returns that are not the demo's, under each filter. */
const FOREIGN_SERVERS: Record<string, string[]> = {
  all: [],
  any: [
    'nodes-fr-par-1-0',
    'nodes-fr-par-1-1',
    ...[0, 1, 2].flatMap((i) => [`control-plane-${i}.staging.k8s.local`, `control-plane-${i}.demo.k8s.local2`]),
  ],
  prefix: [0, 1, 2].map((i) => `control-plane-${i}.demo.k8s.local2`),
};

/** Every reconcile names every foreign server the API returned in one discovery_filter_mismatch warning; none under `all`. */
const mismatchReported = (run: Run, _emulator: EmulatorHandle, setting: unknown) => {
  const foreign = FOREIGN_SERVERS[String(setting)] ?? [];
  for (const answer of run.answers) {
    const reported = (answer.warnings ?? []).filter((w) => w.startsWith('[discovery_filter_mismatch] '));
    expect(reported).toHaveLength(foreign.length === 0 ? 0 : 1);
    for (const name of foreign) expect(reported[0], name).toContain(`server ${name} (`);
    expect(reported.join('')).not.toMatch(/server control-plane-fr-par-1-/);
  }
};

const lbTurns = (status: 'pending' | 'locked' | 'stopped' | 'error') => (emulator: EmulatorHandle) => {
  replaceControlPlane(emulator);
  emulator.addFault({ operation: 'SetBackendServers', before: { lbStatus: status } });
};
const lbIs = (status: 'migrating' | 'locked' | 'stopped') => (emulator: EmulatorHandle) => {
  replaceControlPlane(emulator);
  emulator.setLbStatus(DEMO_LB_ID, status);
};
/** The LB finishes what it was doing after the first answer. */
const readyAfterFirst = (emulator: EmulatorHandle, _answer: ReconcileAnswerBody, index: number) => {
  if (index === 0) emulator.setLbStatus(DEMO_LB_ID, 'ready');
};
const noWrite = (_run: Run, emulator: EmulatorHandle) => expect(emulator.history()).toEqual([]);

const scenarios: Scenario[] = [
  {
    name: 'the LB turns pending just as the pool is written, then settles',
    switch: 'writesWhileTransient',
    arrange: lbTurns('pending'),
    afterAnswer: readyAfterFirst,
    // refuse: 409, retried, written on the next attempt. accept: written at once; the wait for "applied" runs
    // out while the LB stays pending, so it is retried, and the next attempt finds the pool in sync.
    expect: (setting) => ({ final: setting === 'refuse' ? 'applied' : 'noop', pool: REPLACED_POOL }),
    check: (run) => expect(run.answers[0]).toMatchObject({ outcome: 'retry_scheduled' }),
  },
  {
    name: 'the LB is migrating when the event is read: nothing is written until it is ready',
    switch: 'writesWhileTransient',
    arrange: lbIs('migrating'),
    afterAnswer: (emulator, answer, index) => {
      if (index === 0) expect(emulator.history()).toEqual([]); // the reconciler does not rely on a 409
      readyAfterFirst(emulator, answer, index);
    },
    expect: () => ({ final: 'applied', pool: REPLACED_POOL }),
  },
  {
    name: 'the LB turns locked just as the pool is written',
    switch: 'writesWhileLocked',
    arrange: lbTurns('locked'),
    // locked: 423, permanent. conflict: 409, retried, and the next read finds the LB locked: permanent too.
    expect: (setting) => ({
      final: 'dead_lettered',
      pool: DEMO_CONTROL_PLANE_IPS,
      code: setting === 'locked' ? 'resource_locked' : 'lb_not_ready',
    }),
    check: noWrite,
  },
  {
    name: 'the LB is locked when the event is read',
    switch: 'writesWhileLocked',
    arrange: lbIs('locked'),
    expect: () => ({ final: 'dead_lettered', pool: DEMO_CONTROL_PLANE_IPS, code: 'lb_not_ready' }),
    check: noWrite,
  },
  {
    name: 'the LB turns stopped just as the pool is written',
    switch: 'writesWhileStopped',
    arrange: lbTurns('stopped'),
    // accept: the right pool is written, and the wait for "applied" sees a stopped LB: permanent. refuse: 412.
    expect: (setting) => ({
      final: 'dead_lettered',
      pool: setting === 'accept' ? REPLACED_POOL : DEMO_CONTROL_PLANE_IPS,
      code: setting === 'accept' ? 'lb_not_ready' : 'precondition_failed',
    }),
    check: (run) => expect(run.answers).toHaveLength(1), // no retry loop on an LB that will not come back by itself
  },
  {
    name: 'the LB is stopped when the event is read: no write even where the API would accept one',
    switch: 'writesWhileStopped',
    arrange: lbIs('stopped'),
    expect: () => ({ final: 'dead_lettered', pool: DEMO_CONTROL_PLANE_IPS, code: 'lb_not_ready' }),
    check: noWrite,
  },
  {
    name: 'duplicates: the one a frontend uses is kept, the unused old one with our settings is deleted',
    switch: 'deleteBackendInUse',
    seed: () => {
      const seed = convergedSeed();
      const lb = seed.lbs![0]!;
      lb.backends = [
        { id: OLD, name: BACKEND, forward_port: 443, pool: ['51.15.100.11'], created_at: '2026-01-01T00:00:00Z' },
        { id: NEW, name: BACKEND, forward_port: 443, pool: ['51.15.100.12'], created_at: '2026-01-02T00:00:00Z' },
      ];
      lb.frontends = [{ name: 'lb-frontend-https', inbound_port: 443, backend: NEW }];
      return seed;
    },
    arrange: () => undefined,
    expect: () => ({ final: 'applied', pool: DEMO_CONTROL_PLANE_IPS, backendId: NEW }),
    check: (_run, emulator) => {
      expect(
        emulator
          .history()
          .filter((w) => w.deleted)
          .map((w) => w.backendId),
      ).toEqual([OLD]);
      expect(backendsNamed(emulator).map((b) => b.id)).toEqual([NEW]);
    },
  },
  {
    name: 'duplicates: a frontend is attached to the doomed duplicate just as it is deleted (refuse: left alone)',
    switch: 'deleteBackendInUse',
    seed: () => {
      const seed = convergedSeed();
      seed.lbs![0]!.backends!.push({
        id: NEW,
        name: BACKEND,
        forward_port: 443,
        pool: ['51.15.100.12'],
        created_at: '2026-01-02T00:00:00Z',
      });
      return seed;
    },
    arrange: (emulator) =>
      emulator.addFault({
        operation: 'DeleteBackend',
        pathIncludes: NEW,
        before: { attachFrontend: { name: 'late', inbound_port: 6443 } },
      }),
    // Only under `refuse`: under `cascade` the API itself would take the frontend with the backend, a window no
    // client can close (docs/emulator.md); that setting runs the scenario above.
    onlyUnder: 'refuse',
    expect: () => ({ final: 'applied', pool: DEMO_CONTROL_PLANE_IPS, backendId: OLD }),
    check: (run, emulator) => {
      expect(run.answers.at(-1)?.warnings?.join('\n')).toMatch(/left duplicate backend .* alone: the API refused to delete it/);
      expect(backendsNamed(emulator)).toHaveLength(2);
    },
  },
  {
    name: 'two control planes report the same address: it is written once',
    switch: 'duplicateServerIps',
    arrange: (emulator) => {
      replaceControlPlane(emulator);
      emulator.upsertServer({ name: 'control-plane-fr-par-1-3', zone: 'fr-par-1', publicIps: [REPLACEMENT_IP], tags: CONTROL_PLANE_TAGS });
    },
    expect: () => ({ final: 'applied', pool: REPLACED_POOL }),
    check: (_run, emulator) => expect(emulator.calls().filter((c) => c.status === 400)).toEqual([]),
  },
  {
    name: 'health-check drift: UpdateHealthCheck, then the wait for the instances',
    switch: 'pendingAfterHealthCheck',
    target: demoTarget({ backends: [{ name: BACKEND, forwardPort: 443, healthCheck: { checkDelayMs: 5000 } }] }),
    arrange: () => undefined,
    expect: () => ({ final: 'applied', pool: DEMO_CONTROL_PLANE_IPS }),
    check: (_run, emulator) =>
      expect(
        emulator
          .calls()
          .filter((c) => c.write)
          .map((c) => c.operation),
      ).toEqual(['UpdateHealthCheck']),
  },
  {
    name: 'backend fields the target names: one UpdateBackend, and what it leaves unnamed (values, nulls) is kept',
    switch: 'updateBackendLeftOut',
    target: demoTarget({ backends: [{ name: BACKEND, forwardPort: 443, onMarkedDownAction: 'shutdown_sessions', maxRetries: 6 }] }),
    seed: () => convergedSeed({ timeout_server: 60_000, max_connections: 42, timeout_queue: '4s' }),
    arrange: () => undefined,
    expect: () => ({ final: 'applied', pool: DEMO_CONTROL_PLANE_IPS }),
    check: (_run, emulator) => {
      expect(emulator.history().map((w) => [w.operation, w.changed])).toEqual([
        ['UpdateBackend', ['on_marked_down_action', 'max_retries']],
      ]);
      const state = emulator.dumpState() as { lbs: { backends: Record<string, unknown>[] }[] };
      expect(state.lbs[0]?.backends[0]).toMatchObject({
        on_marked_down_action: 'shutdown_sessions',
        max_retries: 6,
        timeout_server: 60_000,
        max_connections: 42,
        timeout_queue: '4s',
        redispatch_attempt_count: null,
      });
    },
  },
  {
    name: 'a replaced server, public addresses',
    switch: 'strictBackendIps',
    arrange: replaceControlPlane,
    expect: () => ({ final: 'applied', pool: REPLACED_POOL }),
  },
  {
    name: "a zone shared with other clusters: a control plane replaced, only this cluster's control planes are written",
    switch: 'serverTagsFilter',
    seed: () => withNeighbours(convergedSeed()),
    arrange: replaceControlPlane,
    expect: () => ({ final: 'applied', pool: REPLACED_POOL }),
    check: mismatchReported,
  },
  {
    name: "a zone shared with other clusters: the backend is created with this cluster's control planes only",
    switch: 'serverTagsFilter',
    seed: () => withoutBackends(withNeighbours(demoSeed())),
    arrange: () => undefined,
    expect: () => ({ final: 'applied', pool: DEMO_CONTROL_PLANE_IPS }),
    check: (run, emulator, setting) => {
      mismatchReported(run, emulator, setting);
      expect(emulator.history().map((w) => w.operation)).toEqual(['CreateBackend']);
    },
  },
  {
    name: "a zone shared with other clusters, ipam-private: only the NICs of this cluster's control planes are asked of IPAM",
    switch: 'serverTagsFilter',
    target: demoTarget({ servers: { tags: CONTROL_PLANE_TAGS, ipSource: 'ipam-private' } }),
    seed: () => withNeighbours(convergedSeed()),
    arrange: () => undefined,
    expect: () => ({ final: 'applied', pool: ['10.0.0.11', '10.0.0.12', '10.0.0.13'] }),
    check: (run, emulator, setting) => {
      mismatchReported(run, emulator, setting);
      const asked = emulator
        .calls()
        .filter((c) => c.operation === 'ListIPs')
        .map((c) => new URLSearchParams(c.query).getAll('resource_ids').flatMap((ids) => ids.split(',')));
      expect(asked.length).toBeGreaterThan(0);
      for (const ids of asked) expect(ids.sort()).toEqual([...DEMO_CONTROL_PLANE_NIC_IDS].sort());
    },
  },
  {
    name: 'ipam-private addresses',
    switch: 'strictBackendIps',
    target: demoTarget({ servers: { tags: CONTROL_PLANE_TAGS, ipSource: 'ipam-private' } }),
    arrange: () => undefined,
    expect: () => ({ final: 'applied', pool: ['10.0.0.11', '10.0.0.12', '10.0.0.13'] }),
  },
  {
    name: 'a kOps replacement, seen by one LB instance or two (that agree, or not until the first answer)',
    switch: 'lbInstanceReports',
    arrange: replaceControlPlane,
    // The instances come to agree after the first answer.
    afterAnswer: (emulator, _answer, index) => {
      if (index === 0 && emulator.behaviours().lbInstanceReports === 'two_disagreeing')
        emulator.setBehaviours({ lbInstanceReports: 'two' });
    },
    expect: () => ({ final: 'applied', pool: REPLACED_POOL }),
    check: (run, emulator, setting) => {
      const pools = emulator
        .history()
        .filter((w) => w.backendName === BACKEND)
        .map((w) => [...w.pool].sort());
      if (setting !== 'two_disagreeing') {
        // The old member fails on every instance: it leaves with the write that adds the new one.
        expect(pools).toEqual([[...REPLACED_POOL].sort()]);
        return;
      }
      // The old member failed/passed (may serve), the new one passed/unknown (not ready): the new one is added
      // first and the old one stays until the instances agree.
      expect(run.answers[0]).toMatchObject({ outcome: 'retry_scheduled', error: { code: 'removal_deferred' } });
      expect(pools).toEqual([[...DEMO_CONTROL_PLANE_IPS, REPLACEMENT_IP].sort(), [...REPLACED_POOL].sort()]);
    },
  },
  {
    name: 'dual-stack control planes, public-dual: their IPv6 join the pool (accept), or the LB refuses them once and for all (refuse)',
    switch: 'ipv6PoolMembers',
    target: demoTarget({ servers: { tags: CONTROL_PLANE_TAGS, ipSource: 'public-dual' } }),
    seed: () => dualStack(convergedSeed()),
    arrange: () => undefined,
    expect: (setting) =>
      setting === 'accept'
        ? { final: 'applied', pool: DUAL_POOL }
        : { final: 'dead_lettered', pool: DEMO_CONTROL_PLANE_IPS, code: 'ipv6_pool_refused' },
    check: refusedOnce,
  },
  {
    name: 'public-ipv6, no backend yet: created with the IPv6 pool (accept), or the create is refused and nothing is made (refuse)',
    switch: 'ipv6PoolMembers',
    target: demoTarget({ servers: { tags: CONTROL_PLANE_TAGS, ipSource: 'public-ipv6' } }),
    seed: () => withoutBackends(dualStack(demoSeed())),
    arrange: () => undefined,
    expect: (setting) =>
      setting === 'accept'
        ? { final: 'applied', pool: CONTROL_PLANE_IPV6 }
        : { final: 'dead_lettered', pool: null, code: 'ipv6_pool_refused' },
    check: (run, emulator, setting) => {
      refusedOnce(run, emulator, setting);
      expect(
        emulator
          .calls()
          .filter((c) => c.write)
          .map((c) => c.operation),
      ).toEqual(['CreateBackend']);
    },
  },
  {
    name: "dual-stack control planes, kOps' own rule (IPv4): a replacement writes no IPv6 under either setting",
    switch: 'ipv6PoolMembers',
    seed: () => dualStack(convergedSeed()),
    arrange: replaceControlPlane,
    expect: () => ({ final: 'applied', pool: REPLACED_POOL }),
    check: (_run, emulator) => {
      for (const write of emulator.history()) expect(write.pool.filter((ip) => ip.includes(':'))).toEqual([]);
    },
  },
];

// ---- the harness: the queue played as the trigger plays it ----

const stack = useScenarioStack({ instancePendingMs: 60 });

function backendsNamed(handle: EmulatorHandle): { id: string; pool: string[] }[] {
  const state = handle.dumpState() as { lbs: { backends: { id: string; name: string; pool: string[] }[] }[] };
  return state.lbs.flatMap((lb) => lb.backends).filter((b) => b.name === BACKEND);
}

async function drain(queueUrl: string): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const batch = await stack.events.receive(queueUrl, { maxMessages: 10, waitSeconds: 0 });
    if (batch.length === 0) return bodies;
    for (const message of batch) {
      bodies.push(message.body);
      await stack.events.delete(queueUrl, message.receiptHandle);
    }
  }
}

async function play(scenario: Scenario): Promise<Run> {
  const suffix = randomUUID().slice(0, 8);
  const queues = await provisionQueues(stack.events, {
    reconcileQueueName: `assumed-${suffix}`,
    deadLetterQueueName: `assumed-dlq-${suffix}`,
    functionTimeoutSeconds: 5,
  });
  const target = scenario.target ?? demoTarget();
  const sleeps: number[] = [];
  const runtime = runtimeConfigFromEnv({
    LBSYNC_RETRY_BASE_MS: '50',
    LBSYNC_RETRY_CAP_MS: '400',
    // Real time (the holds below last at most 20 ms): a dozen deliveries or so before the horizon.
    LBSYNC_RETRY_HORIZON_MS: '1200',
    LBSYNC_MAX_HOLD_MS: '60000',
    LBSYNC_WAIT_BUDGET_MS: '400',
    LBSYNC_TRANSIENT_WAIT_MS: '0',
    LBSYNC_DUPLICATE_GRACE_MS: '0',
  });
  const deps = {
    targets: new Map([[target.name, target]]),
    gateway: () =>
      createScalewayGateway({
        accessKey: FAKE_ACCESS_KEY,
        secretKey: FAKE_SECRET_KEY,
        apiUrl: stack.emulator.url,
        defaultZone: 'fr-par-1',
        requestTimeoutMs: 5_000,
      }),
    queues: { client: () => stack.events, reconcileQueueUrl: queues.reconcileQueueUrl, deadLetterQueueUrl: queues.deadLetterQueueUrl },
    runtime,
    logger: createLogger({ service: 'assumed-behaviours', level: 'silent' }),
    // Holds and polls are recorded at their full length but last at most 20 ms: the world only moves between
    // deliveries (afterAnswer), so nothing here races a clock.
    clock: {
      now: () => Date.now(),
      sleep: (ms: number) => {
        sleeps.push(ms);
        return new Promise<void>((resolve) => setTimeout(resolve, Math.min(ms, 20)));
      },
    },
  };
  const eventId = `evt-${suffix}`;
  await stack.events.send(
    queues.reconcileQueueUrl,
    JSON.stringify({ version: 1, id: eventId, source: 'manual', target: target.name, occurredAt: new Date().toISOString() }),
  );
  const answers: ReconcileAnswerBody[] = [];
  for (let delivery = 0; delivery < 60; delivery += 1) {
    const [message] = await stack.events.receive(queues.reconcileQueueUrl, {
      maxMessages: 1,
      waitSeconds: 0,
      visibilityTimeoutSeconds: 30,
    });
    if (!message) break;
    const response = await handleReconcileMessage(message.body, deps);
    expect(response.statusCode, response.body).toBe(200); // a hand-off never failed here: no redelivery needed
    await stack.events.delete(queues.reconcileQueueUrl, message.receiptHandle);
    const answer = JSON.parse(response.body) as ReconcileAnswerBody;
    expect(answer.eventId).toBe(eventId);
    answers.push(answer);
    scenario.afterAnswer?.(stack.emulator, answer, answers.length - 1);
  }
  const left = await drain(queues.reconcileQueueUrl);
  expect(left, 'the reconcile queue is empty at the end').toEqual([]);
  const deadLetters = (await drain(queues.deadLetterQueueUrl)).map((body) => JSON.parse(body) as DeadLetterRecord);
  return { answers, deadLetters, sleeps };
}

function checkGuarantees(scenario: Scenario, setting: unknown, run: Run): void {
  const wanted = scenario.expect(setting);
  // No lost event: one final answer, the last; a dead letter exactly when it says so.
  const finals = run.answers.filter((a) => a.outcome !== 'retry_scheduled');
  expect(finals.map((a) => a.outcome)).toEqual([wanted.final]);
  expect(run.answers.at(-1)).toBe(finals[0]);
  expect(run.deadLetters.map((r) => r.eventId)).toEqual(wanted.final === 'dead_lettered' ? [run.answers[0]?.eventId] : []);
  if (wanted.code) expect(finals[0]?.error?.code).toBe(wanted.code);
  // No bad write.
  for (const write of stack.emulator.history().filter((w) => w.backendName === BACKEND)) {
    expect(write.frontendsDeleted, `${write.operation} deleted a frontend`).toBeUndefined();
    if (write.deleted) continue;
    expect(write.pool.length, `${write.operation} wrote an empty pool`).toBeGreaterThan(0);
    for (const ip of write.pool) expect(ALLOWED.has(ip), `${write.operation} wrote ${ip}`).toBe(true);
    expect(new Set(write.pool).size).toBe(write.pool.length);
  }
  // The right outcome.
  const backends = backendsNamed(stack.emulator);
  if (wanted.pool === null) {
    expect(backends).toEqual([]);
    return;
  }
  if (!wanted.backendId) expect(backends).toHaveLength(1);
  const used = backends.find((b) => b.id === (wanted.backendId ?? backends[0]?.id));
  expect([...(used?.pool ?? [])].sort()).toEqual([...wanted.pool].sort());
}

for (const switchName of Object.keys(BEHAVIOUR_CHOICES) as SwitchName[]) {
  const covering = scenarios.filter((s) => s.switch === switchName);
  if (covering.length === 0) continue;
  for (const setting of BEHAVIOUR_CHOICES[switchName]) {
    describe(`${switchName}: ${JSON.stringify(setting)}`, () => {
      for (const scenario of covering.filter((s) => s.onlyUnder === undefined || s.onlyUnder === setting)) {
        it(scenario.name, async () => {
          stack.emulator.setBehaviours({
            ...DEFAULT_BEHAVIOURS,
            instancePendingMs: 60,
            [switchName]: setting,
          } as Partial<EmulatorBehaviours>);
          stack.emulator.loadSeed((scenario.seed ?? convergedSeed)());
          stack.emulator.clearFaults();
          stack.emulator.resetCalls();
          stack.emulator.resetHistory();
          scenario.arrange(stack.emulator);
          const run = await play(scenario);
          checkGuarantees(scenario, setting, run);
          scenario.check?.(run, stack.emulator, setting);
        });
      }
    });
  }
}

describe('every switch that changes what the reconciler sees is covered here', () => {
  it('each switch has a scenario', () => {
    const covered = new Set(scenarios.map((s) => s.switch));
    expect((Object.keys(BEHAVIOUR_CHOICES) as SwitchName[]).filter((name) => !covered.has(name))).toEqual([]);
  });
});

describe("the gateway's real 429 (empty body, no reset time)", () => {
  it('on the pool write: retried no sooner than 1 s, then written; no lost event, no bad write', async () => {
    stack.emulator.setBehaviours({ ...DEFAULT_BEHAVIOURS, instancePendingMs: 60 });
    stack.emulator.loadSeed(convergedSeed());
    stack.emulator.clearFaults();
    stack.emulator.resetHistory();
    replaceControlPlane(stack.emulator);
    stack.emulator.addFault({ operation: 'SetBackendServers', ...faultBodies.rateLimited() });
    const scenario: Scenario = {
      name: '429',
      switch: 'writesWhileTransient',
      arrange: () => undefined,
      expect: () => ({ final: 'applied', pool: REPLACED_POOL }),
    };
    const run = await play(scenario);
    checkGuarantees(scenario, 'refuse', run);
    expect(run.answers[0]).toMatchObject({ outcome: 'retry_scheduled', error: { code: 'rate_limited' } });
    expect(run.answers[0]?.retryInMs).toBeGreaterThanOrEqual(RATE_LIMIT_FLOOR_MS);
    expect(run.sleeps[0]).toBeGreaterThan(RATE_LIMIT_FLOOR_MS - 250); // the hold until notBefore, less the time since
  });

  it('while waiting for the write to apply: the next poll waits at least 1 s', async () => {
    stack.emulator.setBehaviours({ ...DEFAULT_BEHAVIOURS, instancePendingMs: 60 });
    stack.emulator.loadSeed(convergedSeed());
    stack.emulator.clearFaults();
    stack.emulator.resetHistory();
    stack.emulator.resetCalls();
    replaceControlPlane(stack.emulator);
    stack.emulator.addFault({ operation: 'GetLb', status: 429 });
    const { reconcileTarget } = await import('../../../shared/reconcile/reconcile-target');
    const sleeps: number[] = [];
    const result = await reconcileTarget(
      demoTarget(),
      {},
      {
        gateway: createScalewayGateway({
          accessKey: FAKE_ACCESS_KEY,
          secretKey: FAKE_SECRET_KEY,
          apiUrl: stack.emulator.url,
          defaultZone: 'fr-par-1',
        }),
        waitBudgetMs: 5_000,
      },
      {
        clock: {
          now: () => Date.now(),
          sleep: (ms) => {
            sleeps.push(ms);
            return new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20)));
          },
        },
      },
    );
    expect(result.status).toBe('applied');
    const polls = stack.emulator
      .calls()
      .filter((c) => c.operation === 'GetLb')
      .map((c) => c.status);
    expect(polls[0]).toBe(429);
    expect(polls.slice(1).every((status) => status === 200)).toBe(true);
    expect(sleeps[0]).toBeGreaterThanOrEqual(RATE_LIMIT_FLOOR_MS);
  });
});
