import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { faultBodies } from '../../../emulator';
import { describeAction } from '../../../shared/core/action-text';
import { reconcileTarget } from '../../../shared/reconcile/reconcile-target';
import type { Target } from '../../../shared/schemas/target';
import type { World } from '../../support/world';
import {
  DEMO_CLUSTER_TAG,
  DEMO_CONTROL_PLANE_IDS,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  DEMO_LB_ID,
  DEMO_WORKER_IPS,
  demoBackend,
  demoSeed,
  demoSeedWith,
  demoTarget,
  startWorld,
} from '../../support/world';

let world: World;
const fastSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 20)));
/** The real clock, its waits cut short. */
const fastClock = { clock: { now: () => Date.now(), sleep: fastSleep } };

async function reconcile(target: Target = demoTarget(), event: Parameters<typeof reconcileTarget>[1] = {}, requestTimeoutMs?: number) {
  return reconcileTarget(target, event, { gateway: world.gateway(requestTimeoutMs), waitBudgetMs: 3_000 }, fastClock);
}

async function converge(target: Target = demoTarget()) {
  const result = await reconcile(target);
  expect(result.error).toBeUndefined();
  world.emulator.resetCalls();
  // Let the instances' pending window pass, as the next event would find it.
  await new Promise((r) => setTimeout(r, 40));
}

beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.stop();
});

describe('reconcileTarget against the emulator (real SDK over HTTP)', () => {
  it('creates a missing backend with only the control-plane IPs and the intended health check', async () => {
    const result = await reconcile();
    expect(result.status).toBe('applied');
    expect(result.done.map((a) => a.kind)).toEqual(['CreateBackend']);
    const [backend] = world.backends();
    expect(backend).toMatchObject({
      name: 'lb-backend-https',
      forward_port: 443,
      forward_protocol: 'tcp',
      forward_port_algorithm: 'roundrobin',
      sticky_sessions: 'none',
      proxy_protocol: 'proxy_protocol_none',
      pool: DEMO_CONTROL_PLANE_IPS,
      health_check: { port: 443, check_delay: 3000, check_timeout: 1000, check_max_retries: 5 },
    });
    for (const worker of DEMO_WORKER_IPS) expect(backend?.pool).not.toContain(worker);
    expect(world.writes()).toEqual(['CreateBackend']);
    expect(result.apiCalls.writes).toBe(1);
  });

  it('in sync: at most 3 reads and no write', async () => {
    await converge();
    const result = await reconcile();
    expect(result.status).toBe('noop');
    expect(result.planned).toEqual([]);
    expect(world.writes()).toEqual([]);
    const reads = world.emulator
      .calls()
      .map((c) => c.operation)
      .sort();
    expect(reads).toEqual(['ListBackends', 'ListLbs', 'ListServers']);
    expect(result.apiCalls).toMatchObject({ reads: 3, writes: 0 });
  });

  it('one replaced control-plane server whose health check fails: one health read, exactly one SetBackendServers', async () => {
    await converge();
    world.emulator.replaceServer(DEMO_CP0_ID, {
      name: 'control-plane-fr-par-1-0b',
      zone: 'fr-par-1',
      publicIps: ['51.15.100.31'],
      tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
    });
    const result = await reconcile();
    expect(result.status).toBe('applied');
    expect(world.writes()).toEqual(['SetBackendServers']);
    expect(result.done).toMatchObject([{ kind: 'SetBackendServers', added: ['51.15.100.31'], removed: ['51.15.100.11'] }]);
    expect(world.backends()[0]?.pool).toEqual(['51.15.100.12', '51.15.100.13', '51.15.100.31']);
    const reads = world.emulator
      .calls()
      .filter((c) => !c.write)
      .map((c) => c.operation);
    expect(reads.slice(0, 3).sort()).toEqual(['ListBackends', 'ListLbs', 'ListServers']);
    // Before a write that removes a member: the LB's health checks (the deleted server fails at once here).
    expect(reads[3]).toBe('ListBackendStats');
    expect(reads.slice(4).every((op) => op === 'GetLb')).toBe(true); // readiness checks only
    expect(result.rollouts?.[0]?.rollout.removed).toEqual([{ ip: '51.15.100.11', why: "the LB's health check fails it" }]);
  });

  it('a new control-plane server only added: one write, no health read', async () => {
    await converge();
    world.emulator.upsertServer({
      name: 'control-plane-fr-par-1-3',
      zone: 'fr-par-1',
      publicIps: ['51.15.100.14'],
      tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
    });
    const result = await reconcile();
    expect(result.status).toBe('applied');
    expect(world.writes()).toEqual(['SetBackendServers']);
    expect(world.emulator.calls().map((c) => c.operation)).not.toContain('ListBackendStats');
    expect(world.backends()[0]?.pool).toEqual([...DEMO_CONTROL_PLANE_IPS, '51.15.100.14']);
  });

  it('spec drift: one full-PUT UpdateBackend that keeps the fields nobody asked about', async () => {
    await converge();
    const before = world.backends()[0] as Record<string, unknown>;
    const drifted = demoTarget({ backends: [{ name: 'lb-backend-https', forwardPort: 443, forwardPortAlgorithm: 'leastconn' }] });
    const result = await reconcile(drifted);
    expect(world.writes()).toEqual(['UpdateBackend']);
    expect(result.done[0]).toMatchObject({
      kind: 'UpdateBackend',
      changes: [{ field: 'forwardPortAlgorithm', from: 'roundrobin', to: 'leastconn' }],
    });
    const after = world.backends()[0] as Record<string, unknown>;
    expect(after.forward_port_algorithm).toBe('leastconn');
    for (const field of [
      'timeout_server',
      'timeout_connect',
      'timeout_tunnel',
      'on_marked_down_action',
      'max_retries',
      'pool',
      'health_check',
    ]) {
      expect(after[field], field).toEqual(before[field]);
    }
  });

  it('a backend created with its optional fields left out (proxy_protocol_unknown, nulls): written once, then in sync', async () => {
    // What the API answers for such a create (cli-lb-test-add-backend-servers-with-instance-id-public-ip #13).
    const leftOut = { proxy_protocol: 'proxy_protocol_unknown', max_retries: null, timeout_queue: null };
    await world.stop();
    world = await startWorld({ seed: demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, leftOut)] }) });
    const first = await reconcile();
    expect(first.status).toBe('applied');
    expect(first.done).toMatchObject([
      { kind: 'UpdateBackend', changes: [{ field: 'proxyProtocol', from: 'proxy_protocol_unknown', to: 'proxy_protocol_none' }] },
    ]);
    // The field the target names is written; the nulls nobody asked about stay.
    expect(world.emulator.history().map((w) => [w.operation, w.changed])).toEqual([['UpdateBackend', ['proxy_protocol']]]);
    expect(world.backends()[0]).toMatchObject({ proxy_protocol: 'proxy_protocol_none', max_retries: null, timeout_queue: null });
    world.emulator.resetCalls();
    const second = await reconcile();
    expect(second.status).toBe('noop');
    expect(world.writes()).toEqual([]);
  });

  describe("each backend field and health check a target may name: one write in the wire's units, then in sync", () => {
    // The seeded backend answers as a create that left them out does (nulls for the counts and timeout_queue,
    // cli-lb-test-add-backend-servers-with-instance-id-public-ip #13; the timeouts' create values; a TCP check).
    const cases: { name: string; named: Record<string, unknown>; write: string; changed: string[]; wire: Record<string, unknown> }[] = [
      {
        name: 'onMarkedDownAction shutdown_sessions',
        named: { onMarkedDownAction: 'shutdown_sessions' },
        write: 'UpdateBackend',
        changed: ['on_marked_down_action'],
        wire: { on_marked_down_action: 'shutdown_sessions' },
      },
      {
        name: 'timeoutServerMs 60000',
        named: { timeoutServerMs: 60_000 },
        write: 'UpdateBackend',
        changed: ['timeout_server'],
        wire: { timeout_server: 60_000 },
      },
      {
        name: 'timeoutConnectMs 2500',
        named: { timeoutConnectMs: 2_500 },
        write: 'UpdateBackend',
        changed: ['timeout_connect'],
        wire: { timeout_connect: 2_500 },
      },
      {
        name: 'timeoutTunnelMs 3000',
        named: { timeoutTunnelMs: 3_000 },
        write: 'UpdateBackend',
        changed: ['timeout_tunnel'],
        wire: { timeout_tunnel: 3_000 },
      },
      {
        name: 'maxRetries 6 over null',
        named: { maxRetries: 6 },
        write: 'UpdateBackend',
        changed: ['max_retries'],
        wire: { max_retries: 6 },
      },
      {
        name: 'redispatchAttemptCount 0 over null',
        named: { redispatchAttemptCount: 0 },
        write: 'UpdateBackend',
        changed: ['redispatch_attempt_count'],
        wire: { redispatch_attempt_count: 0 },
      },
      {
        name: 'maxConnections 0 over null',
        named: { maxConnections: 0 },
        write: 'UpdateBackend',
        changed: ['max_connections'],
        wire: { max_connections: 0 },
      },
      {
        name: 'timeoutQueueMs 4500 over null',
        named: { timeoutQueueMs: 4_500 },
        write: 'UpdateBackend',
        changed: ['timeout_queue_ms'],
        wire: { timeout_queue: '4.500s' },
      },
      {
        name: 'timeoutQueueMs 0 over null',
        named: { timeoutQueueMs: 0 },
        write: 'UpdateBackend',
        changed: ['timeout_queue_ms'],
        wire: { timeout_queue: '0s' },
      },
      {
        name: 'healthCheck.checkSendProxy true',
        named: { healthCheck: { checkSendProxy: true } },
        write: 'UpdateHealthCheck',
        changed: ['health_check.check_send_proxy'],
        wire: { health_check: expect.objectContaining({ check_send_proxy: true, tcp_config: {} }) },
      },
      {
        name: 'healthCheck.transientCheckDelayMs 200',
        named: { healthCheck: { transientCheckDelayMs: 200 } },
        write: 'UpdateHealthCheck',
        changed: ['health_check.transient_check_delay_ms'],
        wire: { health_check: expect.objectContaining({ transient_check_delay: '0.200s' }) },
      },
      {
        name: 'healthCheck.type tcp -> http, its request',
        named: { healthCheck: { type: 'http', http: { uri: '/healthz', method: 'HEAD', code: 200, hostHeader: 'api.internal' } } },
        write: 'UpdateHealthCheck',
        changed: ['health_check.config'],
        wire: {
          health_check: expect.objectContaining({
            http_config: { uri: '/healthz', method: 'HEAD', code: 200, host_header: 'api.internal' },
          }),
        },
      },
      {
        name: 'healthCheck.type tcp -> https, with SNI',
        named: { healthCheck: { type: 'https', http: { uri: '/readyz', sni: 'api.internal' } } },
        write: 'UpdateHealthCheck',
        changed: ['health_check.config'],
        wire: {
          health_check: expect.objectContaining({
            https_config: { uri: '/readyz', method: 'GET', code: null, host_header: '', sni: 'api.internal' },
          }),
        },
      },
    ];

    it.each(cases)('$name: one $write, then noop', async ({ named, write, changed, wire }) => {
      const { healthCheck, ...fields } = named;
      const target = demoTarget({
        backends: [{ name: 'lb-backend-https', forwardPort: 443, ...fields, ...(healthCheck ? { healthCheck } : {}) }],
      });
      await world.stop();
      world = await startWorld({ seed: demoSeedWith({ backends: [demoBackend()] }) });
      const first = await reconcile(target);
      expect(first.status).toBe('applied');
      expect(world.emulator.history().map((w) => [w.operation, w.changed])).toEqual([[write, changed]]);
      expect(world.backends()[0]).toMatchObject(wire);
      // The old config is gone with a change of type: one config at a time.
      const configs = Object.keys(world.backends()[0]?.health_check as object).filter((k) => k.endsWith('_config'));
      expect(configs).toHaveLength(1);
      world.emulator.resetCalls();
      const second = await reconcile(target);
      expect(second.status).toBe('noop');
      expect(world.writes()).toEqual([]);
    });

    it('a backend created with every field named carries them, and reads in sync at once', async () => {
      const named = Object.assign({}, ...cases.slice(0, 8).map((c) => c.named));
      const target = demoTarget({
        backends: [
          {
            name: 'lb-backend-https',
            forwardPort: 443,
            ...named,
            healthCheck: { type: 'https', transientCheckDelayMs: 200, http: { uri: '/readyz', sni: 'k8s' } },
          },
        ],
      });
      await world.stop();
      world = await startWorld({ seed: demoSeedWith({ backends: [] }) });
      expect((await reconcile(target)).done.map((a) => a.kind)).toEqual(['CreateBackend']);
      expect(world.backends()[0]).toMatchObject({
        on_marked_down_action: 'shutdown_sessions',
        timeout_server: 60_000,
        timeout_connect: 2_500,
        timeout_tunnel: 3_000,
        max_retries: 6,
        redispatch_attempt_count: 0,
        max_connections: 0,
        timeout_queue: '4.500s',
        health_check: expect.objectContaining({
          transient_check_delay: '0.200s',
          https_config: expect.objectContaining({ uri: '/readyz', sni: 'k8s' }),
        }),
      });
      world.emulator.resetCalls();
      expect((await reconcile(target)).status).toBe('noop');
      expect(world.writes()).toEqual([]);
    });
  });

  it('health-check drift: UpdateHealthCheck with durations compared as integer ms', async () => {
    await converge();
    const slower = demoTarget({ backends: [{ name: 'lb-backend-https', forwardPort: 443, healthCheck: { checkDelayMs: 5000 } }] });
    const result = await reconcile(slower);
    expect(world.writes()).toEqual(['UpdateHealthCheck']);
    expect(result.status).toBe('applied');
    expect(world.backends()[0]?.health_check).toMatchObject({ check_delay: 5000, check_timeout: 1000, check_max_retries: 5, port: 443 });
    world.emulator.resetCalls();
    expect((await reconcile(slower)).status).toBe('noop');
  });

  it('LB in a transient state: no write, a transient result', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    const result = await reconcile();
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'lb_transient_state', errorClass: 'transient' });
    expect(result.error?.message).toMatch(/^waiting for load-balancer /);
    expect(world.writes()).toEqual([]);
  });

  it('LB briefly transient: waited for in the invocation (transientWaitMs), then written, no retry needed', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating', 300);
    const result = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 3_000, transientWaitMs: 3_000 });
    expect(result.status).toBe('applied');
    expect(world.writes()).toEqual(['CreateBackend']);
    const [first, write] = [world.emulator.calls()[0], world.emulator.calls().find((c) => c.write)];
    expect((write?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(250);
  });

  // Found by the chaos run (seed 20261130): discovery read a control plane as stopped, the reconcile then waited for
  // the busy LB, the server ran again and passed its check meanwhile, and the write removed it as "stopped" while
  // its replacements were still unchecked: no passing member left. The servers are read again after such a wait.
  it('a server that runs again while the reconcile waits for a busy LB is not removed as stopped: discovery is read again after the wait', async () => {
    await converge();
    const cp0 = { id: DEMO_CP0_ID, name: 'control-plane-fr-par-1-0', zone: 'fr-par-1', publicIps: [DEMO_CONTROL_PLANE_IPS[0] as string] };
    const tags = demoTarget().servers.tags;
    world.emulator.upsertServer({ ...cp0, state: 'stopped', tags });
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    world.emulator.addFault({ operation: 'GetLb', gate: 'lb-wait', count: 1 });
    const running = reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 3_000, transientWaitMs: 10_000 });
    const started = Date.now();
    const listed = () => world.emulator.calls().some((c) => c.operation === 'ListServers' && c.status === 200);
    while (!(listed() && (world.emulator.heldAtGates()['lb-wait'] ?? 0) === 1)) {
      if (Date.now() - started > 10_000) throw new Error('the reconcile never read the servers and waited for the LB');
      await new Promise((r) => setTimeout(r, 5));
    }
    // While the reconcile waits: the server runs again (and passes its check), and the LB turns ready.
    world.emulator.upsertServer({ ...cp0, state: 'running', tags });
    world.emulator.setLbStatus(DEMO_LB_ID, 'ready');
    world.emulator.releaseGate('lb-wait');
    const result = await running;
    expect(result.error).toBeUndefined();
    expect(world.writes()).toEqual([]);
    expect(world.backends()[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
    expect(world.emulator.calls().filter((c) => c.operation === 'ListServers')).toHaveLength(2);
  });

  // Found by the --cloudonly rolling-update scenario: two reconciles of one target ran side by side; the one whose
  // read discovery made suspect wrote the whole pool it had read, putting back the members the other had just removed.
  it('a write planned on a suspect read is made of its changes: what another writer removed since stays out', async () => {
    const backendId = '00000000-0000-4000-8000-0000000000b5';
    world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend([...DEMO_CONTROL_PLANE_IPS, ...DEMO_WORKER_IPS], { id: backendId })] }));
    // Two control planes lose their role tag while still running and passing, a new one joins: discovery finds one of
    // the five serving members (suspect), so nothing is removed and the write only adds.
    const [cp0, cp1] = DEMO_CONTROL_PLANE_IDS as [string, string];
    for (const [id, n] of [
      [cp0, 0],
      [cp1, 1],
    ] as const)
      world.emulator.upsertServer({
        id,
        name: `control-plane-fr-par-1-${n}`,
        zone: 'fr-par-1',
        tags: [DEMO_CLUSTER_TAG],
        publicIps: [DEMO_CONTROL_PLANE_IPS[n] as string],
      });
    world.emulator.upsertServer({
      name: 'control-plane-fr-par-1-3',
      zone: 'fr-par-1',
      tags: demoTarget().servers.tags,
      publicIps: ['51.15.100.31'],
    });
    world.emulator.resetCalls();
    world.emulator.addFault({ pathIncludes: `/backends/${backendId}/servers`, gate: 'pool-write', count: 1 });
    const running = reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 3_000 }, fastClock);
    const started = Date.now();
    while ((world.emulator.heldAtGates()['pool-write'] ?? 0) === 0) {
      if (Date.now() - started > 10_000) throw new Error('the reconcile never wrote the pool');
      await new Promise((r) => setTimeout(r, 5));
    }
    // While its write is on the way, another writer takes out a member the reconcile keeps for now (kOps deregistering
    // it, or a reconcile beside this one).
    await world.gateway().removeBackendServers('fr-par-1', backendId, [DEMO_CONTROL_PLANE_IPS[0] as string]);
    world.emulator.releaseGate('pool-write');
    const result = await running;
    expect(result.error?.code).toBe('discovery_suspect');
    expect(result.done.map(describeAction)).toEqual([
      `SetBackendServers lb-backend-https +[51.15.100.31] -[${DEMO_WORKER_IPS.join(', ')}] (as AddBackendServers/RemoveBackendServers: discovery looks partial)`,
    ]);
    expect(world.writes()).toEqual(['AddBackendServers', 'RemoveBackendServers', 'RemoveBackendServers']);
    expect([...((world.backends()[0]?.pool as string[]) ?? [])].sort()).toEqual([...DEMO_CONTROL_PLANE_IPS.slice(1), '51.15.100.31']);
  });

  it('LB transient for longer than transientWaitMs: a transient result, no write', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating', 5_000);
    const result = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 3_000, transientWaitMs: 400 });
    expect(result.error).toMatchObject({ code: 'lb_transient_state', errorClass: 'transient' });
    expect(world.writes()).toEqual([]);
    expect(world.emulator.calls().filter((c) => c.operation === 'GetLb').length).toBeGreaterThanOrEqual(2);
  });

  it('LB locked: permanent, no write', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'locked');
    const result = await reconcile();
    expect(result.error).toMatchObject({ code: 'lb_not_ready', errorClass: 'permanent' });
    expect(world.writes()).toEqual([]);
  });

  function seedWithDuplicates(backends: Record<string, unknown>[], frontends: Record<string, unknown>[] = []) {
    const seed = demoSeed();
    const lb = seed.lbs?.[0];
    if (!lb) throw new Error('demo seed has no LB');
    lb.backends = backends as never;
    lb.frontends = frontends as never;
    world.emulator.loadSeed(seed);
  }
  const OLD = '00000000-0000-4000-8000-000000000001';
  const NEW = '00000000-0000-4000-8000-000000000002';

  it('duplicate-named backends: never a third; the unused one with our settings is removed, the oldest kept', async () => {
    seedWithDuplicates([
      { id: NEW, name: 'lb-backend-https', forward_port: 443, pool: ['51.15.100.99'], created_at: '2026-01-02T00:00:00Z' },
      { id: OLD, name: 'lb-backend-https', forward_port: 443, pool: ['51.15.100.98'], created_at: '2026-01-01T00:00:00Z' },
    ]);
    const result = await reconcile();
    expect(result.status).toBe('applied');
    expect(result.done).toMatchObject([
      { kind: 'SetBackendServers', backendId: OLD },
      { kind: 'DeleteDuplicateBackend', backendId: NEW, keptId: OLD },
    ]);
    expect(world.writes()).toEqual(['SetBackendServers', 'DeleteBackend']);
    expect(world.backends().map((b) => b.id)).toEqual([OLD]);
    expect(world.emulator.calls().filter((c) => c.operation === 'ListFrontends')).toHaveLength(1);
  });

  it('duplicates: the one a frontend uses is kept, and one with other settings is left alone, with the reason', async () => {
    seedWithDuplicates(
      [
        { id: OLD, name: 'lb-backend-https', forward_port: 6443, pool: DEMO_CONTROL_PLANE_IPS, created_at: '2026-01-01T00:00:00Z' },
        {
          id: NEW,
          name: 'lb-backend-https',
          forward_port: 443,
          pool: DEMO_CONTROL_PLANE_IPS,
          created_at: '2026-01-02T00:00:00Z',
          health_check: { port: 443, check_delay: 3000, check_timeout: 1000, check_max_retries: 5, tcp_config: {} },
        },
      ],
      [{ name: 'lb-frontend-https', inbound_port: 443, backend: NEW }],
    );
    const result = await reconcile();
    expect(result.status).toBe('noop');
    expect(world.writes()).toEqual([]);
    expect(result.warnings.join('\n')).toMatch(new RegExp(`using ${NEW}; leaving ${OLD} alone: its settings differ`));
    expect(world.backends()).toHaveLength(2);
  });

  it('no duplicates: the frontends are not read', async () => {
    await converge();
    await reconcile();
    expect(world.emulator.calls().map((c) => c.operation)).not.toContain('ListFrontends');
  });

  it('no matching servers: the pool is not emptied, the result is transient', async () => {
    await converge();
    const lonely = demoTarget({ servers: { tags: ['noprefix=kops.k8s.io/cluster=nowhere'] } });
    const result = await reconcile(lonely);
    expect(result.error).toMatchObject({ code: 'no_servers', errorClass: 'transient' });
    expect(world.writes()).toEqual([]);
    expect(world.backends()[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
    // ...unless the target explicitly allows an empty pool: still never while members pass their health checks
    // (rolling-update safety: the members here are running servers, so discovery looks partial)...
    const allowed = demoTarget({ servers: { tags: ['noprefix=kops.k8s.io/cluster=nowhere'] }, allowEmptyPool: true });
    expect((await reconcile(allowed)).error).toMatchObject({ code: 'discovery_suspect', errorClass: 'transient' });
    expect(world.writes()).toEqual([]);
    // ...and once the LB reports them failing, the empty pool is written.
    for (const ip of DEMO_CONTROL_PLANE_IPS) world.emulator.forceHealth(ip, 'failed');
    expect((await reconcile(allowed)).status).toBe('applied');
    expect(world.backends()[0]?.pool).toEqual([]);
  });

  describe("an event's serverIps is an assertion checked against discovery, never a pool", () => {
    const writtenPools = () => world.emulator.history().map((w) => w.pool);

    it('addresses outside discovery are never written: the discovered pool is, then the event fails untrusted_server_ips', async () => {
      // The demo backend is missing: discovery's pool is written (created), the hostile addresses are not.
      const result = await reconcile(demoTarget(), { serverIps: ['6.6.6.6', '51.15.100.11'] });
      expect(result.error).toMatchObject({ code: 'untrusted_server_ips', errorClass: 'transient' });
      expect(result.error?.message).toMatch(/^event serverIps 6\.6\.6\.6 not returned by the discovery of target demo\.k8s\.local/);
      expect(result.done.map((a) => a.kind)).toEqual(['CreateBackend']);
      // The held path: the status says what was written, the error why the event is retried.
      expect(result.status).toBe('applied');
      expect(world.backends()[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
      expect(writtenPools().flat()).not.toContain('6.6.6.6');
      expect(world.emulator.calls().map((c) => c.operation)).toContain('ListServers');
    });

    it('in sync and asserting an address discovery lacks: no write at all, still untrusted_server_ips', async () => {
      await converge();
      world.emulator.resetHistory();
      const result = await reconcile(demoTarget(), { serverIps: ['51.15.100.99'] });
      expect(result.error?.code).toBe('untrusted_server_ips');
      expect(result.status).toBe('noop');
      expect(world.writes()).toEqual([]);
      expect(writtenPools()).toEqual([]);
      expect(world.backends()[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
    });

    it('a dry run asserting an address discovery lacks: planned, nothing written, retried as untrusted_server_ips', async () => {
      const result = await reconcile(demoTarget(), { serverIps: ['6.6.6.6'], dryRun: true });
      expect(result).toMatchObject({ status: 'planned', error: { code: 'untrusted_server_ips' } });
      expect(result.planned.map((a) => a.kind)).toEqual(['CreateBackend']);
      expect(world.writes()).toEqual([]);
    });

    it('held removals and an unconfirmed address ride one path: what was written, and the error the event is retried under', async () => {
      await converge();
      // The old control plane's check has not failed yet, the new one's does not pass yet: its removal waits.
      world.emulator.setBehaviours({ healthPassAfterMs: 3_600_000, healthFailAfterMs: 3_600_000 });
      world.emulator.replaceServer(DEMO_CP0_ID, {
        name: 'control-plane-fr-par-1-0b',
        zone: 'fr-par-1',
        publicIps: ['51.15.100.31'],
        tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
      });
      const held = await reconcile(demoTarget());
      expect(held).toMatchObject({ status: 'applied', error: { code: 'removal_deferred' } });
      expect(held.done.map((a) => a.kind)).toEqual(['SetBackendServers']);
      // Nothing more to write now; the unconfirmed address wins over the hold, under its own code.
      const both = await reconcile(demoTarget(), { serverIps: ['6.6.6.6'] });
      expect(both).toMatchObject({ status: 'noop', error: { code: 'untrusted_server_ips' } });
      expect(both.done).toEqual([]);
    });

    it('a subset of the discovered pool never shrinks it: the asserted addresses are there, nothing is removed', async () => {
      await converge();
      const result = await reconcile(demoTarget(), { serverIps: ['51.15.100.12', '51.15.100.11'] });
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('noop');
      expect(world.writes()).toEqual([]);
      expect(world.backends()[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
    });

    it('a new server not yet tagged: the assertion fails until discovery shows it, then holds (another spelling of one IPv6 matches)', async () => {
      await converge();
      const untagged = {
        name: 'control-plane-fr-par-1-3',
        zone: 'fr-par-1',
        publicIps: ['51.15.100.14'],
        tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local'],
      };
      world.emulator.upsertServer({ id: '9e3c9a3c-0000-4000-8000-000000000014', ...untagged });
      const early = await reconcile(demoTarget(), { serverIps: ['51.15.100.14'] });
      expect(early.error?.code).toBe('untrusted_server_ips');
      expect(world.writes()).toEqual([]);
      world.emulator.upsertServer({
        id: '9e3c9a3c-0000-4000-8000-000000000014',
        ...untagged,
        tags: [...untagged.tags, 'noprefix=kops.k8s.io/role=ControlPlane'],
      });
      const later = await reconcile(demoTarget(), { serverIps: ['51.15.100.14'] });
      expect(later.error).toBeUndefined();
      expect(later.status).toBe('applied');
      expect(world.backends()[0]?.pool).toEqual([...DEMO_CONTROL_PLANE_IPS, '51.15.100.14']);
    });
  });

  it('ipam-private: private-NIC addresses from IPAM, one ListIPs call, masks stripped', async () => {
    const target = demoTarget({
      servers: {
        tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
        ipSource: 'ipam-private',
      },
    });
    const result = await reconcile(target);
    expect(result.status).toBe('applied');
    expect(world.backends()[0]?.pool).toEqual(['10.0.0.11', '10.0.0.12', '10.0.0.13']);
    expect(world.emulator.calls().filter((c) => c.operation === 'ListIPs')).toHaveLength(1);
  });

  it('an LB named by id costs a GetLb instead of a ListLbs', async () => {
    await converge();
    const result = await reconcile(demoTarget({ loadBalancer: { id: DEMO_LB_ID } }));
    expect(result.status).toBe('noop');
    expect(
      world.emulator
        .calls()
        .map((c) => c.operation)
        .sort(),
    ).toEqual(['GetLb', 'ListBackends', 'ListServers']);
  });

  it('dry run plans without writing', async () => {
    const result = await reconcile(demoTarget(), { dryRun: true });
    expect(result.status).toBe('planned');
    expect(result.planned.map((a) => a.kind)).toEqual(['CreateBackend']);
    expect(world.writes()).toEqual([]);
  });
});

describe('error classes, from real API answers', () => {
  const replaceCp0 = () =>
    world.emulator.replaceServer(DEMO_CP0_ID, {
      name: 'cp-new',
      zone: 'fr-par-1',
      publicIps: ['51.15.100.41'],
      tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
    });

  const cases = [
    { name: '409 transient_state', fault: faultBodies.transientState(DEMO_LB_ID), code: 'api_transient_state', errorClass: 'transient' },
    {
      name: '429 with reset_seconds',
      fault: faultBodies.tooManyRequests(4),
      code: 'rate_limited',
      errorClass: 'transient',
      retryAfterMs: 4000,
    },
    { name: '503', fault: faultBodies.serviceUnavailable(), code: 'api_unavailable', errorClass: 'transient' },
    { name: '403 permissions_denied', fault: faultBodies.permissionsDenied(), code: 'permissions_denied', errorClass: 'permanent' },
    { name: '403 quotas_exceeded', fault: faultBodies.quotasExceeded(), code: 'quotas_exceeded', errorClass: 'permanent' },
    { name: '400 invalid_arguments', fault: faultBodies.invalidArguments('server_ip'), code: 'invalid_arguments', errorClass: 'permanent' },
    { name: '412 precondition_failed', fault: faultBodies.preconditionFailed(), code: 'precondition_failed', errorClass: 'permanent' },
    {
      name: '401 denied_authentication',
      fault: faultBodies.deniedAuthentication(),
      code: 'authentication_denied',
      errorClass: 'permanent',
    },
    {
      name: 'backend 404',
      fault: { status: 404, body: { message: 'backend not Found' } },
      code: 'backend_not_found',
      errorClass: 'not_found',
    },
    { name: 'connection reset', fault: { reset: true }, code: 'network_error', errorClass: 'transient' },
  ] as const;

  for (const c of cases) {
    it(`${c.name} on SetBackendServers -> ${c.code} (${c.errorClass}), wrapped with kOps' message`, async () => {
      await converge();
      replaceCp0();
      world.emulator.addFault({ operation: 'SetBackendServers', ...c.fault });
      const result = await reconcile();
      expect(result.status).toBe('failed');
      expect(result.error).toMatchObject({ code: c.code, errorClass: c.errorClass });
      // kOps fills this message with the LB's name; the id travels beside it.
      expect(result.error?.message).toMatch(/^updating back-end server IPs for load-balancer api\.demo\.k8s\.local: /);
      expect(result.error?.lb).toEqual({ id: DEMO_LB_ID, name: 'api.demo.k8s.local' });
      expect(result.error?.cause).toBeDefined();
      if ('retryAfterMs' in c) expect(result.error?.retryAfterMs).toBe(c.retryAfterMs);
    });
  }

  it('a hang past the request timeout is a transient network error', async () => {
    await converge();
    world.emulator.addFault({ operation: 'ListBackends', hang: true });
    const result = await reconcile(demoTarget(), {}, 300);
    expect(result.error).toMatchObject({ code: 'network_error', errorClass: 'transient' });
    expect(result.error?.message).toMatch(/^listing back-ends for load-balancer .*: request timed out/);
  });

  it('a missing LB is permanent', async () => {
    const result = await reconcile(demoTarget({ loadBalancer: { name: 'api.gone.k8s.local' } }));
    expect(result.error).toMatchObject({ code: 'lb_not_found', errorClass: 'permanent' });
    const byId = await reconcile(demoTarget({ loadBalancer: { id: '00000000-0000-4000-8000-00000000dead' } }));
    expect(byId.error).toMatchObject({ code: 'lb_not_found', errorClass: 'permanent' });
  });

  it("a ListServers failure carries kOps' message", async () => {
    world.emulator.addFault({ operation: 'ListServers', ...faultBodies.internal() });
    const result = await reconcile();
    expect(result.error?.message).toMatch(/^getting cluster servers for load-balancer's back-end: /);
    expect(world.writes()).toEqual([]);
  });

  it("create failure carries kOps' create message", async () => {
    world.emulator.addFault({ operation: 'CreateBackend', ...faultBodies.invalidArguments('forward_port') });
    const result = await reconcile();
    expect(result.error?.message).toMatch(/^creating back-end for load-balancer /);
    expect(result.error?.code).toBe('invalid_arguments');
  });

  it('readiness budget exhausted after a write reports apply_timeout (transient)', async () => {
    const slow = await startWorld({ instancePendingMs: 5_000 });
    try {
      const result = await reconcileTarget(demoTarget(), {}, { gateway: slow.gateway(), waitBudgetMs: 200 }, fastClock);
      expect(result.done.map((a) => a.kind)).toEqual(['CreateBackend']);
      expect(result.error).toMatchObject({ code: 'apply_timeout', errorClass: 'transient' });
      expect(result.error?.message).toMatch(/^waiting for load-balancer /);
    } finally {
      await slow.stop();
    }
  });
});
