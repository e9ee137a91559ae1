// `lbsync provision` through the bin, against the local queue (fauxqs).
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import { createEventQueue, type EventQueue } from '../../shared/adapters/queue';

const run = promisify(execFile);
const repoRoot = resolve(__dirname, '../..');

let local: LocalQueue;
let queue: EventQueue;
let queueCounter = 0;
const uniqueName = (label: string) => `${label}-${process.pid}-${++queueCounter}`;

beforeAll(async () => {
  local = await startLocalQueue({ port: 0 });
  queue = createEventQueue(local.settings);
});

afterAll(async () => {
  await local?.stop();
});

describe('lbsync provision', () => {
  const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

  it('prints the two queue URLs as KEY=value lines', async () => {
    const prefix = uniqueName('cli');
    const { stdout } = await run(process.execPath, ['bin/lbsync.mjs', 'provision'], {
      cwd: repoRoot,
      env: {
        ...baseEnv,
        SQS_ENDPOINT: local.endpoint,
        SQS_REGION: local.region,
        SQS_ACCESS_KEY_ID: 'cli-access',
        SQS_SECRET_ACCESS_KEY: 'cli-secret',
        LBSYNC_QUEUE_PREFIX: prefix,
        LBSYNC_FUNCTION_TIMEOUT_SECONDS: '45',
      },
    });
    expect(stdout).toBe(
      `RECONCILE_QUEUE_URL=${await queue.queueUrl(`${prefix}-reconcile`)}\n` +
        `DEAD_LETTER_QUEUE_URL=${await queue.queueUrl(`${prefix}-dead-letter`)}\n`,
    );
    const attributes = await queue.attributes(await queue.queueUrl(`${prefix}-reconcile`));
    expect(Number(attributes.VisibilityTimeout)).toBeGreaterThan(45);
  });

  it('names the missing variable and exits 1 without a stack trace', async () => {
    const failure = await run(process.execPath, ['bin/lbsync.mjs', 'provision'], {
      cwd: repoRoot,
      env: { ...baseEnv, SQS_ENDPOINT: local.endpoint, SQS_ACCESS_KEY_ID: 'cli-access' },
    }).catch((e: unknown) => e as { code: number; stderr: string; stdout: string });
    expect(failure).toMatchObject({ code: 1, stdout: '' });
    const { stderr } = failure as { stderr: string };
    expect(stderr).toContain('SQS_SECRET_ACCESS_KEY');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
