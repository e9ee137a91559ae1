/** Reading the local stack's dead-letter queue out, as the driver and the final accounting both need to. */
import type { LocalStack } from '../local/stack';
import type { DeadLetterRecord } from '../shared/handlers/dead-letter';
import { parseJson } from './json';

/** Every record in the dead-letter queue (deleted as read); a message the queue redrove itself is kept as { __raw }. */
export async function drainDeadLetters(stack: LocalStack): Promise<DeadLetterRecord[]> {
  const records: DeadLetterRecord[] = [];
  for (;;) {
    const batch = await stack.events.receive(stack.deadLetterQueueUrl, { maxMessages: 10, waitSeconds: 0 });
    if (batch.length === 0) return records;
    for (const message of batch) {
      const parsed = parseJson(message.body) as DeadLetterRecord | undefined;
      records.push(parsed && parsed.kind === 'lbsync.dead-letter' ? parsed : ({ __raw: message.body } as unknown as DeadLetterRecord));
      await stack.events.delete(stack.deadLetterQueueUrl, message.receiptHandle);
    }
  }
}
