// Property-based, through the real reconcile handler (handleReconcileMessage with the real Scaleway SDK
// gateway against the emulator and the real SQS client against the local queue): a malformed body or an
// unknown target is dead-lettered with the right reason, answered 200, and costs ZERO API calls.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import { createEventQueue, type EventQueue } from '../../shared/adapters/queue';
import type { DeadLetterRecord } from '../../shared/handlers/dead-letter';
import { handleReconcileMessage } from '../../shared/handlers/reconcile-message';
import { runtimeConfigFromEnv } from '../../shared/platform/config';
import { createLogger } from '../../shared/platform/log';
import { provisionQueues } from '../../cli/adapters/queue-provisioning';
import { systemFieldsBeyondHorizon } from '../../shared/core/retry-horizon';
import { decodeEvent, MAX_EVENT_BYTES } from '../../shared/schemas/event';
import type { World } from '../support/world';
import { DEMO_CLUSTER, demoTarget, startWorld } from '../support/world';
import { FUZZ, pollutingJson, prototypeIsClean, targetName, validEvent, wrongValue, EVENT_FIELDS } from './arbitraries';

let world: World;
let localQueue: LocalQueue;
let queue: EventQueue;
let urls: { reconcileQueueUrl: string; deadLetterQueueUrl: string };
const logLines: string[] = [];

beforeAll(async () => {
  world = await startWorld();
  localQueue = await startLocalQueue();
  queue = createEventQueue(localQueue.settings);
  urls = await provisionQueues(queue, {
    reconcileQueueName: 'fuzz-reconcile',
    deadLetterQueueName: 'fuzz-dead-letter',
    functionTimeoutSeconds: 30,
  });
});

afterAll(async () => {
  await localQueue?.stop();
  await world?.stop();
});

const deps = () => ({
  targets: new Map([[DEMO_CLUSTER, demoTarget()]]),
  gateway: () => world.gateway(),
  queues: { client: () => queue, ...urls },
  runtime: runtimeConfigFromEnv({}),
  logger: createLogger({ service: 'fuzz', level: 'debug', destination: { write: (line: string) => void logLines.push(line) } }),
});

async function takeDeadLetters(): Promise<DeadLetterRecord[]> {
  const out: DeadLetterRecord[] = [];
  for (;;) {
    const batch = await queue.receive(urls.deadLetterQueueUrl, { maxMessages: 10, waitSeconds: 0 });
    if (batch.length === 0) return out;
    for (const m of batch) {
      out.push(JSON.parse(m.body) as DeadLetterRecord);
      await queue.delete(urls.deadLetterQueueUrl, m.receiptHandle);
    }
  }
}

/**
 * What a queue can deliver: SQS accepts #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD (and real SQS also
 * #x10000-#x10FFFF, which the local queue refuses), so the function never receives anything else.
 */
const sqsDeliverable = (text: string) => text.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD]/gu, '?');

/** Bodies that are not a valid event, or name a target that is not configured. */
const malformedBody = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    validEvent.map((e) => JSON.stringify({ ...e, target: DEMO_CLUSTER }).slice(0, -1)),
    fc
      .tuple(validEvent, fc.constantFrom(...EVENT_FIELDS), wrongValue)
      .map(([e, f, v]) => JSON.stringify({ ...e, target: DEMO_CLUSTER, [f]: v })),
    pollutingJson,
    validEvent.map((e) => JSON.stringify({ ...e, target: DEMO_CLUSTER, serverIps: Array.from({ length: 300 }, () => '10.0.0.1') })),
    fc.constant(`{"pad":"${'x'.repeat(MAX_EVENT_BYTES)}"}`),
    // valid events naming targets that are not configured
    fc
      .tuple(validEvent, targetName)
      .filter(([, t]) => t !== DEMO_CLUSTER)
      .map(([e, t]) => JSON.stringify({ ...e, target: t })),
  )
  .map(sqsDeliverable);

describe('reconcile: malformed bodies and unknown targets', () => {
  it('are dead-lettered with the reason, answered 200, with no API call and no pollution', async () => {
    await fc.assert(
      fc.asyncProperty(malformedBody, async (body) => {
        let target: string | undefined;
        let decoded: ReturnType<typeof decodeEvent> | undefined;
        try {
          decoded = decodeEvent(body);
          target = decoded.target;
        } catch {
          target = undefined;
        }
        // An event scheduled further out than any retry, or first attempted in the future, is not one of ours:
        // invalid before anything else.
        const tooFar = decoded !== undefined && systemFieldsBeyondHorizon(decoded, new Date(), deps().runtime.retry) !== undefined;
        fc.pre(target !== DEMO_CLUSTER || tooFar); // a valid event for the configured target is not malformed
        const expected = target === undefined || tooFar ? 'invalid_event' : 'unknown_target';
        world.emulator.resetCalls();
        const answer = await handleReconcileMessage(body, deps());
        expect(answer.statusCode).toBe(200);
        const parsed = JSON.parse(answer.body) as { outcome: string; reason: string };
        expect(parsed).toMatchObject({ outcome: 'dead_lettered', reason: expected });
        expect(world.emulator.calls()).toEqual([]);
        const records = await takeDeadLetters();
        expect(records).toHaveLength(1);
        expect(records[0]).toMatchObject({ kind: 'lbsync.dead-letter', reason: expected });
        // Kept whole up to the 64 KiB an event may have; a longer body is cut there and says so.
        if (expected === 'invalid_event' && target === undefined) {
          const bytes = Buffer.byteLength(body);
          expect(records[0]).toMatchObject({ rawBodyBytes: bytes, ...(bytes > MAX_EVENT_BYTES && { rawBodyTruncated: true }) });
          expect(records[0]?.rawBody).toBe(bytes > MAX_EVENT_BYTES ? Buffer.from(body).subarray(0, MAX_EVENT_BYTES).toString() : body);
        }
        expect(prototypeIsClean()).toBe(true);
      }),
      { ...FUZZ, numRuns: Math.min(FUZZ.numRuns, 120) },
    );
    const attributes = await queue.attributes(urls.reconcileQueueUrl);
    expect(attributes.ApproximateNumberOfMessages).toBe('0'); // nothing was re-enqueued
  });

  it('a body the dead-letter queue refuses is answered 500 (redelivered, then redriven by the queue), never dropped', async () => {
    // The local queue refuses characters beyond the BMP; the record embeds the raw body, so the hand-off fails.
    world.emulator.resetCalls();
    const answer = await handleReconcileMessage('{"oops": "😀"', deps());
    expect(answer.statusCode).toBe(500);
    expect(JSON.parse(answer.body)).toMatchObject({ outcome: 'handoff_failed', error: { code: 'queue_unavailable' } });
    expect(world.emulator.calls()).toEqual([]);
    expect(await takeDeadLetters()).toEqual([]);
  });
});
