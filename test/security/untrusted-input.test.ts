// Whoever holds the inject token (or can put a message on the queue) must not be able to steer a pool:
// over HTTP into the served functions (local stack), the hostile events of the chaos schedule are refused
// at the edge, and an address outside the target's own discovery is never written, whatever the event says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/stack';
import type { Delivery } from '../../local/trigger-bridge';
import type { DeadLetterRecord } from '../../shared/handlers/dead-letter';
import { startDemoStack } from '../support/demo-stack';
import { DEMO_CLUSTER, DEMO_CONTROL_PLANE_IPS, DEMO_CP0_ID, DEMO_LB_ID } from '../support/world';

let stack: LocalStack;
const deliveries: Delivery[] = [];
/** Retries stop this long after the first attempt (LBSYNC_RETRY_HORIZON_MS): a few attempts here. */
const HORIZON_MS = 2000;

beforeAll(async () => {
  stack = await startDemoStack({
    instancePendingMs: 30,
    env: {
      LBSYNC_RETRY_BASE_MS: '50',
      LBSYNC_RETRY_CAP_MS: '200',
      LBSYNC_RETRY_HORIZON_MS: String(HORIZON_MS),
      // The horizon's floor is this wait plus one backoff step (LBSYNC_RETRY_BASE_MS).
      LBSYNC_TRANSIENT_WAIT_MS: '200',
      LBSYNC_WAIT_BUDGET_MS: '3000',
      LBSYNC_MAX_HOLD_MS: '1000',
    },
    onDelivery: (d) => void deliveries.push(d),
  });
});
afterAll(async () => {
  await stack?.stop();
});

const idle = () => stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 20_000 });

async function inject(event: Record<string, unknown>) {
  const response = await fetch(stack.functions.inject.url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${stack.injectToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(event),
  });
  return {
    status: response.status,
    body: (await response.json()) as { eventId?: string; errors?: { path: string; message: string; fix: string }[] },
  };
}

function writtenPools(): string[][] {
  return stack.emulator.history().map((w) => w.pool);
}

describe('inject refuses what only the system may say', () => {
  const refused: [string, Record<string, unknown>, string, RegExp][] = [
    ['an attempt', { attempt: 0 }, 'event.attempt', /set by the system/],
    ['a notBefore in 2099', { notBefore: '2099-01-01T00:00:00Z' }, 'event.notBefore', /set by the system/],
    [
      'a firstAttemptAt (it would stretch the retry horizon)',
      { firstAttemptAt: '2099-01-01T00:00:00Z' },
      'event.firstAttemptAt',
      /set by the system/,
    ],
    ['source sweep', { source: 'sweep' }, 'event.source', /not a source a caller may use/],
    ['source audit', { source: 'audit' }, 'event.source', /not a source a caller may use/],
    ['an unknown source', { source: 'cron' }, 'event.source', /not a source a caller may use/],
    ['a loopback address', { serverIps: ['51.15.100.11', '127.0.0.1'] }, 'event.serverIps[1]', /loopback/],
    ['the metadata service', { serverIps: ['169.254.42.42'] }, 'event.serverIps[0]', /Scaleway metadata service/],
    ['a link-local address', { serverIps: ['169.254.1.1'] }, 'event.serverIps[0]', /link-local/],
    ['the unspecified address', { serverIps: ['0.0.0.0'] }, 'event.serverIps[0]', /unspecified/],
    ['a multicast address', { serverIps: ['224.0.0.1'] }, 'event.serverIps[0]', /multicast/],
    ['the broadcast address', { serverIps: ['255.255.255.255'] }, 'event.serverIps[0]', /broadcast/],
    ['IPv6 loopback', { serverIps: ['::1'] }, 'event.serverIps[0]', /loopback/],
    ['an IPv4-mapped IPv6 address', { serverIps: ['::ffff:127.0.0.1'] }, 'event.serverIps[0]', /IPv4-mapped/],
    ['an IPv6 link-local address (a routed IPv6 gateway)', { serverIps: ['fe80::dc00:1ff:fe27:16ac'] }, 'event.serverIps[0]', /link-local/],
    ['an IPv6 with a zone index', { serverIps: ['2001:db8::1', 'fe80::1%eth0'] }, 'event.serverIps[1]', /zone index/],
    ['the metadata service over IPv6', { serverIps: ['fd00:42::42'] }, 'event.serverIps[0]', /Scaleway metadata service/],
    ['an IPv6 multicast address', { serverIps: ['ff02::1'] }, 'event.serverIps[0]', /multicast/],
  ];

  for (const [what, fields, path, message] of refused) {
    it(`${what}: 400 naming ${path}, nothing enqueued`, async () => {
      const before = deliveries.length;
      const answer = await inject({ target: DEMO_CLUSTER, ...fields });
      expect(answer.status).toBe(400);
      const error = answer.body.errors?.find((e) => e.path === path);
      expect(error?.message).toMatch(message);
      expect(error?.fix).toBeTruthy();
      await idle();
      expect(deliveries.length).toBe(before);
    });
  }

  it('every problem at once: system fields and a bad address together', async () => {
    const answer = await inject({
      target: DEMO_CLUSTER,
      attempt: 3,
      notBefore: '2099-01-01T00:00:00Z',
      firstAttemptAt: '2026-01-01T00:00:00Z',
      source: 'sweep',
      serverIps: ['127.0.0.1'],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.map((e) => e.path).sort()).toEqual([
      'event.attempt',
      'event.firstAttemptAt',
      'event.notBefore',
      'event.serverIps[0]',
      'event.source',
    ]);
  });
});

describe('serverIps outside the target never reach the pool', () => {
  it("a dual-stack control plane's IPv6, asserted for a target of IPv4 (kOps' rule): accepted at the edge, written never", async () => {
    const cp0 = stack.emulator.state.servers.get(DEMO_CP0_ID);
    if (!cp0) throw new Error('no control plane 0');
    const ipv6 = '2001:bc8:710:4a11:dc00:ff:fe00:11';
    const seedOf = (publicIps: string[]) => ({ id: cp0.id, name: cp0.name, zone: cp0.zone, tags: [...cp0.tags], publicIps });
    stack.emulator.upsertServer(seedOf(['51.15.100.11', ipv6]));
    try {
      const answer = await inject({ target: DEMO_CLUSTER, source: 'instance-replacement', serverIps: [ipv6] });
      expect(answer.status).toBe(202);
      await idle();
      const mine = deliveries.filter((d) => d.body.includes(answer.body.eventId as string));
      expect(JSON.parse(mine.at(-1)?.answer ?? '{}')).toMatchObject({ outcome: 'dead_lettered', reason: 'untrusted_server_ips' });
      expect(await stack.drainDeadLetters()).toHaveLength(1);
      for (const pool of writtenPools()) expect(pool.filter((ip) => ip.includes(':'))).toEqual([]);
    } finally {
      stack.emulator.upsertServer(seedOf(['51.15.100.11']));
    }
  });

  it('accepted at the edge (inject cannot know discovery), written never: retried, then dead-lettered untrusted_server_ips', async () => {
    const answer = await inject({ target: DEMO_CLUSTER, source: 'instance-replacement', serverIps: ['6.6.6.6'] });
    expect(answer.status).toBe(202);
    const eventId = answer.body.eventId as string;
    await idle();
    // Every attempt ran (the backend was created from discovery on the first), then the dead letter.
    const mine = deliveries
      .filter((d) => d.body.includes(eventId))
      .map((d) => JSON.parse(d.answer ?? '{}') as { outcome: string; attempt: number; reason?: string });
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(mine.map((a) => a.outcome)).toEqual([...Array<string>(mine.length - 1).fill('retry_scheduled'), 'dead_lettered']);
    expect(mine.map((a) => a.attempt)).toEqual(mine.map((_, i) => i));
    expect(mine.at(-1)?.reason).toBe('untrusted_server_ips');
    const records = await stack.drainDeadLetters();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      reason: 'untrusted_server_ips',
      eventId,
      attempt: mine.length - 1,
      error: { code: 'untrusted_server_ips' },
    });
    // Retried until the horizon had passed since its first attempt, not for a count.
    const record = records[0] as DeadLetterRecord & { event: { firstAttemptAt: string } };
    expect(Date.parse(record.deadLetteredAt) - Date.parse(record.event.firstAttemptAt)).toBeGreaterThanOrEqual(HORIZON_MS);
    expect(records[0]?.error.hint).toMatch(/never written/);
    // The evidence: no write ever held the address, and the pool is discovery's.
    expect(writtenPools().length).toBeGreaterThan(0);
    for (const pool of writtenPools()) expect(pool).toEqual(DEMO_CONTROL_PLANE_IPS);
    const state = stack.emulator.dumpState() as { lbs: { id: string; backends: { pool: string[] }[] }[] };
    expect(state.lbs.find((lb) => lb.id === DEMO_LB_ID)?.backends[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
  });
});

describe('the reconcile refuses what the queue brings, at once and without an API call', () => {
  const direct = async (event: Record<string, unknown>) => {
    stack.emulator.resetCalls();
    await stack.events.send(
      stack.reconcileQueueUrl,
      JSON.stringify({ version: 1, source: 'manual', target: DEMO_CLUSTER, occurredAt: new Date().toISOString(), ...event }),
    );
    await idle();
    const records = await stack.drainDeadLetters();
    expect(stack.emulator.calls()).toEqual([]);
    return records;
  };

  it('a notBefore in 2099 (further than any retry is scheduled): dead-lettered invalid_event, not held nor re-enqueued', async () => {
    const before = deliveries.length;
    const records = await direct({ id: 'evt-2099', notBefore: '2099-01-01T00:00:00Z', attempt: 1 });
    expect(records).toEqual([expect.objectContaining({ reason: 'invalid_event', eventId: 'evt-2099', attempt: 1 })] as DeadLetterRecord[]);
    expect(records[0]?.error.fieldErrors?.map((e) => e.path)).toEqual(['event.notBefore']);
    expect(deliveries.length - before).toBe(1); // one delivery, no re-enqueue
  });

  it('a firstAttemptAt in the future (it would stretch the retry horizon): dead-lettered invalid_event, no API call', async () => {
    const records = await direct({ id: 'evt-later', firstAttemptAt: '2099-01-01T00:00:00Z', attempt: 1 });
    expect(records).toEqual([expect.objectContaining({ reason: 'invalid_event', eventId: 'evt-later' })] as DeadLetterRecord[]);
    expect(records[0]?.error.fieldErrors?.map((e) => e.path)).toEqual(['event.firstAttemptAt']);
  });

  it('a loopback or metadata address in serverIps: dead-lettered invalid_event naming the field', async () => {
    const records = await direct({ id: 'evt-loopback', serverIps: ['51.15.100.11', '169.254.42.42'] });
    expect(records).toEqual([expect.objectContaining({ reason: 'invalid_event' })]);
    expect(records[0]?.error.fieldErrors?.map((e) => e.path)).toEqual(['event.serverIps[1]']);
  });
});

describe('JSON nested 5,000 levels deep is bad input at every function, told in words', () => {
  const depth = 5_000;
  const bodies: [string, string][] = [
    ['arrays', `${'['.repeat(depth)}${']'.repeat(depth)}`],
    ['objects', `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`],
    ['a deep value in a known field', `{"target":"${DEMO_CLUSTER}","serverIps":${'['.repeat(depth)}${']'.repeat(depth)}}`],
  ];
  const nested = /nested more than \d+ levels deep/;
  const rawPost = async (url: string, body: string, headers: Record<string, string> = {}) => {
    const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  for (const [what, body] of bodies) {
    it(`${what}: reconcile dead-letters it invalid_event, inject answers 400, sweep and watch 400 invalid_args; nothing enqueued`, async () => {
      const before = deliveries.length;
      stack.emulator.resetCalls();
      await stack.events.send(stack.reconcileQueueUrl, body);
      await idle();
      const answered = deliveries.slice(before).map((d) => JSON.parse(d.answer ?? '{}') as Record<string, unknown>);
      expect(answered).toEqual([expect.objectContaining({ outcome: 'dead_lettered', reason: 'invalid_event' })]);
      const records = await stack.drainDeadLetters();
      expect(records).toEqual([expect.objectContaining({ reason: 'invalid_event' })]);
      expect(records[0]?.error.message).toMatch(nested);
      expect(records[0]?.error.fieldErrors).toEqual([expect.objectContaining({ path: 'event', message: expect.stringMatching(nested) })]);

      const injected = await rawPost(stack.functions.inject.url, body, { Authorization: `Bearer ${stack.injectToken}` });
      expect(injected.status).toBe(400);
      expect(injected.body).toMatchObject({ error: 'invalid_event', message: expect.stringMatching(nested) });
      expect(injected.body.errors).toEqual([expect.objectContaining({ path: 'event', message: expect.stringMatching(nested) })]);

      for (const cron of [stack.functions.sweep.url, stack.functions.watch.url]) {
        const answer = await rawPost(cron, body);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ error: 'invalid_args', message: expect.stringMatching(nested) });
        expect(answer.body.errors).toEqual([expect.objectContaining({ path: 'args', message: expect.stringMatching(nested) })]);
      }
      await idle();
      expect(deliveries.length - before).toBe(1);
      expect(stack.emulator.calls()).toEqual([]);
    });
  }
});
