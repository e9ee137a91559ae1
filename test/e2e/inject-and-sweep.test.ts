// The inject and sweep functions at their edge, served by @scaleway/serverless-functions, real queue behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/stack';
import { startLocalStack } from '../../local/stack';
import { DEMO_CLUSTER, demoSeed } from '../support/world';

let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({
    seed: demoSeed(),
    targets: [{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }, { kops: { cluster: 'other.k8s.local', zone: 'fr-par-2' } }],
    functionsFrom: 'source',
    env: { LOG_LEVEL: 'silent' },
  });
  await stack.bridge.stop(); // these tests read the queue themselves
});
afterAll(async () => {
  await stack?.stop();
});

async function drainQueue(): Promise<unknown[]> {
  const bodies: unknown[] = [];
  for (;;) {
    const batch = await stack.events.receive(stack.reconcileQueueUrl, { maxMessages: 10, waitSeconds: 0 });
    if (batch.length === 0) return bodies;
    for (const m of batch) {
      bodies.push(JSON.parse(m.body));
      await stack.events.delete(stack.reconcileQueueUrl, m.receiptHandle);
    }
  }
}

const post = (body: string, headers: Record<string, string>, method = 'POST') =>
  fetch(stack.functions.inject.url, { method, headers, ...(method === 'GET' ? {} : { body }) });
const auth = () => ({ Authorization: `Bearer ${stack.injectToken}`, 'Content-Type': 'application/json' });

describe('inject', () => {
  it('202 with the event id once it is on the queue; id, occurredAt and source filled in', async () => {
    const response = await post(JSON.stringify({ target: DEMO_CLUSTER, serverIps: ['51.15.1.2'] }), auth());
    expect(response.status).toBe(202);
    const body = (await response.json()) as { eventId: string };
    const [queued] = await drainQueue();
    expect(queued).toMatchObject({
      version: 1,
      id: body.eventId,
      source: 'manual',
      target: DEMO_CLUSTER,
      serverIps: ['51.15.1.2'],
      attempt: 0,
    });
  });

  it('401 without or with a wrong token, saying nothing about which', async () => {
    const none = await post('{}', { 'Content-Type': 'application/json' });
    const wrong = await post('{}', { Authorization: `Bearer ${stack.injectToken}x`, 'Content-Type': 'application/json' });
    expect(none.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(await none.text()).toBe(await wrong.text());
    expect(await drainQueue()).toEqual([]);
  });

  it('400 with field-level errors, nothing enqueued', async () => {
    const response = await post(JSON.stringify({ target: DEMO_CLUSTER, serverIps: ['300.1.1.1'], source: 'cron' }), auth());
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: { path: string; fix: string }[] };
    expect(body.errors.map((e) => e.path).sort()).toEqual(['event.serverIps[0]', 'event.source']);
    expect(body.errors.every((e) => e.fix.length > 0)).toBe(true);
    const unknown = await post(JSON.stringify({ target: 'nope' }), auth());
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { errors: { path: string; allowed: string[] }[] }).errors[0]).toMatchObject({
      path: 'event.target',
      allowed: [DEMO_CLUSTER, 'other.k8s.local'],
    });
    const notJson = await post('{"target":', auth());
    expect(notJson.status).toBe(400);
    expect(await drainQueue()).toEqual([]);
  });

  it('413 over 64 KiB, 405 for other methods, 415 for other content types', async () => {
    const big = JSON.stringify({ target: DEMO_CLUSTER, pad: 'x'.repeat(70 * 1024) });
    expect((await post(big, auth())).status).toBe(413);
    const get = await post('', { Authorization: `Bearer ${stack.injectToken}` }, 'GET');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await post('target=x', { ...auth(), 'Content-Type': 'text/plain' })).status).toBe(415);
    expect(await drainQueue()).toEqual([]);
  });
});

describe('sweep', () => {
  it('enqueues one sweep event per target, or only the named ones', async () => {
    const all = await stack.sweep({});
    expect(all).toMatchObject({ status: 200, body: { selected: 2, enqueued: 2, batches: 1, failed: [] } });
    const events = (await drainQueue()) as { source: string; target: string }[];
    expect(events.map((e) => [e.source, e.target]).sort()).toEqual([
      ['sweep', DEMO_CLUSTER],
      ['sweep', 'other.k8s.local'],
    ]);
    const one = await stack.sweep({ targets: ['other.k8s.local', 'ghost'] });
    expect(one).toMatchObject({ status: 200, body: { selected: 1, enqueued: 1, unknownTargets: ['ghost'] } });
    expect(((await drainQueue()) as { target: string }[]).map((e) => e.target)).toEqual(['other.k8s.local']);
  });

  it('rejects malformed cron args with field-level errors', async () => {
    const bad = await stack.sweep({ targets: 'prod' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_args', errors: [{ path: 'args.targets' }] });
  });
});
