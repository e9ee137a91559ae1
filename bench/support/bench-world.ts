/** The outside world of the functions, in this process: emulated Scaleway API + local SQS queue, and the env naming them. */
import type { EmulatorHandle, EmulatorOptions, EmulatorSeed } from '../../emulator';
import { startEmulator } from '../../emulator';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import type { EventQueue } from '../../shared/adapters/queue';
import { createEventQueue } from '../../shared/adapters/queue';
import { createScalewayGateway, type ScalewayGateway } from '../../shared/adapters/scaleway';
import { provisionQueues } from '../../cli/adapters/queue-provisioning';
import type { TargetInput } from '../../shared/schemas/target';
import { PROJECT_ID, ZONE } from './fleet';

export const ACCESS_KEY = 'SCWBENCHACCESSKEY001';
export const SECRET_KEY = '11111111-2222-4333-8444-555555555555';
export const INJECT_TOKEN = 'bench-inject-token-0123456789abcdef';

export interface BenchWorld {
  emulator: EmulatorHandle;
  queue?: LocalQueue;
  events?: EventQueue;
  reconcileQueueUrl: string;
  deadLetterQueueUrl: string;
  /** Environment for a function process (child or in-process), targets given separately. */
  env(targets: TargetInput[], extra?: Record<string, string>): Record<string, string>;
  gateway(): ScalewayGateway;
  /** Reads and writes the emulator answered since the last reset. */
  callCounts(): { reads: number; writes: number; byOperation: Record<string, number> };
  stop(): Promise<void>;
}

export async function startBenchWorld(
  options: { seed: EmulatorSeed; withQueue?: boolean } & Omit<EmulatorOptions, 'seed'>,
): Promise<BenchWorld> {
  const { withQueue = true, ...emulatorOptions } = options;
  const emulator = await startEmulator({ instancePendingMs: 0, ...emulatorOptions });
  let queue: LocalQueue | undefined;
  let events: EventQueue | undefined;
  let reconcileQueueUrl = '';
  let deadLetterQueueUrl = '';
  if (withQueue) {
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    queue = await startLocalQueue();
    events = createEventQueue(queue.settings);
    const suffix = Math.random().toString(36).slice(2, 8);
    const queues = await provisionQueues(events, {
      reconcileQueueName: `bench-reconcile-${suffix}`,
      deadLetterQueueName: `bench-dead-letter-${suffix}`,
      functionTimeoutSeconds: 30,
    });
    reconcileQueueUrl = queues.reconcileQueueUrl;
    deadLetterQueueUrl = queues.deadLetterQueueUrl;
  }
  return {
    emulator,
    ...(queue && { queue }),
    ...(events && { events }),
    reconcileQueueUrl,
    deadLetterQueueUrl,
    env: (targets, extra = {}) => ({
      SCW_ACCESS_KEY: ACCESS_KEY,
      SCW_SECRET_KEY: SECRET_KEY,
      SCW_DEFAULT_PROJECT_ID: PROJECT_ID,
      // The fleet's organization (a cron function reading Audit Trail needs it).
      SCW_DEFAULT_ORGANIZATION_ID: PROJECT_ID,
      SCW_DEFAULT_ZONE: ZONE,
      SCW_API_URL: emulator.url,
      ...(queue && {
        SQS_ENDPOINT: queue.endpoint,
        SQS_REGION: queue.region,
        SQS_ACCESS_KEY_ID: queue.settings.accessKeyId,
        SQS_SECRET_ACCESS_KEY: queue.settings.secretAccessKey,
      }),
      RECONCILE_QUEUE_URL: reconcileQueueUrl || 'http://127.0.0.1:9/none/reconcile',
      DEAD_LETTER_QUEUE_URL: deadLetterQueueUrl || 'http://127.0.0.1:9/none/dead-letter',
      LBSYNC_TARGETS: JSON.stringify(targets),
      INJECT_TOKEN,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // The sweep's fan-out is measured all at once; bench/sweep-spread.ts measures the spread.
      LBSYNC_SWEEP_SPREAD_MS: '0',
      ...extra,
    }),
    gateway: () =>
      createScalewayGateway({
        accessKey: ACCESS_KEY,
        secretKey: SECRET_KEY,
        apiUrl: emulator.url,
        defaultZone: ZONE,
        requestTimeoutMs: 10_000,
      }),
    callCounts: () => {
      const calls = emulator.calls();
      const byOperation: Record<string, number> = {};
      for (const c of calls) byOperation[c.operation] = (byOperation[c.operation] ?? 0) + 1;
      return { reads: calls.filter((c) => !c.write).length, writes: calls.filter((c) => c.write).length, byOperation };
    },
    async stop() {
      await queue?.stop();
      await emulator.stop();
    },
  };
}
