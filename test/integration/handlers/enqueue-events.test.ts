// The one way onto the reconcile queue (shared/handlers/enqueue-events.ts), against a real SQS-protocol queue: what
// the queue holds is the evidence. Then the one failure mapping, through each function that makes events (inject,
// sweep, watch): a queue out of reach and a queue that refuses the events both answer 503 queue_unavailable.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../../emulator';
import { startEmulator } from '../../../emulator';
import { startLocalQueue, type LocalQueue } from '../../../local/queue-server';
import { createAuditTrailGateway } from '../../../shared/adapters/audit-trail';
import { createEventQueue, type EventQueue } from '../../../shared/adapters/queue';
import { ENQUEUE_FAILURE_STATUS, enqueueEvents, newEvent } from '../../../shared/handlers/enqueue-events';
import { handleInjectRequest } from '../../../shared/handlers/inject-request';
import { handleSweepRequest } from '../../../shared/handlers/sweep-request';
import { handleWatchRequest } from '../../../shared/handlers/watch-request';
import { createLogger } from '../../../shared/platform/log';
import { lineProblems } from '../../../shared/platform/log-schema';
import { LBSYNC_USER_AGENT_MARKER } from '../../../shared/outbound/user-agent';
import type { LbSyncEvent } from '../../../shared/schemas/event';
import { parseTargets } from '../../../shared/schemas/target';
import { DEMO_CLUSTER, demoSeed, FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../../support/world';

const PROJECT = '23b8c1e9-3924-46de-beb1-3b9046685257'; // the demo seed's project and organization
const DEMO_CP_TAGS = ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'];
const targets = parseTargets([
  { kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } },
  { kops: { cluster: 'other.k8s.local', zone: 'fr-par-1' } },
]);

let emulator: EmulatorHandle;
let local: LocalQueue;
let queue: EventQueue;
let queues = 0;

beforeAll(async () => {
  emulator = await startEmulator({ seed: demoSeed(), auditTrailDelayMs: 0, instancePendingMs: 0 });
  local = await startLocalQueue({ port: 0 });
  queue = createEventQueue(local.settings);
});
afterAll(async () => {
  await local?.stop();
  await emulator?.stop();
});
beforeEach(() => {
  emulator.loadSeed(demoSeed());
  emulator.auditTrail.clear();
});

const fresh = (name: string, attributes: Record<string, string> = {}) =>
  queue.createQueue(`${name}-${process.pid}-${++queues}${attributes.FifoQueue ? '.fifo' : ''}`, attributes);

async function drain(url: string): Promise<LbSyncEvent[]> {
  const events: LbSyncEvent[] = [];
  for (;;) {
    const batch = await queue.receive(url, { maxMessages: 10, waitSeconds: 0 });
    if (batch.length === 0) return events;
    for (const m of batch) {
      events.push(JSON.parse(m.body) as LbSyncEvent);
      await queue.delete(url, m.receiptHandle);
    }
  }
}

const event = (target: string) => newEvent({ source: 'manual', target, occurredAt: '2026-11-29T10:00:00.000Z' });

describe('enqueueEvents', () => {
  it('hands every event over, 10 per SendMessageBatch call, and says which it sent', async () => {
    const url = await fresh('all');
    const events = Array.from({ length: 12 }, (_, i) => event(`c${i}.k8s.local`));
    const enqueued = await enqueueEvents(
      { queue: () => queue, reconcileQueueUrl: url },
      events.map((e) => ({ event: e })),
    );
    expect(enqueued).toEqual({ sent: events, calls: 2 });
    expect((await drain(url)).sort((a, b) => a.id.localeCompare(b.id))).toEqual([...events].sort((a, b) => a.id.localeCompare(b.id)));
  });

  it('a system event: version 1, a new id, the first attempt', () => {
    const made = newEvent({ source: 'sweep', target: 't', occurredAt: '2026-11-29T10:00:00.000Z', dryRun: true });
    expect(made).toEqual({
      version: 1,
      id: expect.stringMatching(/^evt-/),
      source: 'sweep',
      target: 't',
      occurredAt: '2026-11-29T10:00:00.000Z',
      attempt: 0,
      dryRun: true,
    });
    expect(newEvent({ source: 'sweep', target: 't', occurredAt: made.occurredAt }).id).not.toBe(made.id);
  });

  it('what the queue refuses comes back named by target (a refusal, not a queue out of reach); the rest is sent', async () => {
    const url = await fresh('small', { MaximumMessageSize: '1024' });
    const fits = event('fits.k8s.local');
    const tooBig = event(`${'x'.repeat(1100)}.k8s.local`);
    const enqueued = await enqueueEvents({ queue: () => queue, reconcileQueueUrl: url }, [{ event: tooBig }, { event: fits }]);
    expect(enqueued.sent).toEqual([fits]);
    expect(enqueued.calls).toBe(1);
    expect(enqueued.failure).toMatchObject({
      code: 'queue_unavailable',
      message: 'the queue refused 1 event(s)',
      failed: [{ target: tooBig.target, code: 'InvalidParameterValue', message: expect.stringContaining('1024') }],
      unreachable: false,
    });
    expect(await drain(url)).toEqual([fits]);
  });

  it('a queue out of reach never throws: the failure says so, with what was thrown for the log', async () => {
    const enqueued = await enqueueEvents({ queue: () => queue, reconcileQueueUrl: `${local.endpoint}/000000000000/no-such-queue` }, [
      { event: event('a.k8s.local') },
    ]);
    expect(enqueued.sent).toEqual([]);
    expect(enqueued.failure).toMatchObject({ code: 'queue_unavailable', failed: [], unreachable: true });
    expect(enqueued.failure?.error).toMatchObject({ code: 'queue_unavailable', operation: 'SendMessageBatch' });
  });

  it('nothing to send: the queue client is not even made', async () => {
    const enqueued = await enqueueEvents(
      {
        queue: () => {
          throw new Error('the queue client was made for nothing');
        },
        reconcileQueueUrl: 'unused',
      },
      [],
    );
    expect(enqueued).toEqual({ sent: [], calls: 0 });
  });
});

describe('one failure mapping for every function that enqueues', () => {
  const capturing = () => {
    const lines: string[] = [];
    return { lines, logger: createLogger({ service: 'test', destination: { write: (line: string) => void lines.push(line) } }) };
  };
  /** Each function made to enqueue something for the targets, against the queue given; its answer and log lines. */
  const functions = {
    inject: async (reconcileQueueUrl: string) => {
      const { lines, logger } = capturing();
      const answer = await handleInjectRequest(
        {
          httpMethod: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ version: 1, source: 'manual', target: DEMO_CLUSTER }),
        },
        { targets: new Map(targets.map((t) => [t.name, t])), queue: () => queue, reconcileQueueUrl, insecure: true, logger },
      );
      return { answer, lines };
    },
    sweep: async (reconcileQueueUrl: string) => {
      const { lines, logger } = capturing();
      const answer = await handleSweepRequest('{}', { targets, queue: () => queue, reconcileQueueUrl, logger });
      return { answer, lines };
    },
    watch: async (reconcileQueueUrl: string) => {
      // A control plane created with its tags: Audit Trail records it, so the watcher names the demo cluster.
      emulator.upsertServer({ name: 'control-plane-fr-par-1-3', zone: 'fr-par-1', publicIps: ['51.15.100.14'], tags: DEMO_CP_TAGS });
      const { lines, logger } = capturing();
      const answer = await handleWatchRequest('{}', {
        targets,
        auditTrail: () =>
          createAuditTrailGateway({
            accessKey: FAKE_ACCESS_KEY,
            secretKey: FAKE_SECRET_KEY,
            apiUrl: emulator.url,
            organizationId: PROJECT,
          }),
        organizationId: PROJECT,
        queue: () => queue,
        reconcileQueueUrl,
        window: { periodMs: 60_000, overlapMs: 120_000 },
        own: { userAgentMarker: LBSYNC_USER_AGENT_MARKER, principalIds: new Set() },
        projectId: PROJECT,
        logger,
        now: () => new Date(Date.now() + 1_000),
      });
      return { answer, lines };
    },
  };
  const failedLines = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 'ERROR');

  it.each(Object.keys(functions) as (keyof typeof functions)[])(
    '%s: a queue out of reach answers 503 queue_unavailable, and logs it as an ERROR',
    async (name) => {
      const { answer, lines } = await functions[name](`${local.endpoint}/000000000000/no-such-queue`);
      expect(answer.statusCode).toBe(ENQUEUE_FAILURE_STATUS);
      expect(answer.statusCode).toBe(503);
      const body = JSON.parse(answer.body) as { error: string; message: string };
      expect(body).toMatchObject({
        error: 'queue_unavailable',
        message: expect.stringMatching(/^queue SendMessageBatch on no-such-queue failed/),
      });
      expect(failedLines(lines)).toHaveLength(1);
      expect(lines.flatMap(lineProblems)).toEqual([]);
    },
  );

  it.each(Object.keys(functions) as (keyof typeof functions)[])(
    '%s: a queue that refuses the events answers 503 queue_unavailable naming them, and logs it as an ERROR',
    async (name) => {
      // A FIFO queue refuses every message sent without a MessageGroupId (recorded by the local queue as by SQS).
      const url = await fresh(`refusing-${name}`, { FifoQueue: 'true' });
      const { answer, lines } = await functions[name](url);
      expect(answer.statusCode).toBe(503);
      const body = JSON.parse(answer.body) as { error: string; message: string; failed: { target: string; code: string }[] };
      expect(body.error).toBe('queue_unavailable');
      expect(body.message).toMatch(/^the queue refused \d+ event\(s\)$/);
      expect(body.failed.length).toBeGreaterThan(0);
      expect(body.failed.every((f) => f.code === 'MissingParameter')).toBe(true);
      expect(body.failed.map((f) => f.target)).toContain(DEMO_CLUSTER);
      expect(failedLines(lines)).toHaveLength(1);
      expect(lines.flatMap(lineProblems)).toEqual([]);
    },
  );
});
