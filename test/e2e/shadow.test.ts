// A shadow deployment end to end (LBSYNC_MODE=shadow on every function of the local stack): HTTP into the four
// functions, the real SQS client and the trigger bridge, the emulated Scaleway API. Every way in is taken — the
// sweep, inject, a replacement found only by the watcher in Audit Trail, an invalid event — and the emulator's call
// log is the judge: reads from every reconcile, and not one write, whatever the functions answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../local/trigger-bridge';
import type { LocalStack } from '../../local/stack';
import type { ReconcileAnswerBody } from '../../shared/handlers/reconcile-message';
import { startDemoStack } from '../support/demo-stack';
import { CONTROL_PLANE_ROLE_TAG, DEMO_CLUSTER, DEMO_CLUSTER_TAG, DEMO_CP0_ID } from '../support/world';

let stack: LocalStack;
const deliveries: Delivery[] = [];
const answers = () => deliveries.flatMap((d) => (d.answer ? [JSON.parse(d.answer) as ReconcileAnswerBody] : []));
const quiet = () => stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 20_000 });

beforeAll(async () => {
  stack = await startDemoStack({
    auditTrailDelayMs: 0,
    env: {
      LBSYNC_MODE: 'shadow',
      LBSYNC_RETRY_BASE_MS: '100',
      LBSYNC_RETRY_CAP_MS: '400',
      LBSYNC_RETRY_HORIZON_MS: '2000',
      // The horizon's floor is this wait plus one backoff step (LBSYNC_RETRY_BASE_MS).
      LBSYNC_TRANSIENT_WAIT_MS: '1000',
    },
    onDelivery: (d) => deliveries.push(d),
  });
});
afterAll(async () => stack?.stop());

describe('a shadow deployment, every function', () => {
  it('reads and plans from every way in, answers dry_run with the plan, and the call log holds no write', async () => {
    // The demo LB lacks its backend: a writing deployment creates it on the first sweep.
    expect((await stack.sweep({})).status).toBe(200);
    await quiet();
    expect((await stack.inject({ target: DEMO_CLUSTER, source: 'manual' })).status).toBe(202);
    await quiet();
    stack.emulator.replaceServer(DEMO_CP0_ID, {
      name: 'cp-0b',
      zone: 'fr-par-1',
      publicIps: ['51.15.100.31'],
      tags: [DEMO_CLUSTER_TAG, CONTROL_PLANE_ROLE_TAG],
    });
    const watched = await stack.watch({});
    expect(watched.status).toBe(200);
    expect((watched.body as { enqueued: number }).enqueued).toBe(1);
    await quiet();
    await stack.events.send(stack.reconcileQueueUrl, '{"version":1,"target":"demo.k8s.local","source":"manual"}');
    await quiet();

    const calls = stack.emulator.calls();
    expect(calls.filter((c) => c.write)).toEqual([]);
    // Reads, by the reconciles of every way in (each call carries its event's id in the User-Agent).
    expect(calls.filter((c) => c.operation === 'ListLbs').length).toBeGreaterThanOrEqual(3);

    const valid = answers().filter((a) => a.outcome !== 'dead_lettered');
    expect(valid.length).toBeGreaterThanOrEqual(3);
    for (const answer of valid) {
      expect(answer).toMatchObject({ outcome: 'dry_run', mode: 'shadow', apiCalls: { writes: 0 } });
      expect(answer.planned?.[0]).toMatch(/^CreateBackend lb-backend-https pool=\[/);
    }
    // Only what a writing deployment dead-letters too: the invalid event.
    const dead = await stack.drainDeadLetters();
    expect(dead.map((d) => d.reason)).toEqual(['invalid_event']);
  }, 60_000);
});
