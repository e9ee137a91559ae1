// The watcher end to end on the local stack: a kOps-style replacement with no boot hook, no inject and no
// sweep, noticed in the emulated Audit Trail by the watch function (served by @scaleway/serverless-functions,
// run on its own ticker), enqueued, reconciled. The evidence is the emulator's pool history and the queue.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WireAuditEvent } from '../../emulator';
import type { LocalStack } from '../../local/stack';
import { startLocalStack } from '../../local/stack';
import type { Delivery } from '../../local/trigger-bridge';
import { DEMO_CLUSTER, DEMO_CP0_ID, convergedDemoSeed, demoPool } from '../support/world';

const WATCH_EVERY_MS = 400;
const AUDIT_DELAY_MS = 300;
const NEW_CP = {
  id: '3f1c1d7e-5b6a-4c2e-9a51-7d0c2b9e4a11',
  name: 'control-plane-fr-par-1-0-r1',
  zone: 'fr-par-1',
  state: 'running',
  publicIps: ['51.15.100.51'],
  tags: [
    'noprefix=kops.k8s.io/cluster=demo.k8s.local',
    'noprefix=kops.k8s.io/role=ControlPlane',
    'noprefix=kops.k8s.io/instance-group=control-plane-fr-par-1',
  ],
};
const NEW_POOL = ['51.15.100.12', '51.15.100.13', '51.15.100.51'];

let stack: LocalStack;
const deliveries: Delivery[] = [];

const pool = () => demoPool(stack.emulator);

async function until(what: string, probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!probe()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const events = () => deliveries.map((d) => JSON.parse(d.body) as { source: string; target: string; attempt: number });

beforeAll(async () => {
  stack = await startLocalStack({
    seed: convergedDemoSeed(),
    targets: [{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }],
    functionsFrom: 'source',
    instancePendingMs: 100,
    sweepCron: false,
    watchEveryMs: WATCH_EVERY_MS,
    auditTrailDelayMs: AUDIT_DELAY_MS,
    env: { LOG_LEVEL: 'silent', LBSYNC_WAIT_BUDGET_MS: '2000', LBSYNC_WATCH_OVERLAP_MS: '2000' },
    onDelivery: (d) => deliveries.push(d),
  });
});

afterAll(async () => {
  await stack?.stop();
});

beforeEach(async () => {
  await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 20_000 });
  stack.emulator.loadSeed(convergedDemoSeed());
  stack.emulator.auditTrail.clear();
  stack.emulator.resetHistory();
  deliveries.length = 0;
});

describe('watcher (local stack, scaled clock: runs every 400 ms, Audit Trail delay 300 ms)', () => {
  it('a replacement with only the watcher converges: one SetBackendServers to the new control plane, every event from audit', async () => {
    // Nothing changed: runs of the watcher find nothing and enqueue nothing.
    const idle = await stack.watch({});
    expect(idle).toMatchObject({ status: 200, body: { events: 0, relevant: 0, enqueued: 0, targets: [] } });

    const replacedAt = Date.now();
    stack.emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    await until('the pool to follow the replacement', () => JSON.stringify(pool()) === JSON.stringify(NEW_POOL));
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 20_000 });

    const writes = stack.emulator.history().filter((w) => w.at >= replacedAt);
    expect(writes.map((w) => [w.operation, [...w.pool].sort()])).toEqual([['SetBackendServers', NEW_POOL]]);
    // Not before Audit Trail listed the change.
    expect(writes[0]?.at).toBeGreaterThanOrEqual(replacedAt + AUDIT_DELAY_MS);
    expect(events().length).toBeGreaterThanOrEqual(1);
    expect(events().every((e) => e.source === 'audit' && e.target === DEMO_CLUSTER && e.attempt === 0)).toBe(true);
    expect(deliveries.every((d) => d.status === 200)).toBe(true);
  });

  it('our own write does not bring the watcher back: after the change leaves its window, runs enqueue nothing', async () => {
    stack.emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    await until('the pool to follow the replacement', () => JSON.stringify(pool()) === JSON.stringify(NEW_POOL));
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 20_000 });
    const recorded = stack.emulator.auditTrail.events();
    // kOps' rolling update (terminate, create, poweron), then the reconcile's own write.
    expect(recorded.map((e) => e.method_name)).toEqual(['ServerAction', 'CreateServer', 'ServerAction', 'SetBackendServers']);
    // Only the replacement's three events are cleared (as if they were older than period + overlap);
    // the reconcile's own SetBackendServers stays listable and must not be acted on.
    stack.emulator.auditTrail.clear();
    const ours: WireAuditEvent[] = recorded
      .filter((e) => e.method_name === 'SetBackendServers')
      .map((e) => ({ ...e, recorded_at: new Date(Date.now() - AUDIT_DELAY_MS - 100).toISOString() })); // listable, inside the window
    expect(ours.map((e) => String(e.user_agent))).toEqual([expect.stringContaining('scw-lb-sync/')]);
    stack.emulator.auditTrail.inject(ours);
    const answer = await stack.watch({});
    expect(answer).toMatchObject({ status: 200, body: { events: 1, relevant: 0, enqueued: 0 } });
  });
});

describe('a spread sweep on the same stack (hold mode)', () => {
  it('the event is sent when due, delivered once, attempt 0: no reconcile waits for it or re-enqueues it', async () => {
    const started = Date.now();
    const answer = await stack.sweep({ spreadSeconds: 2 });
    expect(answer).toMatchObject({ status: 200, body: { enqueued: 1, sending: 'paced', spreadMs: 2_000 } });
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 20_000 });
    const swept = deliveries
      .map((d) => ({ d, event: JSON.parse(d.body) as { source: string; attempt: number; notBefore?: string } }))
      .filter((x) => x.event.source === 'sweep');
    expect(swept).toHaveLength(1);
    const [{ d, event }] = swept as [(typeof swept)[number]];
    const due = Date.parse(event.notBefore ?? '');
    expect(due).toBeGreaterThanOrEqual(started);
    expect(due).toBeLessThan(started + 2_000);
    expect(event.attempt).toBe(0);
    expect(d.status).toBe(200);
    // The first API read of that reconcile came after the event was due.
    const firstRead = stack.emulator.calls().find((c) => c.at >= started && !c.write && c.operation !== 'ListEvents');
    expect(firstRead?.at).toBeGreaterThanOrEqual(due);
  });
});
