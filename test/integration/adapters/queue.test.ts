// The queue adapter (shared/adapters/queue.ts), the only SQS importer, through the real AWS SQS client against the
// local queue (fauxqs): sends, batches, receives, errors that are LbSyncErrors and never show the credentials, and
// the SDK loaded only when a call needs it.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { inspect, promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createEventQueue, QueueHandOffError } from '../../../shared/adapters/queue';
import { useLocalQueue } from '../../support/local-queue';

const run = promisify(execFile);
const repoRoot = resolve(__dirname, '../../..');

const fixture = useLocalQueue();
const { uniqueName } = fixture;

async function receiveAll(queueUrl: string, expected: number) {
  const received = [];
  for (let round = 0; round < 20 && received.length < expected; round++) {
    const batch = await fixture.queue.receive(queueUrl, { maxMessages: 10, waitSeconds: 1 });
    received.push(...batch);
  }
  return received;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const address = server.address();
  await new Promise((closed) => server.close(closed));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('event queue adapter', () => {
  it('sends, receives with receive count and sent time, and deletes', async () => {
    const url = await fixture.queue.createQueue(uniqueName('basic'), {});
    const body = JSON.stringify({ version: 1, id: 'evt-1', target: 'prod' });
    const before = Date.now();
    const { messageId } = await fixture.queue.send(url, body);

    const [message, ...rest] = await fixture.queue.receive(url, { maxMessages: 10, waitSeconds: 1 });
    expect(rest).toEqual([]);
    expect(message).toMatchObject({ messageId, body, receiveCount: 1 });
    expect(message?.sentAt).toBeGreaterThanOrEqual(before - 1000);

    await fixture.queue.delete(url, message!.receiptHandle);
    const attributes = await fixture.queue.attributes(url);
    expect(attributes.ApproximateNumberOfMessages).toBe('0');
    expect(attributes.ApproximateNumberOfMessagesNotVisible).toBe('0');
  });

  it('makes a message visible again with changeVisibility 0', async () => {
    const url = await fixture.queue.createQueue(uniqueName('visibility'), { VisibilityTimeout: '60' });
    await fixture.queue.send(url, 'again');
    const [first] = await fixture.queue.receive(url, { waitSeconds: 1 });
    expect(await fixture.queue.receive(url)).toEqual([]);
    await fixture.queue.changeVisibility(url, first!.receiptHandle, 0);
    const [second] = await fixture.queue.receive(url, { waitSeconds: 1 });
    expect(second).toMatchObject({ messageId: first!.messageId, receiveCount: 2 });
  });

  it('sends 25 entries in 3 SendMessageBatch calls, all received', async () => {
    const url = await fixture.queue.createQueue(uniqueName('batch'), {});
    const entries = Array.from({ length: 25 }, (_, i) => ({ id: `e${i}`, body: JSON.stringify({ n: i }) }));

    const result = await fixture.queue.sendBatch(url, entries);

    expect(result.calls).toBe(3);
    expect(result.failed).toEqual([]);
    expect(result.sent.sort()).toEqual(entries.map((e) => e.id).sort());
    const received = await receiveAll(url, 25);
    expect(received.map((m) => m.body).sort()).toEqual(entries.map((e) => e.body).sort());
  });

  it('reports entries SQS refuses instead of throwing', async () => {
    const url = await fixture.queue.createQueue(uniqueName('batch-partial'), {});
    const result = await fixture.queue.sendBatch(url, [
      { id: 'good', body: '{"ok":true}' },
      { id: 'bad', body: 'nul \u0000 is not allowed' },
    ]);
    expect(result.sent).toEqual(['good']);
    expect(result.failed).toEqual([{ id: 'bad', code: 'InvalidMessageContents', message: expect.any(String) }]);
    expect(result.calls).toBe(1);
  });

  it('finds an existing queue and answers undefined for a missing one', async () => {
    const name = uniqueName('lookup');
    const url = await fixture.queue.createQueue(name, {});
    expect(await fixture.queue.queueUrl(name)).toBe(url);
    expect(await fixture.queue.findQueueUrl(name)).toBe(url);
    expect(await fixture.queue.findQueueUrl(uniqueName('missing'))).toBeUndefined();
  });

  it('purges a queue', async () => {
    const url = await fixture.queue.createQueue(uniqueName('purge'), {});
    await fixture.queue.sendBatch(url, [
      { id: 'a', body: '1' },
      { id: 'b', body: '2' },
    ]);
    await fixture.queue.purge(url);
    expect((await fixture.queue.attributes(url)).ApproximateNumberOfMessages).toBe('0');
  });
});

describe('queue errors', () => {
  it('names the operation and queue, keeps the SQS error as cause', async () => {
    const name = uniqueName('nowhere');
    const error = await fixture.queue.queueUrl(name).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueHandOffError);
    const handOff = error as QueueHandOffError;
    expect(handOff.code).toBe('queue_unavailable');
    expect(handOff.operation).toBe('GetQueueUrl');
    expect(handOff.queueName).toBe(name);
    expect(handOff.sqsErrorCode).toBe('QueueDoesNotExist');
    expect(handOff.message).toContain('GetQueueUrl');
    expect(handOff.message).toContain(name);
    expect(handOff.cause).toBeInstanceOf(Error);
  });

  it('never shows the credentials when the endpoint is unreachable', async () => {
    const secretAccessKey = 'sEcReT-never-print-me-0123456789';
    const accessKeyId = 'SCWACCESSKEYNEVERPRINTED';
    const unreachable = createEventQueue({
      endpoint: `http://127.0.0.1:${await closedPort()}`,
      region: 'fr-par',
      accessKeyId,
      secretAccessKey,
      requestTimeoutMs: 1000,
    });
    const queueUrl = 'http://127.0.0.1/project-x/lbsync-reconcile';

    const error = await unreachable.send(queueUrl, '{}').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(QueueHandOffError);
    const handOff = error as QueueHandOffError;
    expect(handOff.operation).toBe('SendMessage');
    expect(handOff.message).toMatch(/^queue SendMessage on lbsync-reconcile failed: /);
    expect(handOff.sqsErrorCode).toBe('ECONNREFUSED');
    const everything = `${handOff.message}\n${handOff.stack}\n${inspect(handOff, { depth: 10 })}\n${JSON.stringify(handOff)}`;
    expect(everything).not.toContain(secretAccessKey);
    expect(everything).not.toContain(accessKeyId);
  });
});

describe('lazy SDK loading', () => {
  it('does not load @aws-sdk/client-sqs until the first queue call', async () => {
    // A resolve hook (in the loader thread) reports every module URL it resolves; a
    // unique sentinel import tells the main thread all earlier reports have arrived.
    const hook = [
      'let port;',
      'export async function initialize(data) { port = data.port; }',
      'export async function resolve(specifier, context, next) {',
      '  const result = await next(specifier, context);',
      '  port.postMessage(result.url);',
      '  return result;',
      '}',
    ].join('\n');
    const script = `
      import { register } from 'node:module';
      import { MessageChannel } from 'node:worker_threads';
      const { port1, port2 } = new MessageChannel();
      const resolved = [];
      port1.on('message', (url) => resolved.push(url));
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), {
        data: { port: port2 }, transferList: [port2],
      });
      let sentinels = 0;
      async function settled() {
        const sentinel = 'data:text/javascript,export default ' + ++sentinels;
        await import(sentinel);
        while (!resolved.includes(sentinel)) await new Promise((r) => setTimeout(r, 5));
        return resolved.filter((url) => url.includes('client-sqs'));
      }
      const adapter = await import(${JSON.stringify(resolve(repoRoot, 'shared/adapters/queue.ts'))});
      const queue = adapter.createEventQueue({ endpoint: 'http://127.0.0.1:9', region: 'fr-par',
        accessKeyId: 'a', secretAccessKey: 'b', requestTimeoutMs: 200 });
      const afterImport = await settled();
      await queue.queueUrl('anything').catch(() => undefined);
      const afterFirstCall = await settled();
      port1.close();
      console.log(JSON.stringify({ afterImport, afterFirstCall }));
    `;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repoRoot,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
      afterImport: string[];
      afterFirstCall: string[];
    };
    expect(report.afterImport).toEqual([]);
    // The positive control: the hook does see the SDK once a call needs it.
    expect(report.afterFirstCall.length).toBeGreaterThan(0);
  });
});
