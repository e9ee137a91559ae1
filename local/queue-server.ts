// A local stand-in for Scaleway Queues: fauxqs (an SQS-protocol server) embedded in
// this process, on loopback only. fauxqs' startFauxqs() always binds 0.0.0.0, so we
// build its app and listen on 127.0.0.1 ourselves.
//
// Checked against what scw-lb-sync relies on (see test/integration/queue*.test.ts):
// RedrivePolicy moves a message to the DLQ on the receive after maxReceiveCount,
// VisibilityTimeout (queue default and per-receive override), ApproximateReceiveCount,
// SentTimestamp, SendMessageBatch (max 10 entries), long polling, ChangeMessageVisibility.
//
// Where fauxqs is more permissive than Scaleway Queues — code that passes here can
// still fail there:
// - DelaySeconds (per message and per queue) works here; Scaleway does not support it,
//   so only QUEUE_DELAY_MODE=native may use it.
// - MessageGroupId is accepted here; Scaleway does not support it.
// - ReceiveMessage's VisibilityTimeout override works here; Scaleway ignores it (the
//   queue's VisibilityTimeout always applies).
// - ChangeMessageVisibility takes any value here; Scaleway takes only 0 or the queue's
//   own VisibilityTimeout, so it cannot be used to hold a message for a chosen delay.
// - ApproximateNumberOfMessagesNotVisible drops a message here once its visibility
//   expires; Scaleway keeps counting it until it is deleted. ApproximateNumberOfMessages
//   Delayed and LastModifiedTimestamp exist here, not there.
// - Queue tags work here; Scaleway has none (and ListQueues does not paginate there).
// - Credentials are never checked; any access key works.
// - Queue URLs look like http://sqs.<region>.localhost:<port>/000000000000/<name> and
//   ARNs like arn:aws:sqs:<region>:000000000000:<name>; Scaleway's are
//   https://sqs.mnq.<region>.scaleway.com/project-<uuid>/<name> and arn:scw:sqs:....
//   Never build either by hand: read QueueUrl / QueueArn from the API.
// - MessageRetentionPeriod is stored but messages never expire here.
// - CreateQueue on an existing name with different attributes fails here with
//   QueueNameExists (AWS says QueueAlreadyExists); provisioning avoids relying on either.
// - There is no trigger: local/trigger-bridge.ts plays Scaleway's queue trigger.
import { buildApp } from 'fauxqs';
import type { QueueSettings } from '../shared/adapters/queue';

export interface LocalQueue {
  endpoint: string;
  region: string;
  settings: QueueSettings;
  stop(): Promise<void>;
}

export async function startLocalQueue(opts: { port?: number; region?: string } = {}): Promise<LocalQueue> {
  const region = opts.region ?? 'fr-par';
  const app = buildApp({ logger: false, defaultRegion: region });
  await app.listen({ port: opts.port ?? 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') {
    await app.close();
    throw new Error('local queue did not get a TCP port');
  }
  const endpoint = `http://127.0.0.1:${address.port}`;
  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    region,
    // fauxqs accepts any credentials; these only have to be non-empty for SigV4 signing.
    settings: { endpoint, region, accessKeyId: 'local-access-key', secretAccessKey: 'local-secret-key' },
    stop: () => (stopping ??= app.close().then(() => undefined)),
  };
}
