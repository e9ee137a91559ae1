// The inject function's door, over HTTP into the served function (local stack): authentication first,
// the same 401 for every wrong credential, then size, method and content type; nothing enqueued unless 202.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/stack';
import { startDemoStack } from '../support/demo-stack';
import { tokenMatches } from '../../shared/platform/http-edge';
import { DEMO_CLUSTER } from '../support/world';

let stack: LocalStack;
const delivered: string[] = [];
const TOKEN = 'INJECT-TOKEN-4242-security-test-0123456789';

beforeAll(async () => {
  stack = await startDemoStack({
    env: { INJECT_TOKEN: TOKEN },
    onDelivery: (d) => void delivered.push(d.body),
  });
});

afterAll(async () => {
  await stack?.stop();
});

const event = JSON.stringify({ target: DEMO_CLUSTER, source: 'manual' });

async function call(init: { method?: string; headers?: Record<string, string>; body?: string }) {
  const response = await fetch(stack.functions.inject.url, {
    method: init.method ?? 'POST',
    headers: { 'Content-Type': 'application/json', ...init.headers },
    ...(init.body !== undefined && { body: init.body }),
  });
  return { status: response.status, text: await response.text(), wwwAuthenticate: response.headers.get('www-authenticate') };
}

describe('inject authentication', () => {
  const wrong: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['empty bearer', { Authorization: 'Bearer ' }],
    ['wrong token', { Authorization: 'Bearer not-the-token' }],
    ['token prefix', { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ['token with a suffix', { Authorization: `Bearer ${TOKEN}x` }],
    ['token in another case', { Authorization: `Bearer ${TOKEN.toLowerCase()}` }],
    ['right token, Basic scheme', { Authorization: `Basic ${TOKEN}` }],
    ['right token without a scheme', { Authorization: TOKEN }],
    ['right token in another header', { 'X-Auth-Token': TOKEN }],
    ['very long token', { Authorization: `Bearer ${'A'.repeat(8_000)}` }],
  ];

  it('every wrong credential gets the same 401, byte for byte, and nothing is enqueued', async () => {
    const before = delivered.length;
    const answers = [];
    for (const [, headers] of wrong) answers.push(await call({ headers, body: event }));
    for (const [i, a] of answers.entries()) {
      expect(a.status, wrong[i]?.[0]).toBe(401);
      expect(a.wwwAuthenticate).toBe('Bearer');
    }
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers[0]?.text).not.toContain(TOKEN.slice(0, 8));
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
    expect(delivered.length).toBe(before);
  });

  it('authentication comes before everything a caller could learn from: size, type, validation; nothing enqueued', async () => {
    const before = delivered.length;
    const unauthenticated = [
      await call({ body: JSON.stringify({ target: DEMO_CLUSTER, pad: 'x'.repeat(100_000) }) }), // over 64 KiB, under the framework limit
      await call({ headers: { 'Content-Type': 'text/plain' }, body: event }),
      await call({ body: '{oops' }),
      await call({ body: JSON.stringify({ target: 'no-such-target' }) }),
    ];
    expect(unauthenticated.map((a) => a.status)).toEqual([401, 401, 401, 401]);
    expect(new Set(unauthenticated.map((a) => a.text)).size).toBe(1);
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
    expect(delivered.length).toBe(before);
  });

  it('the compare is by digest: any length, never throws, only the exact token matches', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
    for (const presented of ['', 'x', TOKEN.slice(1), `${TOKEN} `, TOKEN.repeat(50), '\u0000'.repeat(TOKEN.length), '😀']) {
      expect(tokenMatches(presented, TOKEN)).toBe(false);
    }
  });

  it('with the token: 413 over 64 KiB, 405 for other methods, 415 for other types, 202 for an event', async () => {
    const before = delivered.length;
    const auth = { Authorization: `Bearer ${TOKEN}` };
    expect((await call({ headers: auth, body: JSON.stringify({ target: DEMO_CLUSTER, pad: 'x'.repeat(70_000) }) })).status).toBe(413);
    expect((await call({ headers: auth, body: JSON.stringify({ target: DEMO_CLUSTER, pad: 'x'.repeat(3_000_000) }) })).status).toBe(413); // the framework's own limit
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const answer = await call({ method, headers: auth, ...(method !== 'GET' && { body: event }) });
      expect(answer.status, method).toBe(405);
    }
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      expect((await call({ headers: { ...auth, 'Content-Type': type }, body: event })).status, type).toBe(415);
    }
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
    expect(delivered.length).toBe(before); // none of the refused requests reached the queue
    const accepted = await call({ headers: { Authorization: `bearer   ${TOKEN}` }, body: event });
    expect(accepted.status).toBe(202);
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
    expect(delivered.length).toBe(before + 1);
  });
});
