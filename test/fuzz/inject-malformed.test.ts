// Property-based, over HTTP into the inject function served by @scaleway/serverless-functions (local
// stack): malformed input is answered 400 / 413 / 415 — never 202, never 5xx — and nothing is enqueued.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/stack';
import { startLocalStack } from '../../local/stack';
import { MAX_EVENT_BYTES, completeEvent, parseEvent } from '../../shared/schemas/event';
import { DEMO_CLUSTER, demoSeed } from '../support/world';
import { FUZZ, pollutingJson, validEvent, wrongValue, EVENT_FIELDS } from './arbitraries';

let stack: LocalStack;
let delivered = 0;

beforeAll(async () => {
  stack = await startLocalStack({
    seed: demoSeed(),
    targets: [{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }],
    functionsFrom: 'source',
    env: { LOG_LEVEL: 'silent' },
    onDelivery: () => {
      delivered += 1;
    },
  });
});

afterAll(async () => {
  await stack?.stop();
});

async function post(body: string, contentType: string | undefined, token = stack.injectToken) {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (contentType !== undefined) headers['Content-Type'] = contentType;
  const response = await fetch(stack.functions.inject.url, { method: 'POST', headers, body });
  return { status: response.status, text: await response.text() };
}

/** Would the inject function accept this body as an event for a configured target? */
function acceptable(body: string): boolean {
  try {
    const value = JSON.parse(body) as unknown;
    // Fields and sources only the system sets are refused from callers.
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const own = (key: string) => Object.hasOwn(value, key);
      const source = (value as { source?: unknown }).source;
      if (
        own('attempt') ||
        own('notBefore') ||
        own('firstAttemptAt') ||
        (own('source') && source !== 'manual' && source !== 'instance-replacement')
      )
        return false;
    }
    const withSource =
      value && typeof value === 'object' && !Array.isArray(value) && !Object.hasOwn(value, 'source')
        ? { ...value, source: 'manual' }
        : value;
    return parseEvent(completeEvent(withSource)).target === DEMO_CLUSTER;
  } catch {
    return false;
  }
}

const malformedJsonBody = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .tuple(validEvent, fc.constantFrom(...EVENT_FIELDS), wrongValue)
    .map(([e, f, v]) => JSON.stringify({ ...e, target: DEMO_CLUSTER, [f]: v })),
  validEvent.map((e) => JSON.stringify({ ...e, target: DEMO_CLUSTER }).slice(0, -2)),
  pollutingJson,
  validEvent.map((e) => JSON.stringify({ ...e, target: DEMO_CLUSTER, serverIps: Array.from({ length: 1_000 }, () => '10.0.0.1') })),
  fc.integer({ min: 1, max: 200_000 }).map((n) => JSON.stringify({ target: DEMO_CLUSTER, pad: 'x'.repeat(MAX_EVENT_BYTES + n) })),
  fc.integer({ min: 1, max: 20_000 }).map((n) => JSON.stringify({ target: DEMO_CLUSTER, pad: '😀'.repeat(MAX_EVENT_BYTES / 4 + n) })),
);

/** Nothing reached the queue (nor the reconcile, nor the API) since `before`: asserted inside each case. */
async function expectNothingEnqueued(before: number): Promise<void> {
  await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
  expect(delivered).toBe(before);
  expect(stack.emulator.calls()).toEqual([]);
  expect((await stack.events.attributes(stack.reconcileQueueUrl)).ApproximateNumberOfMessages).toBe('0');
}

describe('inject: malformed input', () => {
  it('JSON bodies that are not a valid event: 400 or 413, never 202 or 5xx, nothing enqueued', async () => {
    const before = delivered;
    await fc.assert(
      fc.asyncProperty(
        malformedJsonBody,
        fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON'),
        async (body, type) => {
          fc.pre(!acceptable(body));
          const { status, text } = await post(body, type);
          expect([400, 413], `${status} ${text.slice(0, 200)}`).toContain(status);
          if (status === 400) {
            const answer = JSON.parse(text) as { errors: { path: string; fix: string }[] };
            expect(answer.errors.length).toBeGreaterThanOrEqual(1);
            for (const e of answer.errors) expect(e.path && e.fix).toBeTruthy();
          }
        },
      ),
      { ...FUZZ, numRuns: Math.min(FUZZ.numRuns, 120) },
    );
    await expectNothingEnqueued(before);
  });

  it('bodies sent with another content type: 415, never 202 or 5xx, nothing enqueued', async () => {
    const before = delivered;
    const type = fc.oneof(
      fc.constantFrom(
        'text/plain',
        'application/xml',
        'text/html',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonp',
        'application/octet-stream',
        'json',
      ),
      fc.string({ minLength: 1, maxLength: 40 }).filter((t) => /^[\x21-\x7e]+$/.test(t) && !/^application\/json\b/i.test(t)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          validEvent.map((e) => JSON.stringify({ ...e, target: DEMO_CLUSTER })),
          fc.string({ maxLength: 100 }),
        ),
        type,
        async (body, contentType) => {
          const { status, text } = await post(body, contentType);
          expect([400, 413, 415], `${contentType}: ${status} ${text.slice(0, 200)}`).toContain(status);
        },
      ),
      { ...FUZZ, numRuns: 60 },
    );
    await expectNothingEnqueued(before);
  });
});
