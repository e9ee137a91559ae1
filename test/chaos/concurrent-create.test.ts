// Ten deliveries of one target at once, through the real path (queue -> trigger bridge -> served reconcile
// function -> emulated API), all finding the backend missing: exactly one backend must remain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../local/trigger-bridge';
import type { LocalStack } from '../../local/stack';
import { startLocalStack } from '../../local/stack';
import { DEMO_CLUSTER, DEMO_CONTROL_PLANE_IPS, demoSeed } from '../support/world';

let stack: LocalStack;
const deliveries: Delivery[] = [];

beforeAll(async () => {
  stack = await startLocalStack({
    seed: demoSeed(), // lb-backend-https missing
    targets: [{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }],
    functionsFrom: 'source',
    instancePendingMs: 50,
    visibilityTimeoutSeconds: 10,
    env: {
      LOG_LEVEL: 'silent',
      LBSYNC_RETRY_BASE_MS: '50',
      LBSYNC_RETRY_CAP_MS: '500',
      LBSYNC_RETRY_HORIZON_MS: '20000',
      LBSYNC_WAIT_BUDGET_MS: '2000',
    },
    onDelivery: (d) => deliveries.push(d),
  });
});

afterAll(async () => {
  await stack?.stop();
});

describe('ten simultaneous deliveries for one target', () => {
  it('all read "missing", several create, exactly one backend remains with the control-plane pool', async () => {
    // Every first read waits until all ten have asked, as in test/integration/reconcile/create-once.test.ts; the creates
    // are slowed too, so a delivery the bridge starts a little late still reads "missing" before any lands.
    stack.emulator.addFault({ operation: 'ListBackends', latencyMs: 400, count: 10 });
    stack.emulator.addFault({ operation: 'CreateBackend', latencyMs: 1_000, count: 10 });
    const bodies = Array.from({ length: 10 }, (_, i) =>
      JSON.stringify({ version: 1, id: `evt-race-${i}`, source: 'manual', target: DEMO_CLUSTER, occurredAt: new Date().toISOString() }),
    );
    const sent = await stack.events.sendBatch(
      stack.reconcileQueueUrl,
      bodies.map((body, i) => ({ id: String(i), body })),
    );
    expect(sent.failed).toEqual([]);
    await stack.bridge.waitIdle({ quietMs: 500, timeoutMs: 20_000 });

    const state = stack.emulator.dumpState() as { lbs: { backends: { name: string; pool: string[] }[] }[] };
    const backends = state.lbs[0]?.backends.filter((b) => b.name === 'lb-backend-https') ?? [];
    expect(backends).toHaveLength(1);
    expect(backends[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);

    const writes = stack.emulator.calls().filter((c) => c.write);
    const creates = writes.filter((c) => c.operation === 'CreateBackend' && c.status === 200).length;
    const deletes = writes.filter((c) => c.operation === 'DeleteBackend' && c.status === 204).length;
    expect(creates).toBeGreaterThan(1); // the race really happened through the served functions
    expect(creates - deletes).toBe(1);
    // Ten deliveries all answered 200 with a final outcome; nothing dead-lettered.
    expect(deliveries.filter((d) => bodies.includes(d.body)).map((d) => d.status)).toEqual(Array(10).fill(200));
    expect(await stack.drainDeadLetters()).toEqual([]);
    // No pool write was ever empty or anything but the control plane.
    for (const write of stack.emulator.history()) expect(write.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
  });
});
