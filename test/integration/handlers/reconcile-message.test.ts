// The reconcile handler carries out what shared/core/disposition.ts decides: it holds an early event, sends it
// back, retries with backoff (DelaySeconds in native mode), dead-letters, answers. And an invocation stops
// working at its deadline (function timeout minus a margin) and hands the event on, instead of being killed
// mid-way by the platform: the hold, the transient wait, the wait for a write to apply and each API request are
// clipped to it. The clock is injected (a sleep advances it), so the figures below are exact; the real SDK
// talks to the emulator, the real SQS client to the local queue.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLocalQueue, type LocalQueue } from '../../../local/queue-server';
import { createEventQueue, type EventQueue } from '../../../shared/adapters/queue';
import { provisionQueues } from '../../../cli/adapters/queue-provisioning';
import { createScalewayGateway } from '../../../shared/adapters/scaleway';
import { validationError } from '../../../shared/errors/lbsync-error';
import { handleReconcileMessage } from '../../../shared/handlers/reconcile-message';
import { runtimeConfigFromEnv } from '../../../shared/platform/config';
import type { Deadline } from '../../../shared/platform/deadline';
import { createLogger } from '../../../shared/platform/log';
import { lineProblems } from '../../../shared/platform/log-schema';
import type { Target } from '../../../shared/schemas/target';
import type { World } from '../../support/world';
import { DEMO_CLUSTER, DEMO_LB_ID, FAKE_ACCESS_KEY, FAKE_SECRET_KEY, demoTarget, startWorld } from '../../support/world';

let localQueue: LocalQueue;
let queue: EventQueue;
let urls: { reconcileQueueUrl: string; deadLetterQueueUrl: string };
let world: World;

beforeAll(async () => {
  localQueue = await startLocalQueue();
  queue = createEventQueue(localQueue.settings);
  urls = await provisionQueues(queue, {
    reconcileQueueName: 'deadline-reconcile',
    deadLetterQueueName: 'deadline-dead-letter',
    functionTimeoutSeconds: 30,
  });
});
afterAll(async () => {
  await localQueue?.stop();
});
beforeEach(async () => {
  world = await startWorld({ instancePendingMs: 600_000 }); // a write stays "pending" longer than any test waits
});
afterEach(async () => {
  await world.stop();
  await queue.purge(urls.reconcileQueueUrl);
});

const T0 = Date.parse('2026-11-29T10:00:00Z');

/** A fake clock: sleeping advances it, nothing else does. */
function fakeClock() {
  let t = T0;
  const slept: number[] = [];
  return {
    now: () => new Date(t),
    sleep: async (ms: number) => {
      slept.push(ms);
      t += ms;
      await new Promise((r) => setImmediate(r));
    },
    slept,
    total: () => slept.reduce((a, b) => a + b, 0),
    /** Time passing outside the function: a retry waiting on the queue until due. */
    advanceTo: (at: number) => {
      t = Math.max(t, at);
    },
  };
}

function deps(clock: ReturnType<typeof fakeClock>, env: Record<string, string>) {
  const remaining: number[] = [];
  return {
    remaining,
    deps: {
      targets: new Map([[DEMO_CLUSTER, demoTarget()]]),
      gateway: (_target: Target, { deadline }: { deadline: Deadline }) =>
        createScalewayGateway({
          accessKey: FAKE_ACCESS_KEY,
          secretKey: FAKE_SECRET_KEY,
          apiUrl: world.emulator.url,
          defaultZone: 'fr-par-1',
          requestTimeoutMs: 10_000,
          remainingMs: () => {
            const ms = deadline.remainingMs();
            remaining.push(ms);
            return ms;
          },
        }),
      queues: { client: () => queue, ...urls },
      runtime: runtimeConfigFromEnv(env),
      logger: createLogger({ service: 'deadline-test', level: 'silent' }),
      clock: { now: () => clock.now().getTime(), sleep: clock.sleep },
      random: () => 0.5,
    },
  };
}

/** The handler's dependencies, with a logger that keeps every line it writes. */
function withLines() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: 'test',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { lines, logger, deps: deps(fakeClock(), {}).deps };
}

const event = (patch: Record<string, unknown> = {}) =>
  JSON.stringify({
    version: 1,
    id: 'evt-deadline',
    source: 'manual',
    target: DEMO_CLUSTER,
    occurredAt: new Date(T0).toISOString(),
    ...patch,
  });

async function messageCounts(url = urls.reconcileQueueUrl) {
  const attributes = await queue.attributes(url);
  return { visible: Number(attributes.ApproximateNumberOfMessages), delayed: Number(attributes.ApproximateNumberOfMessagesDelayed) };
}

async function queued(): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const batch = await queue.receive(urls.reconcileQueueUrl, { maxMessages: 10, waitSeconds: 0 });
    if (batch.length === 0) return out;
    for (const m of batch) {
      out.push(m.body);
      await queue.delete(urls.reconcileQueueUrl, m.receiptHandle);
    }
  }
}

describe('carrying out the disposition', () => {
  it('an early event within the hold: held exactly until due, then reconciled in this invocation', async () => {
    const clock = fakeClock();
    const body = event({ dryRun: true, notBefore: new Date(T0 + 3_000).toISOString() });
    const answer = JSON.parse((await handleReconcileMessage(body, deps(clock, {}).deps)).body) as { outcome: string };
    expect(clock.slept[0]).toBe(3_000);
    expect(answer.outcome).toBe('dry_run'); // a dry run: planned, nothing written
    expect(world.emulator.calls().length).toBeGreaterThan(0);
    expect(world.writes()).toEqual([]);
    expect(await messageCounts()).toEqual({ visible: 0, delayed: 0 });
  });

  it('an early event beyond LBSYNC_MAX_HOLD_MS: held that long, then sent back byte for byte, nothing read', async () => {
    const clock = fakeClock();
    const body = `${event({ notBefore: new Date(T0 + 50_000).toISOString() })}\n`; // a trailing newline: sent back as it came
    const answer = JSON.parse((await handleReconcileMessage(body, deps(clock, { LBSYNC_MAX_HOLD_MS: '20000' }).deps)).body) as Record<
      string,
      unknown
    >;
    expect(clock.slept).toEqual([20_000]);
    expect(answer).toEqual({ outcome: 'retry_scheduled', target: DEMO_CLUSTER, eventId: 'evt-deadline', attempt: 0, retryInMs: 30_000 });
    expect(world.emulator.calls()).toEqual([]);
    expect(await queued()).toEqual([body]);
  });

  it('hold mode: a retry is a copy with attempt + 1 and notBefore, visible at once (no DelaySeconds)', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    const clock = fakeClock();
    const env = { LBSYNC_TRANSIENT_WAIT_MS: '0', LBSYNC_RETRY_BASE_MS: '600000', LBSYNC_RETRY_CAP_MS: '600000' };
    const answer = JSON.parse((await handleReconcileMessage(event(), deps(clock, env).deps)).body) as {
      outcome: string;
      retryInMs: number;
    };
    expect(answer).toMatchObject({ outcome: 'retry_scheduled', retryInMs: 450_000 }); // half of base * 2^0, + the other half * draw 0.5
    expect(await messageCounts()).toEqual({ visible: 1, delayed: 0 });
    const [next] = await queued();
    expect(JSON.parse(next as string)).toMatchObject({
      id: 'evt-deadline',
      attempt: 1,
      firstAttemptAt: new Date(T0).toISOString(),
      notBefore: new Date(T0 + 450_000).toISOString(),
    });
  });

  it('native mode: the same retry, held by the queue itself (DelaySeconds)', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    const clock = fakeClock();
    const env = {
      QUEUE_DELAY_MODE: 'native',
      LBSYNC_TRANSIENT_WAIT_MS: '0',
      LBSYNC_RETRY_BASE_MS: '600000',
      LBSYNC_RETRY_CAP_MS: '600000',
    };
    const answer = JSON.parse((await handleReconcileMessage(event(), deps(clock, env).deps)).body) as {
      outcome: string;
      retryInMs: number;
    };
    expect(answer).toMatchObject({ outcome: 'retry_scheduled', retryInMs: 450_000 });
    expect(await messageCounts()).toEqual({ visible: 0, delayed: 1 });
  });

  it('a permanent failure: one dead letter, nothing sent back', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'locked');
    const clock = fakeClock();
    const answer = JSON.parse((await handleReconcileMessage(event(), deps(clock, {}).deps)).body) as Record<string, unknown>;
    expect(answer).toMatchObject({ outcome: 'dead_lettered', reason: 'permanent_error', error: { code: 'lb_not_ready' } });
    expect(await messageCounts()).toEqual({ visible: 0, delayed: 0 });
    const [letter] = await queue.receive(urls.deadLetterQueueUrl, { maxMessages: 10 });
    expect(JSON.parse(letter?.body as string)).toMatchObject({
      kind: 'lbsync.dead-letter',
      reason: 'permanent_error',
      eventId: 'evt-deadline',
    });
    await queue.purge(urls.deadLetterQueueUrl);
  });

  it("a hand-off that fails answers 500 (the platform redelivers) and logs the error in Powertools' shape", async () => {
    const { lines, logger, deps: d } = withLines();
    const response = await handleReconcileMessage(event({ target: 'nowhere' }), {
      ...d,
      logger,
      queues: { ...d.queues, deadLetterQueueUrl: `${urls.deadLetterQueueUrl}-missing` },
    });
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toMatchObject({ outcome: 'handoff_failed', error: { code: 'queue_unavailable' } });
    const failure = lines.find((l) => l.level === 'ERROR');
    // The message's final line: what Cockpit's hand-off alert counts.
    expect(failure).toMatchObject({ log_type: 'reconcile_answer', outcome: 'handoff_failed', code: 'queue_unavailable' });
    expect(lines.flatMap((l) => lineProblems(JSON.stringify(l)))).toEqual([]);
    expect(failure?.error).toMatchObject({
      name: 'QueueHandOffError',
      code: 'queue_unavailable',
      operation: 'SendMessage',
      location: expect.stringMatching(/:\d+$/),
      stack: expect.any(String),
    });
  });

  it('a configuration refused while the gateway is made is no hand-off: it leaves as itself (invalid_config), for the shell to answer 500', async () => {
    const { lines, logger, deps: d } = withLines();
    const refused = validationError('invalid_config', 'environment', [
      { path: 'LBSYNC_SCW_SECRET_KEY', message: 'is not set', fix: 'set LBSYNC_SCW_SECRET_KEY' },
    ]);
    const handled = handleReconcileMessage(event(), {
      ...d,
      logger,
      gateway: () => {
        throw refused;
      },
    });
    await expect(handled).rejects.toBe(refused);
    expect(lines.filter((l) => l.outcome === 'handoff_failed' || /hand-off/.test(String(l.message)))).toEqual([]);
    // Nothing was handed on either way: the message is neither sent back nor dead-lettered (the platform redelivers it).
    expect(await messageCounts()).toEqual({ visible: 0, delayed: 0 });
    expect(await messageCounts(urls.deadLetterQueueUrl)).toEqual({ visible: 0, delayed: 0 });
  });
});

describe('the invocation deadline', () => {
  it('the hold of an early event is clipped: held until the deadline, then re-enqueued unchanged', async () => {
    const clock = fakeClock();
    const body = event({ attempt: 1, notBefore: new Date(T0 + 40_000).toISOString() });
    const { deps: d } = deps(clock, {
      LBSYNC_FUNCTION_TIMEOUT_MS: '30000',
      LBSYNC_DEADLINE_MARGIN_MS: '5000',
      LBSYNC_MAX_HOLD_MS: '60000',
      LBSYNC_RETRY_CAP_MS: '120000',
    });
    const answer = JSON.parse((await handleReconcileMessage(body, d)).body) as { outcome: string; retryInMs: number };
    expect(clock.slept).toEqual([25_000]); // not the 40 s it asked for, nor the 60 s hold allowed
    expect(answer).toMatchObject({ outcome: 'retry_scheduled', retryInMs: 15_000 });
    expect(await queued()).toEqual([body]);
    expect(world.emulator.calls()).toEqual([]);
  });

  it('the wait for an LB in a transient state is clipped, then the event is retried', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    const clock = fakeClock();
    const { deps: d } = deps(clock, {
      LBSYNC_FUNCTION_TIMEOUT_MS: '20000',
      LBSYNC_DEADLINE_MARGIN_MS: '4000',
      LBSYNC_TRANSIENT_WAIT_MS: '60000',
    });
    const answer = JSON.parse((await handleReconcileMessage(event(), d)).body) as { outcome: string; error: { code: string } };
    expect(answer).toMatchObject({ outcome: 'retry_scheduled', error: { code: 'lb_transient_state' } });
    expect(clock.total()).toBe(16_000); // exactly up to the deadline, not the 60 s transient wait
    expect(world.writes()).toEqual([]);
    const [next] = await queued();
    expect(JSON.parse(next as string)).toMatchObject({ id: 'evt-deadline', attempt: 1 });
  });

  it('the wait for a write to apply is clipped, then the event is retried (the next attempt re-reads)', async () => {
    const clock = fakeClock();
    const { deps: d } = deps(clock, {
      LBSYNC_FUNCTION_TIMEOUT_MS: '20000',
      LBSYNC_DEADLINE_MARGIN_MS: '4000',
      LBSYNC_WAIT_BUDGET_MS: '60000',
    });
    const answer = JSON.parse((await handleReconcileMessage(event(), d)).body) as {
      outcome: string;
      actions: string[];
      error: { code: string; message: string };
    };
    expect(answer).toMatchObject({ outcome: 'retry_scheduled', actions: ['CreateBackend'], error: { code: 'apply_timeout' } });
    expect(answer.error.message).toContain('not ready after 16000 ms');
    expect(clock.total()).toBe(16_000);
    expect(world.writes()).toEqual(['CreateBackend']);
  });

  it('each request is clipped to what is left: a hanging API call ends at the deadline, not after the request timeout', async () => {
    world.emulator.addFault({ operation: 'ListLbs', hang: true });
    const clock = fakeClock();
    // 10 s request timeout, but only 400 ms left in the invocation.
    const { deps: d, remaining } = deps(clock, { LBSYNC_FUNCTION_TIMEOUT_MS: '5000', LBSYNC_DEADLINE_MARGIN_MS: '4600' });
    const answer = JSON.parse((await handleReconcileMessage(event(), d)).body) as {
      outcome: string;
      error: { code: string; message: string };
    };
    expect(answer).toMatchObject({ outcome: 'retry_scheduled', error: { code: 'network_error' } });
    expect(answer.error.message).toMatch(/request timed out/);
    expect(Math.max(...remaining)).toBe(400);
    expect(await queued()).toHaveLength(1);
  });

  it('an event due exactly at the deadline: held until then, no request made past it, re-enqueued as a retry', async () => {
    const clock = fakeClock();
    const body = event({ attempt: 2, notBefore: new Date(T0 + 16_000).toISOString() });
    const { deps: d } = deps(clock, {
      LBSYNC_FUNCTION_TIMEOUT_MS: '20000',
      LBSYNC_DEADLINE_MARGIN_MS: '4000',
      LBSYNC_RETRY_CAP_MS: '60000',
    });
    const answer = JSON.parse((await handleReconcileMessage(body, d)).body) as { outcome: string; error: { code: string } };
    expect(clock.slept[0]).toBe(16_000);
    expect(answer).toMatchObject({ outcome: 'retry_scheduled', error: { code: 'network_error' } });
    expect(world.emulator.calls()).toEqual([]);
    const [next] = await queued();
    expect(JSON.parse(next as string)).toMatchObject({ attempt: 3 });
  });

  it('without a deadline problem nothing changes: a whole reconcile within the budget is applied', async () => {
    await world.stop();
    // No pending window: the fake clock's polls take no real time, so a real-time window could outlast them.
    world = await startWorld({ instancePendingMs: 0 });
    const clock = fakeClock();
    const { deps: d } = deps(clock, { LBSYNC_FUNCTION_TIMEOUT_MS: '60000' });
    const answer = JSON.parse((await handleReconcileMessage(event(), d)).body) as { outcome: string };
    expect(answer.outcome).toBe('applied');
  });
});

describe('retried by time, not by count: an LB merely busy never dead-letters a valid event', () => {
  /**
   * Delivers the event, then each retry the handler sends back once it is due (the clock moves to its notBefore), until
   * a final answer, with the deployed retry settings. The LB is migrating until the clock passes busyMs.
   */
  async function whileBusy(busyMs: number, random: () => number) {
    await world.stop();
    world = await startWorld({ instancePendingMs: 0 });
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    const clock = fakeClock();
    const { deps: d } = deps(clock, { LBSYNC_TRANSIENT_WAIT_MS: '0' });
    const answers: { outcome: string; attempt: number; reason?: string; at: number }[] = [];
    const sent: { attempt: number; firstAttemptAt?: string; notBefore?: string }[] = [];
    let body = event();
    for (let delivery = 0; delivery < 100; delivery += 1) {
      if (clock.now().getTime() - T0 >= busyMs) world.emulator.setLbStatus(DEMO_LB_ID, 'ready');
      const answer = JSON.parse((await handleReconcileMessage(body, { ...d, random })).body) as { outcome: string; attempt: number };
      answers.push({ ...answer, at: clock.now().getTime() - T0 });
      if (answer.outcome !== 'retry_scheduled') return { answers, sent, runtime: d.runtime };
      const [next] = await queued();
      body = next as string;
      const retry = JSON.parse(body) as (typeof sent)[number];
      sent.push(retry);
      clock.advanceTo(Date.parse(retry.notBefore as string));
    }
    throw new Error('no final answer after 100 deliveries');
  }

  for (const [draws, random] of [
    ['always 0', () => 0],
    ['always ~1', () => 0.999_999],
  ] as const) {
    it(`an LB busy 100 s (draws ${draws}): retried until it is free, then applied; firstAttemptAt stamped once, carried unchanged`, async () => {
      const { answers, sent } = await whileBusy(100_000, random);
      expect(answers.at(-1)).toMatchObject({ outcome: 'applied' });
      expect(answers.at(-1)?.at).toBeGreaterThanOrEqual(100_000);
      expect(answers.slice(0, -1).every((a) => a.outcome === 'retry_scheduled')).toBe(true);
      expect(sent.map((r) => r.attempt)).toEqual(sent.map((_, i) => i + 1));
      expect(new Set(sent.map((r) => r.firstAttemptAt))).toEqual(new Set([new Date(T0).toISOString()]));
      expect(await queue.receive(urls.deadLetterQueueUrl, { maxMessages: 10, waitSeconds: 0 })).toEqual([]);
    });

    it(`an LB busy 31 minutes (draws ${draws}): dead-lettered retries_exhausted by an attempt at the 30-minute horizon`, async () => {
      const { answers, runtime } = await whileBusy(31 * 60_000, random);
      const last = answers.at(-1);
      expect(last).toMatchObject({ outcome: 'dead_lettered', reason: 'retries_exhausted' });
      expect(last?.at).toBe(runtime.retry.horizonMs);
      expect(answers.length).toBeLessThanOrEqual(runtime.retry.maxAttempts);
      const letters = await queue.receive(urls.deadLetterQueueUrl, { maxMessages: 10, waitSeconds: 0 });
      expect(letters.map((l) => JSON.parse(l.body) as { reason: string; event: { firstAttemptAt: string } })).toEqual([
        expect.objectContaining({
          reason: 'retries_exhausted',
          event: expect.objectContaining({ firstAttemptAt: new Date(T0).toISOString() }),
        }),
      ]);
      await queue.purge(urls.deadLetterQueueUrl);
    });
  }
});
