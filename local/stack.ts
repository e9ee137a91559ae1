// The whole system on one machine, no Scaleway account: the emulated Scaleway API (Audit Trail included),
// an SQS-compatible queue with its dead-letter queue, the four functions served by Scaleway's local
// runtime, a trigger bridge playing the queue trigger, and cron tickers for the sweep and the watcher.
import { randomBytes } from 'node:crypto';
import type { ApiDenial, EmulatorBehaviours, EmulatorHandle, EmulatorSeed } from '../emulator';
import { startEmulator } from '../emulator';
import type { EventQueue } from '../shared/adapters/queue';
import { createEventQueue } from '../shared/adapters/queue';
import type { DeadLetterRecord } from '../shared/handlers/dead-letter';
import { provisionQueues } from '../cli/adapters/queue-provisioning';
import type { TargetInput } from '../shared/schemas/target';
import { startCronTicker, startIntervalTicker } from './cron';
import type { LocalQueue } from './queue-server';
import { startLocalQueue } from './queue-server';
import { FUNCTION_NAMES, type FunctionName } from '../functions/registry';
import type { ServedFunction } from './serve-functions';
import { loadHandlers, serveFunction } from './serve-functions';
import { privateGate } from './private-gate';
import type { Delivery, TriggerBridge } from './trigger-bridge';
import { startTriggerBridge } from './trigger-bridge';

export interface LocalStackOptions {
  seed: EmulatorSeed;
  targets: TargetInput[];
  /** dist: the deployable bundles (npm start); source: the TypeScript, for tests. */
  functionsFrom: 'dist' | 'source';
  instancePendingMs?: number;
  /** The emulator's switches (health timing, ...): npm start's demo lets a new member take a while to pass. */
  behaviours?: Partial<EmulatorBehaviours>;
  /** Extra environment for the functions (retry tuning, LOG_LEVEL...). */
  env?: Record<string, string>;
  /** 5-field cron for the sweep; false for none. */
  sweepCron?: string | false;
  /** 5-field cron for the watcher (Audit Trail); false for none (the default). */
  watchCron?: string | false;
  /** Runs the watcher every this many ms instead (a scaled clock for tests and the benchmark). */
  watchEveryMs?: number;
  /** How long after a change the emulator lists it in Audit Trail (ASSUMED; emulator default 30000). */
  auditTrailDelayMs?: number;
  /** Per-receive visibility timeout of the bridge (the local queue honours it; Scaleway uses the queue's). */
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  onDelivery?: (delivery: Delivery) => void;
  /** Serve inject as a private function: callers must send this as X-Auth-Token (403 otherwise). */
  functionToken?: string;
  /** The SCW_API_URL the functions get, from the emulator's URL (default: that URL). */
  scwApiUrl?: (emulatorUrl: string) => string;
  /** Fixed ports, so other tools can be pointed at stable URLs (default: any free port for each). */
  ports?: LocalStackPorts;
  /** API keys the emulator answers 403 on one API each (its permission switches, emulator/permissions.ts). */
  denyApis?: ApiDenial[];
}

export interface LocalStackPorts {
  emulator?: number;
  queue?: number;
  functions?: Partial<Record<FunctionName, number>>;
}

export interface LocalStack {
  emulator: EmulatorHandle;
  queue: LocalQueue;
  events: EventQueue;
  reconcileQueueUrl: string;
  deadLetterQueueUrl: string;
  functions: Record<FunctionName, ServedFunction>;
  bridge: TriggerBridge;
  injectToken: string;
  /** The environment the functions run with (credentials are local fakes). */
  env: Record<string, string>;
  inject(event: unknown, token?: string): Promise<{ status: number; body: unknown }>;
  sweep(args?: unknown): Promise<{ status: number; body: unknown }>;
  /** One run of the watcher, as its cron trigger would make it. */
  watch(args?: unknown): Promise<{ status: number; body: unknown }>;
  /** Reads (and removes) what the dead-letter queue holds. */
  drainDeadLetters(): Promise<DeadLetterRecord[]>;
  stop(): Promise<void>;
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed };
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  // The AWS SDK warns about Node 20 once per process; deployed functions run node22.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const started: { stop(): Promise<void> | void }[] = [];
  try {
    // Without instancePendingMs, the emulator's recorded default (400 ms).
    const emulator = await startEmulator({
      seed: options.seed,
      ...(options.ports?.emulator !== undefined && { port: options.ports.emulator }),
      ...(options.instancePendingMs !== undefined && { instancePendingMs: options.instancePendingMs }),
      ...(options.auditTrailDelayMs !== undefined && { auditTrailDelayMs: options.auditTrailDelayMs }),
      ...(options.behaviours && { behaviours: options.behaviours }),
      ...(options.denyApis && { denyApis: options.denyApis }),
    });
    started.push(emulator);
    const queue = await startLocalQueue(options.ports?.queue !== undefined ? { port: options.ports.queue } : {});
    started.push(queue);
    const events = createEventQueue(queue.settings);
    const queues = await provisionQueues(events, {
      reconcileQueueName: 'lbsync-reconcile',
      deadLetterQueueName: 'lbsync-dead-letter',
      functionTimeoutSeconds: 30,
      ...(options.maxReceiveCount !== undefined && { maxReceiveCount: options.maxReceiveCount }),
    });
    const injectToken = randomBytes(24).toString('base64url');
    const env: Record<string, string> = {
      SCW_ACCESS_KEY: 'SCWLOCALEMULATOR0000',
      SCW_SECRET_KEY: '00000000-0000-4000-8000-00000000c0de',
      SCW_DEFAULT_PROJECT_ID: options.seed.projectId ?? emulator.state.owner.projectId,
      SCW_DEFAULT_ORGANIZATION_ID: emulator.state.owner.organizationId,
      SCW_DEFAULT_ZONE: 'fr-par-1',
      SCW_API_URL: options.scwApiUrl ? options.scwApiUrl(emulator.url) : emulator.url,
      SQS_ENDPOINT: queue.endpoint,
      SQS_REGION: queue.region,
      SQS_ACCESS_KEY_ID: queue.settings.accessKeyId,
      SQS_SECRET_ACCESS_KEY: queue.settings.secretAccessKey,
      RECONCILE_QUEUE_URL: queues.reconcileQueueUrl,
      DEAD_LETTER_QUEUE_URL: queues.deadLetterQueueUrl,
      LBSYNC_TARGETS: JSON.stringify(options.targets),
      INJECT_TOKEN: injectToken,
      // The platform's timeout of the reconcile function, as the queues were provisioned for (30 s).
      LBSYNC_FUNCTION_TIMEOUT_MS: '30000',
      LBSYNC_DEADLINE_MARGIN_MS: '5000',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // Locally a sweep sends everything at once unless asked (its cron runs every minute, not every 5).
      LBSYNC_SWEEP_SPREAD_MS: '0',
      ...(options.watchEveryMs !== undefined && { LBSYNC_WATCH_PERIOD_MS: String(options.watchEveryMs) }),
      ...options.env,
    };
    // The functions run in this process and read their environment on first call, as on the platform.
    Object.assign(process.env, env);
    const handlers = await loadHandlers(options.functionsFrom);
    const functions = {} as Record<FunctionName, ServedFunction>;
    for (const name of FUNCTION_NAMES) {
      const handle = name === 'inject' && options.functionToken ? privateGate(handlers[name], options.functionToken) : handlers[name];
      functions[name] = await serveFunction(name, handle, options.ports?.functions?.[name] ?? 0);
      started.push(functions[name]);
    }
    const bridge = startTriggerBridge({
      queue: events,
      queueUrl: queues.reconcileQueueUrl,
      functionUrl: functions.reconcile.url,
      maxInFlight: 10,
      ...(options.visibilityTimeoutSeconds !== undefined && { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }),
      ...(options.onDelivery && { onDelivery: options.onDelivery }),
    });
    started.push(bridge);
    const sweep = (args: unknown = {}) => postJson(functions.sweep.url, args);
    if (options.sweepCron) {
      const ticker = startCronTicker(options.sweepCron, () => void sweep().catch(() => undefined));
      started.push(ticker);
    }
    const watch = (args: unknown = {}) => postJson(functions.watch.url, args);
    if (options.watchCron) started.push(startCronTicker(options.watchCron, () => void watch().catch(() => undefined)));
    if (options.watchEveryMs !== undefined) started.push(startIntervalTicker(options.watchEveryMs, () => watch()));
    return {
      emulator,
      queue,
      events,
      reconcileQueueUrl: queues.reconcileQueueUrl,
      deadLetterQueueUrl: queues.deadLetterQueueUrl,
      functions,
      bridge,
      injectToken,
      env,
      inject: (event, token = injectToken) =>
        postJson(functions.inject.url, event, {
          Authorization: `Bearer ${token}`,
          ...(options.functionToken && { 'X-Auth-Token': options.functionToken }),
        }),
      sweep,
      watch,
      async drainDeadLetters() {
        const records: DeadLetterRecord[] = [];
        for (;;) {
          const batch = await events.receive(queues.deadLetterQueueUrl, { maxMessages: 10, waitSeconds: 0 });
          if (batch.length === 0) return records;
          for (const message of batch) {
            records.push(JSON.parse(message.body) as DeadLetterRecord);
            await events.delete(queues.deadLetterQueueUrl, message.receiptHandle);
          }
        }
      },
      stop: () => stopAll(started),
    };
  } catch (error) {
    await stopAll(started);
    throw error;
  }
}

async function stopAll(started: { stop(): Promise<void> | void }[]): Promise<void> {
  for (const part of [...started].reverse()) {
    try {
      await part.stop();
    } catch {
      // keep stopping the rest
    }
  }
}
