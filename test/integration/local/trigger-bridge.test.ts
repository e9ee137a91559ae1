// The local queue trigger, between fauxqs and a tiny node:http "function".
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalQueue, type LocalQueue } from '../../../local/queue-server';
import { startTriggerBridge, type Delivery, type TriggerBridge } from '../../../local/trigger-bridge';
import { createEventQueue, type EventQueue } from '../../../shared/adapters/queue';

interface ReceivedRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  body: string;
}

/** A function stand-in: answers `status` after `delayMs`, records requests and the peak concurrency. */
class FakeFunction {
  status = 200;
  delayMs = 0;
  readonly requests: ReceivedRequest[] = [];
  concurrent = 0;
  peakConcurrent = 0;
  private readonly server: Server;

  constructor() {
    this.server = createServer((request, response) => void this.handle(request, response));
  }

  async start(): Promise<string> {
    await new Promise<void>((ready) => this.server.listen(0, '127.0.0.1', ready));
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return `http://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    if (!this.server.listening) return;
    this.server.closeAllConnections();
    await new Promise((closed) => this.server.close(closed));
  }

  private async handle(request: IncomingMessage, response: import('node:http').ServerResponse) {
    this.concurrent += 1;
    this.peakConcurrent = Math.max(this.peakConcurrent, this.concurrent);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    this.requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      contentType: request.headers['content-type'],
      body: Buffer.concat(chunks).toString('utf8'),
    });
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    this.concurrent -= 1;
    response.writeHead(this.status, { 'content-type': 'application/json' });
    response.end('{}');
  }
}

let local: LocalQueue;
let queue: EventQueue;
let fn: FakeFunction;
let functionUrl: string;
let bridge: TriggerBridge | undefined;
let queueCounter = 0;
const uniqueName = (label: string) => `${label}-${process.pid}-${++queueCounter}`;

beforeAll(async () => {
  local = await startLocalQueue();
  queue = createEventQueue(local.settings);
});

afterAll(async () => {
  await local?.stop();
});

afterEach(async () => {
  await bridge?.stop();
  bridge = undefined;
  await fn?.stop();
});

async function startFunction(configure: (f: FakeFunction) => void = () => {}) {
  fn = new FakeFunction();
  configure(fn);
  functionUrl = await fn.start();
}

describe('trigger bridge', () => {
  it('POSTs the raw body to / as application/json and deletes the message on 2xx', async () => {
    await startFunction();
    const url = await queue.createQueue(uniqueName('ok'), {});
    // Spacing, key order and non-ASCII must survive untouched: no re-serialisation.
    const body = '{ "version":1,  "id":"evt-é☃", "target" : "prod",\n"serverIps":["51.15.1.2"] }';
    await queue.send(url, body);

    bridge = startTriggerBridge({ queue, queueUrl: url, functionUrl });
    await bridge.waitIdle();

    expect(fn.requests).toEqual([{ method: 'POST', path: '/', contentType: 'application/json', body }]);
    expect(bridge.stats()).toEqual({ delivered: 1, deleted: 1, failed: 0, inFlight: 0 });
    const attributes = await queue.attributes(url);
    expect(attributes.ApproximateNumberOfMessages).toBe('0');
    expect(attributes.ApproximateNumberOfMessagesNotVisible).toBe('0');
  });

  it('redelivers a 500 after the visibility timeout, then the queue dead-letters it', async () => {
    await startFunction((f) => (f.status = 500));
    const dlqUrl = await queue.createQueue(uniqueName('failing-dlq'), {});
    const dlqArn = (await queue.attributes(dlqUrl)).QueueArn ?? '';
    const url = await queue.createQueue(uniqueName('failing'), {
      VisibilityTimeout: '1',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }),
    });
    const { messageId } = await queue.send(url, '{"id":"evt-poison"}');
    const deliveries: (Delivery & { at: number })[] = [];

    bridge = startTriggerBridge({
      queue,
      queueUrl: url,
      functionUrl,
      pollWaitSeconds: 1,
      onDelivery: (d) => deliveries.push({ ...d, at: Date.now() }),
    });
    await bridge.waitIdle({ timeoutMs: 10_000 });

    expect(deliveries.map((d) => [d.messageId, d.status, d.attempt])).toEqual([
      [messageId, 500, 1],
      [messageId, 500, 2],
    ]);
    expect(deliveries[1]!.at - deliveries[0]!.at).toBeGreaterThanOrEqual(900);
    expect(bridge.stats()).toEqual({ delivered: 2, deleted: 0, failed: 2, inFlight: 0 });
    const [deadLetter] = await queue.receive(dlqUrl, { waitSeconds: 1 });
    expect(deadLetter).toMatchObject({ messageId, body: '{"id":"evt-poison"}' });
  });

  it('does not delete a message the function never answered', async () => {
    await startFunction();
    await fn.stop(); // nothing listens on functionUrl any more
    const url = await queue.createQueue(uniqueName('unreachable'), { VisibilityTimeout: '30' });
    await queue.send(url, '{"id":"evt-lost?"}');
    const deliveries: Delivery[] = [];

    bridge = startTriggerBridge({ queue, queueUrl: url, functionUrl, onDelivery: (d) => deliveries.push(d) });
    await waitFor(() => deliveries.length === 1);
    await bridge.stop();

    expect(deliveries[0]).toMatchObject({ status: 'error', attempt: 1 });
    expect(bridge.stats()).toMatchObject({ deleted: 0, failed: 1 });
    expect((await queue.attributes(url)).ApproximateNumberOfMessagesNotVisible).toBe('1');
  });

  it.each([
    { label: 'maxInFlight 3', maxInFlight: 3, messages: 12 },
    { label: 'the default of 10', maxInFlight: undefined, messages: 25 },
  ])('never has more POSTs under way than $label', async ({ maxInFlight, messages }) => {
    await startFunction((f) => (f.delayMs = 150));
    const url = await queue.createQueue(uniqueName('concurrency'), {});
    const entries = Array.from({ length: messages }, (_, i) => ({ id: `m${i}`, body: `{"n":${i}}` }));
    await queue.sendBatch(url, entries);

    bridge = startTriggerBridge({ queue, queueUrl: url, functionUrl, ...(maxInFlight ? { maxInFlight } : {}) });
    await bridge.waitIdle({ timeoutMs: 15_000 });

    expect(fn.peakConcurrent).toBe(maxInFlight ?? 10);
    expect(bridge.stats()).toEqual({ delivered: messages, deleted: messages, failed: 0, inFlight: 0 });
    expect(fn.requests.map((r) => r.body).sort()).toEqual(entries.map((e) => e.body).sort());
  });

  it('stop() waits for the deliveries under way', async () => {
    await startFunction((f) => (f.delayMs = 400));
    const url = await queue.createQueue(uniqueName('stop'), {});
    await queue.send(url, '{"id":"evt-slow"}');
    bridge = startTriggerBridge({ queue, queueUrl: url, functionUrl });
    await waitFor(() => fn.requests.length === 1);

    await bridge.stop();

    expect(bridge.stats()).toEqual({ delivered: 1, deleted: 1, failed: 0, inFlight: 0 });
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
