// Plays the queue trigger for a backlog: receives the reconcile queue's messages 10 at a time and hands each
// to the reconcile bundle's handle(), until the queue is empty. argv: <handler path>. Reports answers over IPC.
'use strict';
const { handle } = require(process.argv[2]);
const sqs = require('@aws-sdk/client-sqs');

const client = new sqs.SQSClient({
  endpoint: process.env.SQS_ENDPOINT,
  region: process.env.SQS_REGION,
  credentials: { accessKeyId: process.env.SQS_ACCESS_KEY_ID, secretAccessKey: process.env.SQS_SECRET_ACCESS_KEY },
});
const QueueUrl = process.env.RECONCILE_QUEUE_URL;

(async () => {
  const outcomes = {};
  let handled = 0;
  let empty = 0;
  const t0 = performance.now();
  while (empty < 2) {
    const { Messages = [] } = await client.send(new sqs.ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (Messages.length === 0) {
      empty += 1;
      continue;
    }
    empty = 0;
    await Promise.all(
      Messages.map(async (m) => {
        const answer = await handle({ httpMethod: 'POST', path: '/', headers: {}, body: m.Body, isBase64Encoded: false }, {});
        const key = `${answer.statusCode} ${JSON.parse(answer.body).outcome}`;
        outcomes[key] = (outcomes[key] ?? 0) + 1;
        handled += 1;
        if (answer.statusCode < 300) await client.send(new sqs.DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle }));
      }),
    );
  }
  process.send({ handled, outcomes, wallMs: performance.now() - t0 }, () => process.exit(0));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
