// `lbsync dlq redrive` and `delete` settle a dead letter with its duplicates (one event sent, every copy deleted) and
// make every other message visible again at once, also when a step fails. The real bin against the local queue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalQueue } from '../../local/queue-server';
import type { EventQueue } from '../../shared/adapters/queue';
import { LbSyncError } from '../../shared/errors/lbsync-error';
import { deadLetterRecord } from '../../shared/handlers/dead-letter';
import { deadLetteredEvent, runDlq, startDeadLetterWorld } from './support';

const TWICE_DELETED = 'evt-d0d0d0d0-aaaa-4aaa-8aaa-000000000001';
const TWICE_REDRIVEN = 'evt-e1e1e1e1-bbbb-4bbb-8bbb-000000000002';
const KEPT = 'evt-f2f2f2f2-cccc-4ccc-8ccc-000000000003';

let localQueue: LocalQueue;
let queue: EventQueue;
let env: Record<string, string>;
let urls: { reconcileQueueUrl: string; deadLetterQueueUrl: string };

const dlq = (args: string[], extraEnv: Record<string, string> = {}) => runDlq(args, { ...env, ...extraEnv });

/** The event ids visible on the dead-letter queue now: what a command did not delete must be visible again at once. */
async function visibleNow(): Promise<string[]> {
  const messages = await queue.receive(urls.deadLetterQueueUrl, { maxMessages: 10, waitSeconds: 0, visibilityTimeoutSeconds: 1 });
  await Promise.all(messages.map((m) => queue.changeVisibility(urls.deadLetterQueueUrl, m.receiptHandle, 0)));
  return messages.map((m) => (JSON.parse(m.body) as { id: string }).id).sort();
}

beforeAll(async () => {
  ({ local: localQueue, queue, urls, env } = await startDeadLetterWorld('settle'));
  // A message delivered twice is dead-lettered twice: same event, same attempt, one recordId.
  for (const id of [TWICE_DELETED, TWICE_DELETED, TWICE_REDRIVEN, TWICE_REDRIVEN, KEPT])
    await queue.send(urls.deadLetterQueueUrl, deadLetteredEvent(id));
});
afterAll(async () => {
  await localQueue?.stop();
});

describe('lbsync dlq redrive and delete', () => {
  it('a redrive that cannot send deletes nothing and leaves every dead letter visible at once', async () => {
    const failed = await dlq(['redrive', '--id', TWICE_REDRIVEN], { RECONCILE_QUEUE_URL: `${urls.reconcileQueueUrl}-missing` });
    expect(failed.code).toBe(1);
    expect(await visibleNow()).toEqual([KEPT, TWICE_DELETED, TWICE_DELETED, TWICE_REDRIVEN, TWICE_REDRIVEN].sort());
  });

  it('delete takes a dead letter with its duplicate, and leaves the others visible at once', async () => {
    const deleted = await dlq(['delete', '--id', TWICE_DELETED, '--yes', '-o', 'json']);
    expect(deleted.code).toBe(0);
    expect(deleted.json()).toMatchObject({ ok: true, deleted: [{ id: TWICE_DELETED, duplicatesDeleted: 1 }], skipped: [] });
    expect(await visibleNow()).toEqual([KEPT, TWICE_REDRIVEN, TWICE_REDRIVEN].sort());
  });

  it('redrive sends the event once, takes its duplicate with it, and leaves the others visible at once', async () => {
    const redriven = await dlq(['redrive', '--id', TWICE_REDRIVEN, '-o', 'json']);
    expect(redriven.code).toBe(0);
    expect(redriven.json()).toMatchObject({ ok: true, redriven: [{ eventId: TWICE_REDRIVEN, duplicatesDeleted: 1 }], skipped: [] });
    const sent = await queue.receive(urls.reconcileQueueUrl, { maxMessages: 10, waitSeconds: 0 });
    expect(sent.map((m) => (JSON.parse(m.body) as { id: string; attempt: number }).attempt)).toEqual([0]);
    expect(await visibleNow()).toEqual([KEPT]);
  });
});

describe('lbsync dlq redrive: one event id for two targets is two events', () => {
  // inject takes any id its caller chooses, so two events for two targets may share one; only the same event (id,
  // target and body) delivered twice is a duplicate.
  const SHARED = 'evt-5a5a5a5a-dddd-4ddd-8ddd-000000000004';
  let world: Awaited<ReturnType<typeof startDeadLetterWorld>>;
  const eventFor = (target: string) => ({
    version: 1,
    id: SHARED,
    source: 'manual',
    target,
    occurredAt: '2026-11-29T10:00:00Z',
    attempt: 2,
  });
  const recordFor = (target: string) =>
    deadLetterRecord({
      reason: 'retries_exhausted',
      error: new LbSyncError('lb_transient_state', 'load-balancer is migrating'),
      event: eventFor(target),
      now: new Date('2026-11-29T10:30:00Z'),
    });

  beforeAll(async () => {
    world = await startDeadLetterWorld('same-id');
    // Records as the reconcile function writes them, one per target; then the same two as an older version keyed them,
    // by (event id, attempt) alone: the reader does not take the record's word for it. Then the raw events the queue
    // moved itself.
    for (const target of ['prod.k8s.local', 'staging.k8s.local']) {
      await world.queue.send(world.urls.deadLetterQueueUrl, JSON.stringify(recordFor(target)));
    }
    for (const target of ['prod-old.k8s.local', 'staging-old.k8s.local']) {
      await world.queue.send(
        world.urls.deadLetterQueueUrl,
        JSON.stringify({ ...recordFor(target), recordId: 'dl-keyed-by-id-and-attempt' }),
      );
    }
    for (const target of ['prod-raw.k8s.local', 'staging-raw.k8s.local']) {
      await world.queue.send(world.urls.deadLetterQueueUrl, JSON.stringify(eventFor(target)));
    }
  });
  afterAll(async () => {
    await world?.local.stop();
  });

  it('list marks none a duplicate, and redrive sends every one of them and deletes each once', async () => {
    const listed = await runDlq(['list', '-o', 'json'], world.env);
    const entries = (listed.json() as { entries: { target: string; recordId: string; duplicate_of?: string }[] }).entries;
    expect(entries).toHaveLength(6);
    expect(new Set(entries.map((e) => e.recordId)).size).toBe(6);
    expect(entries.filter((e) => e.duplicate_of)).toEqual([]);

    const redriven = await runDlq(['redrive', '--id', SHARED, '-o', 'json'], world.env);
    expect(redriven.code).toBe(0);
    const body = redriven.json() as { redriven: { target: string; duplicatesDeleted?: number }[] };
    expect(body.redriven.filter((r) => r.duplicatesDeleted)).toEqual([]);
    // Judged by the queues: each target's event is back on the reconcile queue, and the dead-letter queue is empty.
    const sent: string[] = [];
    for (let batch = await world.queue.receive(world.urls.reconcileQueueUrl, { maxMessages: 10, waitSeconds: 0 }); batch.length > 0; ) {
      sent.push(...batch.map((m) => (JSON.parse(m.body) as { id: string; target: string }).target));
      batch = await world.queue.receive(world.urls.reconcileQueueUrl, { maxMessages: 10, waitSeconds: 0 });
    }
    expect(sent.sort()).toEqual(
      [
        'prod.k8s.local',
        'staging.k8s.local',
        'prod-old.k8s.local',
        'staging-old.k8s.local',
        'prod-raw.k8s.local',
        'staging-raw.k8s.local',
      ].sort(),
    );
    expect(await world.queue.receive(world.urls.deadLetterQueueUrl, { maxMessages: 10, waitSeconds: 0 })).toEqual([]);
  });
});
