// Creates, or converges, the two queues the reconcile function lives on: the
// reconcile queue its trigger reads, and the dead-letter queue behind it.
import { createEventQueue, type EventQueue, type QueueSettings } from '../../shared/adapters/queue';

export interface ProvisionOptions {
  reconcileQueueName: string;
  deadLetterQueueName: string;
  functionTimeoutSeconds: number;
  /** Receives before SQS moves a message to the DLQ. Default 4: 1 delivery + the trigger's 3 retries. */
  maxReceiveCount?: number;
  /** Retention of the reconcile queue; the SQS default (4 days) when omitted. */
  messageRetentionSeconds?: number;
}

export interface ProvisionResult {
  reconcileQueueUrl: string;
  deadLetterQueueUrl: string;
  /** Names of the queues this run created / changed the attributes of. */
  created: string[];
  updated: string[];
}

export const DEFAULT_MAX_RECEIVE_COUNT = 4;
/**
 * A message must stay invisible for as long as one invocation may work on it, or the
 * trigger hands it to a second invocation while the first still runs (two reconciles
 * of one target racing). The margin covers cold start and the trigger's own HTTP time.
 */
export const VISIBILITY_MARGIN_SECONDS = 30;
/** The SQS maximum (14 days): a dead letter is kept as long as possible for inspection,
 * and never expires before the message it came from would have. */
export const DEAD_LETTER_RETENTION_SECONDS = 1_209_600;
const MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;

export async function provisionQueues(queueOrSettings: EventQueue | QueueSettings, options: ProvisionOptions): Promise<ProvisionResult> {
  const queue = 'send' in queueOrSettings ? queueOrSettings : createEventQueue(queueOrSettings);
  const visibilityTimeout = reconcileVisibilityTimeout(options.functionTimeoutSeconds);
  const maxReceiveCount = options.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT;
  if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1) {
    throw new RangeError(`maxReceiveCount must be a positive integer, got ${maxReceiveCount}`);
  }
  const result: ProvisionResult = { reconcileQueueUrl: '', deadLetterQueueUrl: '', created: [], updated: [] };

  // The DLQ first: the reconcile queue's RedrivePolicy names its ARN.
  result.deadLetterQueueUrl = await ensureQueue(
    queue,
    options.deadLetterQueueName,
    {
      MessageRetentionPeriod: String(DEAD_LETTER_RETENTION_SECONDS),
    },
    result,
  );
  const deadLetterArn = (await queue.attributes(result.deadLetterQueueUrl)).QueueArn;
  if (!deadLetterArn) throw new Error(`queue ${options.deadLetterQueueName} has no QueueArn attribute`);

  result.reconcileQueueUrl = await ensureQueue(
    queue,
    options.reconcileQueueName,
    {
      VisibilityTimeout: String(visibilityTimeout),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterArn, maxReceiveCount }),
      ...(options.messageRetentionSeconds === undefined ? {} : { MessageRetentionPeriod: String(options.messageRetentionSeconds) }),
    },
    result,
  );
  return result;
}

export function reconcileVisibilityTimeout(functionTimeoutSeconds: number): number {
  if (!Number.isInteger(functionTimeoutSeconds) || functionTimeoutSeconds < 1) {
    throw new RangeError(`functionTimeoutSeconds must be a positive integer, got ${functionTimeoutSeconds}`);
  }
  const seconds = functionTimeoutSeconds + VISIBILITY_MARGIN_SECONDS;
  if (seconds > MAX_VISIBILITY_TIMEOUT_SECONDS) {
    throw new RangeError(`functionTimeoutSeconds ${functionTimeoutSeconds} leaves no room under the 12 h visibility limit`);
  }
  return seconds;
}

async function ensureQueue(queue: EventQueue, name: string, desired: Record<string, string>, result: ProvisionResult): Promise<string> {
  const existingUrl = await queue.findQueueUrl(name);
  if (!existingUrl) {
    const url = await queue.createQueue(name, desired);
    result.created.push(name);
    return url;
  }
  const observed = await queue.attributes(existingUrl);
  const drift = attributesToChange(desired, observed);
  if (Object.keys(drift).length > 0) {
    await queue.setAttributes(existingUrl, drift);
    result.updated.push(name);
  }
  return existingUrl;
}

/** The desired attributes whose observed value differs; RedrivePolicy compared by meaning, not text. */
export function attributesToChange(desired: Record<string, string>, observed: Record<string, string>): Record<string, string> {
  const drift: Record<string, string> = {};
  for (const [name, value] of Object.entries(desired)) {
    const current = observed[name];
    const same = name === 'RedrivePolicy' ? sameRedrivePolicy(value, current) : value === current;
    if (!same) drift[name] = value;
  }
  return drift;
}

function sameRedrivePolicy(desired: string, observed: string | undefined): boolean {
  if (observed === undefined) return false;
  try {
    const a = JSON.parse(desired) as { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
    const b = JSON.parse(observed) as { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
    return a.deadLetterTargetArn === b.deadLetterTargetArn && Number(a.maxReceiveCount) === Number(b.maxReceiveCount);
  } catch {
    return false;
  }
}
