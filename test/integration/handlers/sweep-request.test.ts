// The sweep's spread against a real SQS-protocol queue: in hold mode (Scaleway: no DelaySeconds) every event
// is sent when due, never early, so no reconcile waits; in native mode all are sent at once and delayed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalQueue, type LocalQueue } from '../../../local/queue-server';
import { createEventQueue, type EventQueue } from '../../../shared/adapters/queue';
import { handleSweepRequest, type SweepReport } from '../../../shared/handlers/sweep-request';
import { createLogger } from '../../../shared/platform/log';
import { lineProblems } from '../../../shared/platform/log-schema';
import type { LbSyncEvent } from '../../../shared/schemas/event';
import { parseTargets } from '../../../shared/schemas/target';

let local: LocalQueue;
let queue: EventQueue;
let queues = 0;
const targets = parseTargets(Array.from({ length: 100 }, (_, i) => ({ kops: { cluster: `c${i}.k8s.local`, zone: 'fr-par-1' } })));
const logger = createLogger({ service: 'test', level: 'silent' });

beforeAll(async () => {
  local = await startLocalQueue({ port: 0 });
  queue = createEventQueue(local.settings);
});
afterAll(async () => {
  await local?.stop();
});

async function receiveAll(url: string, expected: number, waitSeconds = 0): Promise<{ event: LbSyncEvent; receivedAt: number }[]> {
  const got: { event: LbSyncEvent; receivedAt: number }[] = [];
  for (let round = 0; round < 40 && got.length < expected; round += 1) {
    const batch = await queue.receive(url, { maxMessages: 10, waitSeconds });
    for (const m of batch) {
      got.push({ event: JSON.parse(m.body) as LbSyncEvent, receivedAt: Date.now() });
      await queue.delete(url, m.receiptHandle);
    }
  }
  return got;
}

describe('sweep spread over its interval', () => {
  it('hold mode: each batch is sent when its events are due (virtual clock), so none arrives early', async () => {
    const url = await queue.createQueue(`spread-${process.pid}-${++queues}`, {});
    let clock = Date.UTC(2026, 10, 29, 10, 0, 0);
    const start = clock;
    const sends: { at: number; bodies: string[] }[] = [];
    const recording: EventQueue = {
      ...queue,
      sendBatch: async (u, entries) => {
        sends.push({ at: clock, bodies: entries.map((e) => e.body) });
        return queue.sendBatch(u, entries);
      },
    };
    const answer = await handleSweepRequest('{}', {
      targets,
      queue: () => recording,
      reconcileQueueUrl: url,
      logger,
      spreadMs: 300_000,
      delayMode: 'hold',
      now: () => new Date(clock),
      sleep: async (ms) => {
        clock += ms;
      },
    });
    const report = JSON.parse(answer.body) as SweepReport;
    expect(answer.statusCode).toBe(200);
    expect(report).toMatchObject({ selected: 100, enqueued: 100, failed: [], spreadMs: 300_000, sending: 'paced' });
    // 100 targets over 300 s, one per 3 s slot: mostly one per send (two when jitter puts neighbours within 1 s).
    expect(report.batches).toBeGreaterThanOrEqual(50);
    expect(report.batches).toBe(sends.length);
    for (const send of sends) {
      for (const body of send.bodies) {
        const due = Date.parse((JSON.parse(body) as LbSyncEvent).notBefore as string);
        expect(send.at).toBeGreaterThanOrEqual(due);
        expect(send.at - due).toBeLessThanOrEqual(1_000);
        expect(due - start).toBeGreaterThanOrEqual(0);
        expect(due - start).toBeLessThan(300_000);
      }
    }
    const queued = await receiveAll(url, 100);
    expect(queued).toHaveLength(100);
    expect(queued.every(({ event }) => event.source === 'sweep' && event.attempt === 0 && event.notBefore !== undefined)).toBe(true);
    expect(new Set(queued.map(({ event }) => event.target)).size).toBe(100);
  });

  it('hold mode, dense: 2,000 targets over 60 s go out 10 per SendMessageBatch', async () => {
    const many = parseTargets(Array.from({ length: 2_000 }, (_, i) => ({ kops: { cluster: `c${i}.k8s.local`, zone: 'fr-par-1' } })));
    const url = await queue.createQueue(`spread-${process.pid}-${++queues}`, {});
    let clock = 0;
    const answer = await handleSweepRequest('{"spreadSeconds":60}', {
      targets: many,
      queue: () => queue,
      reconcileQueueUrl: url,
      logger,
      spreadMs: 300_000,
      delayMode: 'hold',
      now: () => new Date(clock),
      sleep: async (ms) => {
        clock += ms;
      },
    });
    // The args' spreadSeconds wins over the configured spread: 2000 targets over 60 s, 30 ms apart.
    expect(JSON.parse(answer.body)).toMatchObject({ enqueued: 2_000, batches: 200, spreadMs: 60_000 });
    expect(clock).toBeLessThan(60_000);
    expect(clock).toBeGreaterThan(59_000);
  });

  it('native mode: everything sent at once, each message delayed until due (DelaySeconds)', async () => {
    const url = await queue.createQueue(`spread-${process.pid}-${++queues}`, {});
    const few = targets.slice(0, 12);
    const sentAt = Date.now();
    const answer = await handleSweepRequest('{"spreadSeconds":3}', {
      targets: few,
      queue: () => queue,
      reconcileQueueUrl: url,
      logger,
      delayMode: 'native',
    });
    expect(JSON.parse(answer.body)).toMatchObject({ enqueued: 12, batches: 2, sending: 'delayed', spreadMs: 3_000 });
    expect(Date.now() - sentAt).toBeLessThan(3_000);
    const received = await receiveAll(url, 12, 1);
    expect(received).toHaveLength(12);
    for (const { event, receivedAt } of received) expect(receivedAt).toBeGreaterThanOrEqual(Date.parse(event.notBefore as string));
  });

  it("a spread of 0 sends everything at once without notBefore (the CLI's and the local stack's default)", async () => {
    const url = await queue.createQueue(`spread-${process.pid}-${++queues}`, {});
    const answer = await handleSweepRequest('{}', {
      targets: targets.slice(0, 15),
      queue: () => queue,
      reconcileQueueUrl: url,
      logger,
      spreadMs: 0,
    });
    expect(JSON.parse(answer.body)).toMatchObject({ enqueued: 15, batches: 2, sending: 'all-at-once' });
    const queued = await receiveAll(url, 15);
    expect(queued.every(({ event }) => event.notBefore === undefined)).toBe(true);
  });

  it('spreadSeconds outside 0..900 is a 400 naming the field', async () => {
    const answer = await handleSweepRequest('{"spreadSeconds":901}', { targets, queue: () => queue, reconcileQueueUrl: 'unused', logger });
    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ errors: [{ path: 'args.spreadSeconds' }] });
  });
});

describe('the heartbeat: one line per run (shared/platform/log-schema.ts)', () => {
  const capturing = () => {
    const lines: string[] = [];
    return { lines, logger: createLogger({ service: 'test', destination: { write: (line: string) => void lines.push(line) } }) };
  };
  const heartbeats = (lines: string[]) =>
    lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.log_type === 'sweep_heartbeat');

  it('ok: the counts and the window the events are due in', async () => {
    const url = await queue.createQueue(`spread-${process.pid}-${++queues}`, {});
    const { lines, logger: log } = capturing();
    const start = Date.UTC(2026, 10, 29, 10, 0, 0);
    await handleSweepRequest('{"spreadSeconds":3}', {
      targets: targets.slice(0, 12),
      queue: () => queue,
      reconcileQueueUrl: url,
      logger: log,
      delayMode: 'native',
      now: () => new Date(start),
    });
    expect(heartbeats(lines)).toEqual([
      expect.objectContaining({
        level: 'INFO',
        status: 'ok',
        targets_selected: 12,
        targets_enqueued: 12,
        targets_failed: 0,
        batches: 2,
        sending: 'delayed',
        window_from: '2026-11-29T10:00:00.000Z',
        window_to: '2026-11-29T10:00:03.000Z',
        dry_run: false,
      }),
    ]);
    expect(lines.flatMap(lineProblems)).toEqual([]);
  });

  it("carries both queues' depths at its end, as GetQueueAttributes counts them (the backlog and dead-letter alerts read them)", async () => {
    const url = await queue.createQueue(`depths-${process.pid}-${++queues}`, {});
    const dead = await queue.createQueue(`depths-dl-${process.pid}-${++queues}`, {});
    for (const body of ['{"a":1}', '{"b":2}']) await queue.send(dead, body);
    const { lines, logger: log } = capturing();
    await handleSweepRequest('{}', {
      targets: targets.slice(0, 3),
      queue: () => queue,
      reconcileQueueUrl: url,
      deadLetterQueueUrl: dead,
      logger: log,
    });
    expect(heartbeats(lines)).toEqual([
      expect.objectContaining({
        status: 'ok',
        reconcile_queue_waiting: 3,
        reconcile_queue_in_flight: 0,
        dead_letters_waiting: 2,
        dead_letters_in_flight: 0,
      }),
    ]);
    expect(lines.flatMap(lineProblems)).toEqual([]);
  });

  it('failed: the queue cannot be reached, status failed with queue_unavailable', async () => {
    const { lines, logger: log } = capturing();
    const answer = await handleSweepRequest('{"dryRun":true}', {
      targets: targets.slice(0, 3),
      queue: () => queue,
      reconcileQueueUrl: `${local.endpoint}/000000000000/no-such-queue`,
      logger: log,
    });
    expect(answer.statusCode).toBeGreaterThanOrEqual(500);
    expect(heartbeats(lines)).toEqual([
      expect.objectContaining({ level: 'ERROR', status: 'failed', code: 'queue_unavailable', targets_enqueued: 0, dry_run: true }),
    ]);
    expect(lines.flatMap(lineProblems)).toEqual([]);
  });
});
