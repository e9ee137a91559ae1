// tsx shared/queue/provision-cli.ts
// Creates or converges <prefix>-reconcile and <prefix>-dead-letter and prints their
// URLs as KEY=value lines, ready to eval or paste into an environment.
import type { QueueSettings } from '../adapters/queue';
import { provisionQueues } from './provision';

interface ProvisionEnvironment {
  settings: QueueSettings;
  reconcileQueueName: string;
  deadLetterQueueName: string;
  functionTimeoutSeconds: number;
}

class EnvironmentError extends Error {}

const QUEUE_NAME_PREFIX = /^[A-Za-z0-9_-]{1,60}$/;

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new EnvironmentError(`missing environment variable ${name}`);
  return value;
}

function readProvisionEnvironment(env: NodeJS.ProcessEnv): ProvisionEnvironment {
  const region = env.SQS_REGION?.trim() || 'fr-par';
  const endpoint = env.SQS_ENDPOINT?.trim() || undefined;
  const settings: QueueSettings = {
    ...(endpoint ? { endpoint } : {}),
    region,
    accessKeyId: required(env, 'SQS_ACCESS_KEY_ID'),
    secretAccessKey: required(env, 'SQS_SECRET_ACCESS_KEY'),
  };
  if (endpoint && !/^https?:\/\//.test(endpoint)) {
    throw new EnvironmentError(`SQS_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  }

  const prefix = env.LBSYNC_QUEUE_PREFIX?.trim() || 'lbsync';
  if (!QUEUE_NAME_PREFIX.test(prefix)) {
    throw new EnvironmentError(
      `LBSYNC_QUEUE_PREFIX must be 1-60 letters, digits, "-" or "_", got "${prefix}"`,
    );
  }

  const timeoutText = env.LBSYNC_FUNCTION_TIMEOUT_SECONDS?.trim() || '60';
  const functionTimeoutSeconds = Number(timeoutText);
  if (!Number.isInteger(functionTimeoutSeconds) || functionTimeoutSeconds < 1) {
    throw new EnvironmentError(
      `LBSYNC_FUNCTION_TIMEOUT_SECONDS must be a positive whole number of seconds, got "${timeoutText}"`,
    );
  }

  return {
    settings,
    reconcileQueueName: `${prefix}-reconcile`,
    deadLetterQueueName: `${prefix}-dead-letter`,
    functionTimeoutSeconds,
  };
}

async function main(): Promise<void> {
  const environment = readProvisionEnvironment(process.env);
  const result = await provisionQueues(environment.settings, environment);
  process.stdout.write(
    `RECONCILE_QUEUE_URL=${result.reconcileQueueUrl}\nDEAD_LETTER_QUEUE_URL=${result.deadLetterQueueUrl}\n`,
  );
  const changes = [
    ...result.created.map((name) => `created ${name}`),
    ...result.updated.map((name) => `updated ${name}`),
  ];
  process.stderr.write(`${changes.length > 0 ? changes.join(', ') : 'queues already up to date'}\n`);
}

main().catch((error: unknown) => {
  // Messages only: a stack trace helps nobody fix an environment, and QueueHandOffError
  // messages already name the operation and queue (never the credentials).
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`provision-queues: ${message}\n`);
  process.exitCode = 1;
});
