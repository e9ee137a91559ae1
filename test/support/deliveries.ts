/**
 * One event through the real path, one delivery at a time: the local SQS-protocol queue, the reconcile handler
 * (real SDK -> emulator), its re-enqueues and dead letters. Between deliveries the test moves the world
 * (a server passes its health check, a tag comes back...), so nothing races a clock: holds and polls last at most
 * 20 ms, and the handler's clock counts them at their full length (the retry horizon is measured on it).
 */
import { randomUUID } from 'node:crypto';
import type { EmulatorHandle } from '../../emulator';
import type { EventQueue } from '../../shared/adapters/queue';
import { createScalewayGateway } from '../../shared/adapters/scaleway';
import { runtimeConfigFromEnv } from '../../shared/platform/config';
import type { DeadLetterRecord } from '../../shared/handlers/dead-letter';
import { handleReconcileMessage, type ReconcileAnswerBody } from '../../shared/handlers/reconcile-message';
import { createLogger } from '../../shared/platform/log';
import { provisionQueues } from '../../cli/adapters/queue-provisioning';
import type { Target } from '../../shared/schemas/target';
import { FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from './world';

export interface Deliveries {
  eventId: string;
  answers: ReconcileAnswerBody[];
  /** Delivers the next message of the event, if any; undefined once the queue holds none. */
  next(): Promise<ReconcileAnswerBody | undefined>;
  /** Delivers until the event is answered finally (applied / noop / dead_lettered), at most `max` deliveries. */
  untilFinal(max?: number, between?: (answer: ReconcileAnswerBody, index: number) => void): Promise<ReconcileAnswerBody | undefined>;
  deadLetters(): Promise<DeadLetterRecord[]>;
}

async function drain(events: EventQueue, queueUrl: string): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const batch = await events.receive(queueUrl, { maxMessages: 10, waitSeconds: 0 });
    if (batch.length === 0) return bodies;
    for (const message of batch) {
      bodies.push(message.body);
      await events.delete(queueUrl, message.receiptHandle);
    }
  }
}

export interface SendOptions {
  /** Fields of the event sent (dryRun, occurredAt...). */
  event?: Record<string, unknown>;
  /** Every line the handler logs (JSON text), at info level and up. */
  onLogLine?: (line: string) => void;
}

export async function sendEvent(
  events: EventQueue,
  emulator: EmulatorHandle,
  target: Target,
  env: Record<string, string> = {},
  options: SendOptions = {},
): Promise<Deliveries> {
  const suffix = randomUUID().slice(0, 8);
  const queues = await provisionQueues(events, {
    reconcileQueueName: `deliveries-${suffix}`,
    deadLetterQueueName: `deliveries-dlq-${suffix}`,
    functionTimeoutSeconds: 5,
  });
  const runtime = runtimeConfigFromEnv({
    LBSYNC_RETRY_BASE_MS: '50',
    LBSYNC_RETRY_CAP_MS: '400',
    // Draws of 0.5: delays of 38, 75, 150, 300 ms..., about ten attempts before the horizon.
    LBSYNC_RETRY_HORIZON_MS: '2000',
    LBSYNC_MAX_HOLD_MS: '60000',
    LBSYNC_WAIT_BUDGET_MS: '400',
    LBSYNC_TRANSIENT_WAIT_MS: '0',
    LBSYNC_DUPLICATE_GRACE_MS: '0',
    ...env,
  });
  const eventId = `evt-${suffix}`;
  let skippedMs = 0;
  const deps = {
    targets: new Map([[target.name, target]]),
    gateway: () =>
      createScalewayGateway({
        accessKey: FAKE_ACCESS_KEY,
        secretKey: FAKE_SECRET_KEY,
        apiUrl: emulator.url,
        defaultZone: 'fr-par-1',
        requestTimeoutMs: 5_000,
        eventId,
      }),
    queues: { client: () => events, reconcileQueueUrl: queues.reconcileQueueUrl, deadLetterQueueUrl: queues.deadLetterQueueUrl },
    runtime,
    logger: options.onLogLine
      ? createLogger({ service: 'deliveries', level: 'info', destination: { write: options.onLogLine } })
      : createLogger({ service: 'deliveries', level: 'silent' }),
    clock: {
      now: () => Date.now() + skippedMs,
      sleep: async (ms: number) => {
        const real = Math.min(ms, 20);
        await new Promise<void>((resolve) => setTimeout(resolve, real));
        skippedMs += Math.max(0, ms - real);
      },
    },
    random: () => 0.5,
  };
  await events.send(
    queues.reconcileQueueUrl,
    JSON.stringify({
      version: 1,
      id: eventId,
      source: 'manual',
      target: target.name,
      occurredAt: new Date().toISOString(),
      ...options.event,
    }),
  );
  const answers: ReconcileAnswerBody[] = [];
  const next = async (): Promise<ReconcileAnswerBody | undefined> => {
    const [message] = await events.receive(queues.reconcileQueueUrl, { maxMessages: 1, waitSeconds: 0, visibilityTimeoutSeconds: 30 });
    if (!message) return undefined;
    const response = await handleReconcileMessage(message.body, deps);
    if (response.statusCode !== 200) throw new Error(`hand-off failed: ${response.body}`);
    await events.delete(queues.reconcileQueueUrl, message.receiptHandle);
    const answer = JSON.parse(response.body) as ReconcileAnswerBody;
    answers.push(answer);
    return answer;
  };
  return {
    eventId,
    answers,
    next,
    async untilFinal(max = 12, between) {
      for (let i = 0; i < max; i += 1) {
        const answer = await next();
        if (answer?.outcome !== 'retry_scheduled') return answer;
        between?.(answer, answers.length - 1);
      }
      return undefined;
    },
    deadLetters: async () => (await drain(events, queues.deadLetterQueueUrl)).map((body) => JSON.parse(body) as DeadLetterRecord),
  };
}
