// Creating, or converging, the reconcile queue and its dead-letter queue (cli/adapters/queue-provisioning.ts),
// through the real AWS SQS client against the local queue (fauxqs).
import { describe, expect, it } from 'vitest';
import { provisionQueues } from '../../../cli/adapters/queue-provisioning';
import { useLocalQueue } from '../../support/local-queue';

const fixture = useLocalQueue();
const { uniqueName } = fixture;

describe('provisionQueues', () => {
  it('creates DLQ and reconcile queue, then converges instead of failing', async () => {
    const names = { reconcileQueueName: uniqueName('prov-reconcile'), deadLetterQueueName: uniqueName('prov-dlq') };
    const options = { ...names, functionTimeoutSeconds: 60 };

    const first = await provisionQueues(fixture.queue, options);
    expect(first.created).toEqual([names.deadLetterQueueName, names.reconcileQueueName]);
    expect(first.updated).toEqual([]);

    const second = await provisionQueues(fixture.local.settings, options);
    expect(second).toEqual({ ...first, created: [], updated: [] });

    const dlqArn = (await fixture.queue.attributes(first.deadLetterQueueUrl)).QueueArn;
    const reconcile = await fixture.queue.attributes(first.reconcileQueueUrl);
    expect(Number(reconcile.VisibilityTimeout)).toBeGreaterThan(60);
    expect(JSON.parse(reconcile.RedrivePolicy ?? '{}')).toEqual({ deadLetterTargetArn: dlqArn, maxReceiveCount: 4 });

    // Drift made by hand is converged back.
    await fixture.queue.setAttributes(first.reconcileQueueUrl, {
      VisibilityTimeout: '5',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 9 }),
    });
    const third = await provisionQueues(fixture.queue, { ...options, functionTimeoutSeconds: 120 });
    expect(third).toMatchObject({ created: [], updated: [names.reconcileQueueName] });
    const converged = await fixture.queue.attributes(first.reconcileQueueUrl);
    expect(Number(converged.VisibilityTimeout)).toBeGreaterThan(120);
    expect(JSON.parse(converged.RedrivePolicy ?? '{}')).toEqual({ deadLetterTargetArn: dlqArn, maxReceiveCount: 4 });
  });

  it('moves a message received maxReceiveCount times without delete to the DLQ', async () => {
    const provisioned = await provisionQueues(fixture.queue, {
      reconcileQueueName: uniqueName('redrive'),
      deadLetterQueueName: uniqueName('redrive-dlq'),
      functionTimeoutSeconds: 10,
    });
    const { messageId } = await fixture.queue.send(provisioned.reconcileQueueUrl, '{"id":"evt-poison"}');

    // Visibility 0 stands in for "the trigger got a 500 and the message came back".
    const receiveCounts = [];
    for (let delivery = 0; delivery < 4; delivery++) {
      const [message] = await fixture.queue.receive(provisioned.reconcileQueueUrl, { visibilityTimeoutSeconds: 0, waitSeconds: 1 });
      receiveCounts.push(message?.receiveCount);
    }
    expect(receiveCounts).toEqual([1, 2, 3, 4]);
    expect(await fixture.queue.receive(provisioned.reconcileQueueUrl)).toEqual([]);

    const [deadLetter] = await fixture.queue.receive(provisioned.deadLetterQueueUrl, { waitSeconds: 1 });
    expect(deadLetter).toMatchObject({ messageId, body: '{"id":"evt-poison"}' });
  });
});
