// End to end through the real path: HTTP into the functions served by @scaleway/serverless-functions,
// the real AWS SQS client against the local queue, the trigger bridge, and the emulated Scaleway API.
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { faultBodies } from '../../emulator';
import type { DeadLetterRecord } from '../../shared/handlers/dead-letter';
import type { Delivery } from '../../local/trigger-bridge';
import type { LocalStack } from '../../local/stack';
import { startLocalStack } from '../../local/stack';
import { DEMO_CLUSTER, DEMO_CONTROL_PLANE_IPS, DEMO_CP0_ID, DEMO_LB_ID, demoSeed, convergedDemoSeed, demoPool } from '../support/world';

let stack: LocalStack;
const deliveries: Delivery[] = [];

const NEW_CP = {
  name: 'control-plane-fr-par-1-0-r2',
  zone: 'fr-par-1',
  publicIps: ['51.15.100.51'],
  tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
};
const NEW_POOL = ['51.15.100.12', '51.15.100.13', '51.15.100.51'];
/** Transient failures are retried this long after the first attempt (a few attempts with base 100 ms, cap 800 ms). */
const RETRY_HORIZON_MS = 2_000;

const pool = () => demoPool(stack.emulator);

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const samePool = (wanted: string[]) => () => JSON.stringify(pool()) === JSON.stringify(wanted);

async function deadLetters(count = 1): Promise<DeadLetterRecord[]> {
  const records: DeadLetterRecord[] = [];
  await until(`${count} dead letter(s)`, async () => {
    records.push(...(await stack.drainDeadLetters()));
    return records.length >= count;
  });
  return records;
}

const writes = () => stack.emulator.calls().filter((c) => c.write);
const quiet = () => stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 20_000 });

beforeAll(async () => {
  stack = await startLocalStack({
    seed: convergedDemoSeed(),
    targets: [{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }],
    functionsFrom: 'source',
    instancePendingMs: 150,
    visibilityTimeoutSeconds: 3,
    env: {
      LOG_LEVEL: 'silent',
      LBSYNC_RETRY_BASE_MS: '100',
      LBSYNC_RETRY_CAP_MS: '800',
      LBSYNC_RETRY_HORIZON_MS: String(RETRY_HORIZON_MS),
      LBSYNC_MAX_HOLD_MS: '2000',
      LBSYNC_WAIT_BUDGET_MS: '2000',
      LBSYNC_TRANSIENT_WAIT_MS: '0', // every transient LB state goes through the queue's retry path here
    },
    onDelivery: (d) => deliveries.push(d),
  });
});

afterAll(async () => {
  await stack?.stop();
});

beforeEach(async () => {
  await quiet();
  await stack.drainDeadLetters();
  stack.emulator.clearFaults();
  stack.emulator.loadSeed(convergedDemoSeed());
  stack.emulator.resetCalls();
  stack.emulator.resetHistory();
  deliveries.length = 0;
});

describe('events in, backends converged, nothing lost', () => {
  it('sweep: a missing backend is created with the control-plane IPs', async () => {
    stack.emulator.loadSeed(demoSeed());
    const answer = await stack.sweep({});
    expect(answer).toMatchObject({ status: 200, body: { selected: 1, enqueued: 1, batches: 1 } });
    await until('the backend', samePool(DEMO_CONTROL_PLANE_IPS));
    await quiet();
    expect(writes().map((c) => c.operation)).toEqual(['CreateBackend']);
  });

  it('replacement: the injected event costs exactly one SetBackendServers', async () => {
    stack.emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    const answer = await stack.inject({ source: 'instance-replacement', target: DEMO_CLUSTER });
    expect(answer.status).toBe(202);
    expect((answer.body as { eventId: string }).eventId).toMatch(/^evt-/);
    await until('the new pool', samePool(NEW_POOL));
    await quiet();
    expect(writes().map((c) => c.operation)).toEqual(['SetBackendServers']);
    const [delivery] = deliveries;
    expect(delivery?.status).toBe(200);
  });

  it('drift: a replacement whose event was missed is caught by the next sweep', async () => {
    stack.emulator.replaceServer(DEMO_CP0_ID, NEW_CP); // no boot hook fired, no event injected
    await quiet();
    expect(pool()).toEqual(DEMO_CONTROL_PLANE_IPS);
    await stack.sweep({});
    await until('the new pool', samePool(NEW_POOL));
    await quiet();
    expect(writes().map((c) => c.operation)).toEqual(['SetBackendServers']);
    expect(deliveries.map((d) => (JSON.parse(d.body) as { source: string }).source)).toEqual(['sweep']);
  });

  it('transient LB: retried with backoff, no write until the LB is ready', async () => {
    stack.emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    stack.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    await stack.inject({ source: 'instance-replacement', target: DEMO_CLUSTER });
    await until('two failed attempts', () => deliveries.length >= 2);
    expect(writes()).toEqual([]);
    const readyAt = Date.now();
    stack.emulator.setLbStatus(DEMO_LB_ID, 'ready');
    await until('the new pool', samePool(NEW_POOL));
    await quiet();
    const events = deliveries.map((d) => JSON.parse(d.body) as { id: string; attempt: number; notBefore?: string });
    expect(events.map((e) => e.attempt)).toEqual(events.map((_, i) => i)); // 0, 1, 2...: each retry is a new message
    expect(new Set(events.map((e) => e.id)).size).toBe(1);
    expect(events.slice(1).every((e) => e.notBefore !== undefined)).toBe(true);
    const [write, ...more] = writes();
    expect(more).toEqual([]);
    expect(write?.operation).toBe('SetBackendServers');
    expect(write?.at).toBeGreaterThanOrEqual(readyAt);
  });

  it("429: the retry waits for the API's reset_seconds", async () => {
    stack.emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    stack.emulator.addFault({ operation: 'SetBackendServers', ...faultBodies.tooManyRequests(1) });
    await stack.inject({ source: 'instance-replacement', target: DEMO_CLUSTER });
    await until('the new pool', samePool(NEW_POOL));
    const sets = stack.emulator.calls().filter((c) => c.operation === 'SetBackendServers');
    expect(sets.map((c) => c.status)).toEqual([429, 200]);
    expect((sets[1]?.at ?? 0) - (sets[0]?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
  });

  it("permanent error: dead-lettered with kOps' wrapped message, the code, the hint and the original event", async () => {
    stack.emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    stack.emulator.addFault({ operation: 'SetBackendServers', ...faultBodies.permissionsDenied() });
    const answer = await stack.inject({ source: 'instance-replacement', target: DEMO_CLUSTER });
    const [record] = await deadLetters();
    expect(record).toMatchObject({
      kind: 'lbsync.dead-letter',
      reason: 'permanent_error',
      eventId: (answer.body as { eventId: string }).eventId,
      target: DEMO_CLUSTER,
      attempts: 1,
      event: { source: 'instance-replacement', target: DEMO_CLUSTER, attempt: 0 },
      error: { code: 'permissions_denied', errorClass: 'permanent', status: 403 },
    });
    // kOps' wording with the LB's name (as kOps fills it); the id is kept beside it in the record.
    expect(record?.error.message).toMatch(/^updating back-end server IPs for load-balancer api\.demo\.k8s\.local: /);
    expect(record?.error.lb).toEqual({ id: DEMO_LB_ID, name: 'api.demo.k8s.local' });
    expect(record?.error.hint).toMatch(/permission/i);
    expect(pool()).toEqual(DEMO_CONTROL_PLANE_IPS);
  });

  it('invalid JSON and unknown targets go to the dead-letter queue without any API call', async () => {
    await stack.events.send(stack.reconcileQueueUrl, '{"version":1, oops');
    await stack.events.send(
      stack.reconcileQueueUrl,
      JSON.stringify({ version: 1, id: 'evt-x', source: 'manual', target: 'nope', occurredAt: '2026-11-29T10:00:00Z' }),
    );
    const records = await deadLetters(2);
    const byReason = Object.fromEntries(records.map((r) => [r.reason, r]));
    expect(byReason.invalid_event).toMatchObject({ rawBody: '{"version":1, oops', error: { code: 'invalid_event' } });
    expect(byReason.unknown_target).toMatchObject({ eventId: 'evt-x', target: 'nope', error: { code: 'unknown_target' } });
    expect(stack.emulator.calls()).toEqual([]);
  });

  it('duplicate delivery is harmless: the second copy is a no-op', async () => {
    stack.emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    const event = JSON.stringify({
      version: 1,
      id: 'evt-dup',
      source: 'manual',
      target: DEMO_CLUSTER,
      occurredAt: new Date().toISOString(),
    });
    await stack.events.send(stack.reconcileQueueUrl, event);
    await until('the new pool', samePool(NEW_POOL));
    await quiet();
    await stack.events.send(stack.reconcileQueueUrl, event);
    await quiet();
    expect(deliveries.filter((d) => d.body === event)).toHaveLength(2);
    expect(writes().map((c) => c.operation)).toEqual(['SetBackendServers']);
  });

  it('retries exhausted: dead-lettered with the last error once the retry horizon has passed since the first attempt', async () => {
    stack.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    await stack.inject({ source: 'manual', target: DEMO_CLUSTER });
    const [record] = (await deadLetters()) as (DeadLetterRecord & { event: { firstAttemptAt: string } })[];
    expect(record).toMatchObject({ reason: 'retries_exhausted', error: { code: 'lb_transient_state' } });
    if (!record) throw new Error('no dead letter');
    expect(record.attempts).toBeGreaterThanOrEqual(3);
    expect(Date.parse(record.deadLetteredAt) - Date.parse(record.event.firstAttemptAt)).toBeGreaterThanOrEqual(RETRY_HORIZON_MS);
    expect(writes()).toEqual([]);
    stack.emulator.setLbStatus(DEMO_LB_ID, 'ready');
  });

  it('hold mode: an early event is held until due, a far-off one is re-enqueued unchanged', async () => {
    stack.emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    const due = Date.now() + 3_000; // beyond LBSYNC_MAX_HOLD_MS=2000: one hold, one hop, then due
    const event = JSON.stringify({
      version: 1,
      id: 'evt-later',
      source: 'manual',
      target: DEMO_CLUSTER,
      occurredAt: new Date().toISOString(),
      attempt: 1,
      notBefore: new Date(due).toISOString(),
    });
    await stack.events.send(stack.reconcileQueueUrl, event);
    await until('the new pool', samePool(NEW_POOL));
    await quiet();
    const [write] = writes();
    expect(write?.at).toBeGreaterThanOrEqual(due);
    expect(deliveries.map((d) => d.body)).toEqual([event, event]); // re-enqueued unchanged once
    expect(stack.emulator.calls()[0]?.at).toBeGreaterThanOrEqual(due); // no API call before it was due
  });

  it('hand-off failure: the function answers 5xx and the platform redelivers; nothing is lost', async () => {
    const sqs = new SQSClient({
      endpoint: stack.queue.endpoint,
      region: stack.queue.region,
      credentials: { accessKeyId: stack.queue.settings.accessKeyId, secretAccessKey: stack.queue.settings.secretAccessKey },
    });
    try {
      const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: stack.deadLetterQueueUrl, AttributeNames: ['All'] }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: stack.deadLetterQueueUrl }));
      await stack.events.send(stack.reconcileQueueUrl, 'not an event');
      await until('a 5xx answer', () => deliveries.some((d) => d.status === 500));
      await sqs.send(
        new CreateQueueCommand({
          QueueName: 'lbsync-dead-letter',
          Attributes: { MessageRetentionPeriod: attributes.Attributes?.MessageRetentionPeriod ?? '1209600' },
        }),
      );
      const [record] = await deadLetters();
      expect(record).toMatchObject({ reason: 'invalid_event', rawBody: 'not an event' });
      const forThisBody = deliveries.filter((d) => d.body === 'not an event');
      expect(forThisBody.map((d) => d.status)).toEqual([500, 200]);
      expect(forThisBody[1]?.attempt).toBe(2);
    } finally {
      sqs.destroy();
    }
  });
});
