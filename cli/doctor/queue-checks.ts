// The queues, asked only for their attributes: reachable, the reconcile queue's RedrivePolicy on the dead-letter
// queue, and its visibility timeout above the reconcile function's timeout.
import type { EventQueue } from '../../shared/adapters/queue';
import { createEventQueue } from '../../shared/adapters/queue';
import { type QueueEnv, queueEnvFromEnv } from '../../shared/platform/config';
import { describeError } from '../output';
import { type Check, fail, ok } from './check';

interface QueueAttributes {
  VisibilityTimeout?: string;
  RedrivePolicy?: string;
  QueueArn?: string;
}

async function queueAttributes(
  name: string,
  queue: EventQueue,
  url: string,
  variable: string,
): Promise<{ check: Check; attributes?: QueueAttributes }> {
  try {
    const attributes = (await queue.attributes(url)) as QueueAttributes;
    return { check: ok(name, `${url} answers (GetQueueAttributes)`), attributes };
  } catch (error) {
    const { message } = describeError(error);
    return {
      check: fail(
        name,
        message,
        `check ${variable} (printed by \`lbsync provision\`), SQS_ENDPOINT and the Queues credentials; reading attributes needs credentials that may manage queues`,
      ),
    };
  }
}

function redriveCheck(reconcile: QueueAttributes, deadLetter: QueueAttributes): Check {
  const name = 'queue:redrive';
  const hint = 'run `lbsync provision` with the same --prefix: it sets the RedrivePolicy to the dead-letter queue';
  if (!reconcile.RedrivePolicy)
    return fail(
      name,
      'the reconcile queue has no RedrivePolicy: a message that keeps failing is never moved to the dead-letter queue',
      hint,
    );
  let policy: { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
  try {
    policy = JSON.parse(reconcile.RedrivePolicy) as typeof policy;
  } catch {
    return fail(name, `the reconcile queue's RedrivePolicy is not JSON: ${reconcile.RedrivePolicy}`, hint);
  }
  if (policy.deadLetterTargetArn !== deadLetter.QueueArn) {
    return fail(
      name,
      `the reconcile queue's RedrivePolicy points at ${String(policy.deadLetterTargetArn)}, not at DEAD_LETTER_QUEUE_URL's queue (${deadLetter.QueueArn ?? 'no ARN'})`,
      hint,
    );
  }
  return ok(name, `the reconcile queue moves a message to the dead-letter queue after ${String(policy.maxReceiveCount)} receives`);
}

function visibilityCheck(reconcile: QueueAttributes, functionTimeoutSeconds: number): Check {
  const name = 'queue:visibility';
  const seconds = Number(reconcile.VisibilityTimeout);
  const hint = `run \`lbsync provision --function-timeout ${functionTimeoutSeconds}\`: it sets the visibility timeout to the function timeout + 30 s`;
  if (!Number.isFinite(seconds)) return fail(name, 'the reconcile queue reports no VisibilityTimeout', hint);
  if (seconds <= functionTimeoutSeconds) {
    return fail(
      name,
      `visibility timeout ${seconds} s is not above the reconcile function's timeout (${functionTimeoutSeconds} s): a slow invocation's message would be handed to a second one`,
      hint,
    );
  }
  return ok(name, `visibility timeout ${seconds} s > the reconcile function's timeout ${functionTimeoutSeconds} s`);
}

export async function queueChecks(env: NodeJS.ProcessEnv, functionTimeoutSeconds: number): Promise<Check[]> {
  let queueEnv: QueueEnv;
  try {
    queueEnv = queueEnvFromEnv(env);
  } catch (error) {
    const described = describeError(error);
    const missing = (described.fieldErrors ?? []).map((fe) => fe.path).join(', ');
    return [
      fail(
        'queue:config',
        `${missing || described.message} not set`,
        'set the queue variables (`lbsync provision` prints the URLs), or skip the queue checks with --no-queue',
      ),
    ];
  }
  const queue = createEventQueue(queueEnv);
  const [reconcile, deadLetter] = await Promise.all([
    queueAttributes('queue:reconcile', queue, queueEnv.reconcileQueueUrl, 'RECONCILE_QUEUE_URL'),
    queueAttributes('queue:dead-letter', queue, queueEnv.deadLetterQueueUrl, 'DEAD_LETTER_QUEUE_URL'),
  ]);
  const checks = [reconcile.check, deadLetter.check];
  if (reconcile.attributes && deadLetter.attributes) checks.push(redriveCheck(reconcile.attributes, deadLetter.attributes));
  if (reconcile.attributes) checks.push(visibilityCheck(reconcile.attributes, functionTimeoutSeconds));
  return checks;
}
