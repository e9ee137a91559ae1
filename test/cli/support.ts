import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { main } from '../../cli/main';
import { type EmulatorHandle, startEmulator } from '../../emulator';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import { createEventQueue, type EventQueue } from '../../shared/adapters/queue';
import { provisionQueues } from '../../cli/adapters/queue-provisioning';
import { DEMO_CLUSTER, FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../support/world';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const BIN = join(ROOT, 'bin/lbsync.mjs');

/** The CLI's environment for the demo target against this API URL (the emulator's): the fake keys, one kOps target. */
export function demoApiEnv(apiUrl: string): Record<string, string> {
  return {
    SCW_ACCESS_KEY: FAKE_ACCESS_KEY,
    SCW_SECRET_KEY: FAKE_SECRET_KEY,
    SCW_API_URL: apiUrl,
    LBSYNC_TARGETS: JSON.stringify([{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }]),
  };
}

/** A full-form target on the demo LB's `lb-backend-https` and the demo control planes, their addresses by this ipSource. */
export function demoControlPlaneTarget(name: string, ipSource: string): Record<string, unknown> {
  return {
    name,
    zone: 'fr-par-1',
    loadBalancer: { name: `api.${DEMO_CLUSTER}` },
    backends: [{ name: 'lb-backend-https', forwardPort: 443 }],
    servers: { tags: [`noprefix=kops.k8s.io/cluster=${DEMO_CLUSTER}`, 'noprefix=kops.k8s.io/role=ControlPlane'], ipSource },
  };
}

/**
 * An emulator, and process.env set for in-process CLI runs (`runInProcess`) on these targets, for one test file's
 * tests: the SDK's configuration loader reads process.env itself. process.env is restored after them.
 */
export function useInProcessCli(targets: readonly unknown[]): { readonly emulator: EmulatorHandle; readonly env: NodeJS.ProcessEnv } {
  const world = {} as { emulator: EmulatorHandle; env: NodeJS.ProcessEnv };
  let saved: NodeJS.ProcessEnv = {};
  beforeAll(async () => {
    world.emulator = await startEmulator({ instancePendingMs: 20 });
    saved = { ...process.env };
    world.env = Object.assign(process.env, { ...demoApiEnv(world.emulator.url), NO_COLOR: '1', LBSYNC_TARGETS: JSON.stringify(targets) });
  });
  afterAll(async () => {
    process.env = saved;
    await world.emulator?.stop();
  });
  return world;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real bin, as an operator runs it, with only the environment given (plus PATH and a scratch HOME). */
export function runBin(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<Run> {
  const home = mkdtempSync(join(tmpdir(), 'lbsync-home-'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
        timeout: timeoutMs,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The CLI in this process (process.env, as the local stack sets it), output captured. */
export async function runInProcess(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env });
  return { code, stdout, stderr };
}

export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The queue variables of a command run against the local queue (the URLs a provisioning returned). */
export function localQueueEnv(
  local: { endpoint: string; region: string; settings: { accessKeyId: string; secretAccessKey: string } },
  urls: { reconcileQueueUrl: string; deadLetterQueueUrl?: string },
): Record<string, string> {
  return {
    SQS_ENDPOINT: local.endpoint,
    SQS_REGION: local.region,
    SQS_ACCESS_KEY_ID: local.settings.accessKeyId,
    SQS_SECRET_ACCESS_KEY: local.settings.secretAccessKey,
    RECONCILE_QUEUE_URL: urls.reconcileQueueUrl,
    ...(urls.deadLetterQueueUrl && { DEAD_LETTER_QUEUE_URL: urls.deadLetterQueueUrl }),
  };
}

/** A local queue with its reconcile and dead-letter queues, and the environment `lbsync dlq` runs with against them. */
export async function startDeadLetterWorld(prefix: string): Promise<{
  local: LocalQueue;
  queue: EventQueue;
  urls: { reconcileQueueUrl: string; deadLetterQueueUrl: string };
  env: Record<string, string>;
}> {
  const local = await startLocalQueue();
  const queue = createEventQueue(local.settings);
  const urls = await provisionQueues(queue, {
    reconcileQueueName: `${prefix}-reconcile`,
    deadLetterQueueName: `${prefix}-dead-letter`,
    functionTimeoutSeconds: 60,
  });
  return { local, queue, urls, env: localQueueEnv(local, urls) };
}

/** An event as the reconcile queue's RedrivePolicy moves it to the dead-letter queue: the raw body, redrivable. */
export const deadLetteredEvent = (id: string) =>
  JSON.stringify({ version: 1, id, source: 'manual', target: 'demo.k8s.local', occurredAt: '2026-11-29T10:00:00Z', attempt: 3 });

/** `lbsync dlq <args>` with the real bin; json() parses what it printed. */
export async function runDlq(args: string[], env: Record<string, string>) {
  const run = await runBin(['dlq', ...args], env);
  return { ...run, json: () => JSON.parse(run.stdout) as Record<string, unknown> };
}
