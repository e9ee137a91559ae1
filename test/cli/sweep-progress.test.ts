// `lbsync sweep --spread`: the handler sends each batch when it is due (QUEUE_DELAY_MODE hold), several sends in
// one run; the progress counts over all of them (10/45 ... 45/45), never again from the start of each send. The
// real bin against the local queue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import { createEventQueue, type EventQueue } from '../../shared/adapters/queue';
import { provisionQueues } from '../../cli/adapters/queue-provisioning';
import { localQueueEnv, runBin } from './support';

let localQueue: LocalQueue;
let queue: EventQueue;
let reconcileQueueUrl: string;

beforeAll(async () => {
  localQueue = await startLocalQueue();
  queue = createEventQueue(localQueue.settings);
  ({ reconcileQueueUrl } = await provisionQueues(queue, {
    reconcileQueueName: 'spread-reconcile',
    deadLetterQueueName: 'spread-dead-letter',
    functionTimeoutSeconds: 60,
  }));
});
afterAll(async () => {
  await localQueue?.stop();
});

describe('lbsync sweep --spread', () => {
  it('counts its progress in total across the paced sends, off a terminal', async () => {
    const many = Array.from({ length: 45 }, (_, i) => ({ kops: { cluster: `c${i}.k8s.local`, zone: 'fr-par-1' } }));
    const run = await runBin(['sweep', '--spread', '2'], {
      LBSYNC_TARGETS: JSON.stringify(many),
      ...localQueueEnv(localQueue, { reconcileQueueUrl }),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^sweep: 45\/45 targets enqueued in \d+ batches$/m);
    const lines = run.stderr.trim().split('\n');
    const counts = lines.map((line) => Number(/^enqueued (\d+)\/45$/.exec(line)?.[1]));
    expect(
      counts.every((n) => Number.isInteger(n)),
      lines.join('\n'),
    ).toBe(true);
    expect(counts.length).toBeGreaterThan(2);
    expect(
      counts.every((n, i) => i === 0 || n > (counts[i - 1] as number)),
      lines.join('\n'),
    ).toBe(true);
    expect(counts.at(-1)).toBe(45);
    expect((await queue.attributes(reconcileQueueUrl)).ApproximateNumberOfMessages).toBe('45');
  });
});
