// Plays Scaleway's queue trigger locally: long-polls a queue and POSTs each message's
// raw body to the function's "/", at most maxInFlight at a time. A 2xx deletes the
// message; anything else (status >= 300, a network error, a timeout) leaves it alone,
// so it comes back after the visibility timeout and, past the queue's RedrivePolicy
// maxReceiveCount, SQS moves it to the dead-letter queue — the same retry-then-DLQ path
// as on Scaleway, driven by the queue rather than by us.
import type { EventQueue, ReceivedMessage } from '../shared/adapters/queue';

export interface Delivery {
  messageId: string;
  status: number | 'error';
  /** ApproximateReceiveCount of the message: 1 on the first delivery. */
  attempt: number;
  durationMs: number;
  body: string;
  /** The function's answer (its body), when it answered. */
  answer?: string;
}

export interface TriggerBridgeOptions {
  queue: EventQueue;
  queueUrl: string;
  /** The function's base URL; messages are POSTed to its "/". */
  functionUrl: string;
  /** Scaleway's trigger keeps at most 10 messages in flight. */
  maxInFlight?: number;
  /** Per-receive override; leave unset to use the queue's own (the only choice on Scaleway). */
  visibilityTimeoutSeconds?: number;
  pollWaitSeconds?: number;
  /** Bound on one POST; default 60 s. */
  requestTimeoutMs?: number;
  onDelivery?: (delivery: Delivery) => void;
  /** A failed receive or delete; the bridge keeps going. */
  onQueueError?: (error: unknown) => void;
}

export interface TriggerBridgeStats {
  /** POSTs completed, whatever their answer. */
  delivered: number;
  deleted: number;
  /** POSTs answered >= 300 or not answered at all. */
  failed: number;
  inFlight: number;
}

export interface TriggerBridge {
  /** Stops polling and waits for the deliveries under way to finish. */
  stop(): Promise<void>;
  stats(): TriggerBridgeStats;
  /** Resolves once nothing is in flight, nothing happened for quietMs, and the queue is empty. */
  waitIdle(opts?: { quietMs?: number; timeoutMs?: number }): Promise<void>;
}

const MAX_MESSAGES_PER_RECEIVE = 10;
const QUEUE_ERROR_BACKOFF_MS = 500;

export function startTriggerBridge(options: TriggerBridgeOptions): TriggerBridge {
  const maxInFlight = options.maxInFlight ?? 10;
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1) {
    throw new RangeError(`maxInFlight must be a positive integer, got ${maxInFlight}`);
  }
  const pollWaitSeconds = options.pollWaitSeconds ?? 1;
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const functionEndpoint = `${options.functionUrl.replace(/\/+$/, '')}/`;
  const { queue, queueUrl } = options;

  const deliveries = new Set<Promise<void>>();
  const counters = { delivered: 0, deleted: 0, failed: 0 };
  let running = true;
  let lastActivityAt = Date.now();
  let wakeFromBackoff: (() => void) | undefined;

  const reportQueueError = (error: unknown) => {
    try {
      options.onQueueError?.(error);
    } catch {
      // An observer's failure must not stop the bridge.
    }
  };

  async function post(body: string): Promise<{ status: number | 'error'; answer?: string }> {
    try {
      const response = await fetch(functionEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        // A 3xx is a failure for the trigger, not something to follow.
        redirect: 'manual',
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      const answer = await response.text().catch(() => undefined);
      return { status: response.status, ...(answer !== undefined && { answer }) };
    } catch {
      return { status: 'error' };
    }
  }

  async function deliver(message: ReceivedMessage): Promise<void> {
    const startedAt = performance.now();
    const { status, answer } = await post(message.body);
    const durationMs = Math.round(performance.now() - startedAt);
    counters.delivered += 1;
    if (typeof status === 'number' && status >= 200 && status < 300) {
      try {
        await queue.delete(queueUrl, message.receiptHandle);
        counters.deleted += 1;
      } catch (error) {
        reportQueueError(error);
      }
    } else {
      counters.failed += 1;
    }
    lastActivityAt = Date.now();
    try {
      options.onDelivery?.({
        messageId: message.messageId,
        status,
        attempt: message.receiveCount,
        durationMs,
        body: message.body,
        ...(answer !== undefined && { answer }),
      });
    } catch {
      // An observer's failure must not stop the bridge.
    }
  }

  function track(message: ReceivedMessage): void {
    const delivery: Promise<void> = deliver(message).finally(() => deliveries.delete(delivery));
    deliveries.add(delivery);
  }

  async function backOff(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, QUEUE_ERROR_BACKOFF_MS);
      wakeFromBackoff = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wakeFromBackoff = undefined;
  }

  async function poll(): Promise<void> {
    while (running) {
      if (deliveries.size >= maxInFlight) {
        await Promise.race(deliveries);
        continue;
      }
      let messages: ReceivedMessage[];
      try {
        messages = await queue.receive(queueUrl, {
          maxMessages: Math.min(MAX_MESSAGES_PER_RECEIVE, maxInFlight - deliveries.size),
          waitSeconds: pollWaitSeconds,
          ...(options.visibilityTimeoutSeconds === undefined ? {} : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }),
        });
      } catch (error) {
        reportQueueError(error);
        if (running) await backOff();
        continue;
      }
      if (messages.length > 0) lastActivityAt = Date.now();
      // Messages received while stopping are delivered too: they are already invisible,
      // and delivering them is what the real trigger would do.
      for (const message of messages) track(message);
    }
  }

  const polling = poll();
  let stopping: Promise<void> | undefined;

  async function queueIsEmpty(): Promise<boolean> {
    try {
      const attributes = await queue.attributes(queueUrl);
      return ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'].every(
        (name) => (attributes[name] ?? '0') === '0',
      );
    } catch {
      return false;
    }
  }

  const stats = (): TriggerBridgeStats => ({ ...counters, inFlight: deliveries.size });

  return {
    stats,

    stop() {
      stopping ??= (async () => {
        running = false;
        wakeFromBackoff?.();
        await polling;
        await Promise.all(deliveries);
      })();
      return stopping;
    },

    async waitIdle({ quietMs = 300, timeoutMs = 15_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const quiet = deliveries.size === 0 && Date.now() - lastActivityAt >= quietMs;
        if (quiet && (await queueIsEmpty())) return;
        if (Date.now() >= deadline) {
          throw new Error(`trigger bridge not idle after ${timeoutMs} ms: ${JSON.stringify(stats())}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
