// `lbsync provision` through the bin, against the local queue (fauxqs).
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useLocalQueue } from '../support/local-queue';

const run = promisify(execFile);
const repoRoot = resolve(__dirname, '../..');

const fixture = useLocalQueue();
const { uniqueName } = fixture;

describe('lbsync provision', () => {
  const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

  it('prints the two queue URLs as KEY=value lines', async () => {
    const prefix = uniqueName('cli');
    const { stdout } = await run(process.execPath, ['bin/lbsync.mjs', 'provision'], {
      cwd: repoRoot,
      env: {
        ...baseEnv,
        SQS_ENDPOINT: fixture.local.endpoint,
        SQS_REGION: fixture.local.region,
        SQS_ACCESS_KEY_ID: 'cli-access',
        SQS_SECRET_ACCESS_KEY: 'cli-secret',
        LBSYNC_QUEUE_PREFIX: prefix,
        LBSYNC_FUNCTION_TIMEOUT_MS: '45000',
      },
    });
    expect(stdout).toBe(
      `RECONCILE_QUEUE_URL=${await fixture.queue.queueUrl(`${prefix}-reconcile`)}\n` +
        `DEAD_LETTER_QUEUE_URL=${await fixture.queue.queueUrl(`${prefix}-dead-letter`)}\n`,
    );
    const attributes = await fixture.queue.attributes(await fixture.queue.queueUrl(`${prefix}-reconcile`));
    expect(Number(attributes.VisibilityTimeout)).toBeGreaterThan(45);
  });

  it('names the missing variable and exits 1 without a stack trace', async () => {
    const failure = await run(process.execPath, ['bin/lbsync.mjs', 'provision'], {
      cwd: repoRoot,
      env: { ...baseEnv, SQS_ENDPOINT: fixture.local.endpoint, SQS_ACCESS_KEY_ID: 'cli-access' },
    }).catch((e: unknown) => e as { code: number; stderr: string; stdout: string });
    expect(failure).toMatchObject({ code: 1, stdout: '' });
    const { stderr } = failure as { stderr: string };
    expect(stderr).toContain('SQS_SECRET_ACCESS_KEY');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
