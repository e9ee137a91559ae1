// Raw TCP against the inject function served by @scaleway/serverless-functions (fastify): bodies that stop
// early, clients that hang up, clients that trickle. The function must not crash, must not enqueue
// anything it did not answer 202 for, and must keep serving.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/stack';
import { startDemoStack } from '../support/demo-stack';
import { DEMO_CLUSTER } from '../support/world';

let stack: LocalStack;
const delivered: string[] = [];
const TOKEN = 'INJECT-TOKEN-4242-raw-tcp-0123456789';

beforeAll(async () => {
  stack = await startDemoStack({
    env: { INJECT_TOKEN: TOKEN },
    onDelivery: (d) => void delivered.push(d.body),
  });
});

afterAll(async () => {
  await stack?.stop();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface RawResult {
  /** The first status line's code, or undefined when the server closed without answering. */
  status?: number;
  raw: string;
  closedBy: 'server' | 'timeout';
}

/** Writes the parts with pauses between them; optionally half-closes or resets after the last one. */
function rawRequest(parts: (string | number)[], end: 'half-close' | 'reset' | 'keep' = 'keep', waitMs = 3_000): Promise<RawResult> {
  const { hostname, port } = new URL(stack.functions.inject.url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    let raw = '';
    let settled = false;
    const finish = (closedBy: RawResult['closedBy']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
      resolve({ ...(match && { status: Number(match[1]) }), raw, closedBy });
    };
    const timer = setTimeout(() => finish('timeout'), waitMs);
    socket.on('data', (chunk) => {
      raw += chunk.toString('utf8');
      // One full answer is enough.
      if (/\r\n\r\n/.test(raw) && (/content-length: 0/i.test(raw) || /\r\n\r\n[\s\S]*[}\]]/.test(raw))) finish('server');
    });
    socket.on('close', () => finish('server'));
    socket.on('error', () => finish('server'));
    socket.on('connect', async () => {
      for (const part of parts) {
        if (typeof part === 'number') await sleep(part);
        else if (!socket.destroyed) socket.write(part);
      }
      if (end === 'half-close') socket.end();
      if (end === 'reset') socket.resetAndDestroy();
    });
  });
}

const body = JSON.stringify({ target: DEMO_CLUSTER, source: 'manual' });
const head = (length: number, extra = '') =>
  `POST / HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

async function stillServing(): Promise<void> {
  const response = await fetch(stack.functions.inject.url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body,
  });
  expect(response.status).toBe(202);
}

/** Runs a raw exchange and asserts, in the same case, that it enqueued nothing. */
async function refusedWithoutEnqueuing(
  parts: (string | number)[],
  end: 'half-close' | 'reset' | 'keep',
  waitMs?: number,
): Promise<RawResult> {
  await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
  const before = delivered.length;
  const result = await rawRequest(parts, end, waitMs);
  await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
  expect(delivered.length, 'nothing enqueued').toBe(before);
  return result;
}

describe('inject over raw TCP', () => {
  it('a body that stops early (client half-closes): no 2xx, nothing enqueued', async () => {
    const result = await refusedWithoutEnqueuing([head(body.length + 50), body], 'half-close');
    expect(result.status === undefined || result.status >= 400, result.raw.slice(0, 200)).toBe(true);
  });

  it('a body that stops early (client resets the connection): no crash, nothing enqueued', async () => {
    const result = await refusedWithoutEnqueuing([head(body.length + 50), body.slice(0, 10), 50], 'reset', 1_000);
    expect(result.status).toBeUndefined();
  });

  it('a body that stops early and the client just waits: no 2xx (the server waits or times out), nothing enqueued', async () => {
    const result = await refusedWithoutEnqueuing([head(body.length + 50), body], 'keep', 1_500);
    expect(result.status === undefined || result.status >= 400).toBe(true);
  });

  it('a Content-Length shorter than the body: the cut body is refused, the rest is not an event, nothing enqueued', async () => {
    const result = await refusedWithoutEnqueuing([head(body.length - 2), body], 'half-close');
    expect(result.status).toBe(400);
    expect(result.raw).not.toMatch(/HTTP\/1\.1 202/);
  });

  it('a chunked body whose last chunk never comes: no 2xx, nothing enqueued', async () => {
    const chunked = `POST / HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const result = await refusedWithoutEnqueuing([chunked, `${(10).toString(16)}\r\n${body.slice(0, 10)}\r\n`], 'half-close');
    expect(result.status === undefined || result.status >= 400).toBe(true);
  });

  it('garbage instead of HTTP: 400 or a closed connection, nothing enqueued', async () => {
    const result = await refusedWithoutEnqueuing(['\u0000\u0001GARBAGE / HTTP/9.9\r\n\r\n'], 'half-close');
    expect(result.status === undefined || result.status === 400).toBe(true);
  });

  it('a client that trickles a valid event byte by byte is served once (202), and enqueues exactly one event', async () => {
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
    const before = delivered.length;
    const request = head(Buffer.byteLength(body)) + body;
    const parts: (string | number)[] = [];
    for (const ch of request) parts.push(ch, 5);
    const result = await rawRequest(parts, 'keep', 10_000);
    expect(result.status, result.raw.slice(0, 200)).toBe(202);
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
    expect(delivered.length - before).toBe(1);
  });

  it('after all of it, the function still serves: a plain request is enqueued once', async () => {
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
    const before = delivered.length;
    await stillServing();
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
    expect(delivered.length - before).toBe(1);
  });
});
