// A function whose configuration is refused answers 500 and prints one function_failed line with the code
// (shared/platform/log-schema.ts), which Cockpit's "invalid configuration" alert counts: both when the process's
// environment itself is refused (no logger yet: the shell prints the line itself, on stderr) and when the targets
// are (the process logger prints it). The sweep function runs in a node of its own, its output captured.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { lineProblems } from '../../../shared/platform/log-schema';

const ROOT = new URL('../../../', import.meta.url).pathname;
const run = promisify(execFile);

const CALL_SWEEP = `
const { handle } = await import('./functions/sweep/handler.ts');
const answer = await handle({ httpMethod: 'POST', path: '/', headers: {}, body: '{}', isBase64Encoded: false });
process.stdout.write('ANSWER ' + answer.statusCode + '\\n');`;

const CALL_RECONCILE = `
const { handle } = await import('./functions/reconcile/handler.ts');
const body = JSON.stringify({ version: 1, id: 'evt-1', source: 'manual', target: 'a.k8s.local', occurredAt: new Date().toISOString() });
const answer = await handle({ httpMethod: 'POST', path: '/', headers: {}, body, isBase64Encoded: false });
process.stdout.write('ANSWER ' + answer.statusCode + '\\n' + 'BODY ' + answer.body + '\\n');`;

async function sweepWith(env: Record<string, string>) {
  return functionWith(CALL_SWEEP, env);
}

async function functionWith(call: string, env: Record<string, string>) {
  const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', call], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
  });
  const lines = `${stdout}${stderr}`.split('\n').filter((line) => line.startsWith('{'));
  return { answer: /^ANSWER (\d+)$/m.exec(stdout)?.[1], body: /^BODY (.*)$/m.exec(stdout)?.[1], lines };
}

describe('a function that cannot run', () => {
  it.each([
    ['the environment is refused (before any logger exists)', { LOG_LEVEL: 'chatty', LBSYNC_TARGETS: '[]' }],
    [
      'the targets are refused (the process logger prints it)',
      { LBSYNC_TARGETS: '[{"kops":{"cluster":"a.k8s.local","zone":"fr-pra-1"}}]' },
    ],
  ])(
    '%s: 500, and one function_failed line with invalid_config',
    async (_name, env) => {
      const { answer, lines } = await sweepWith({ RECONCILE_QUEUE_URL: 'http://127.0.0.1:9/q', ...env });
      expect(answer).toBe('500');
      const failed = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.log_type === 'function_failed');
      expect(failed).toEqual([expect.objectContaining({ level: 'ERROR', service: 'lbsync-sweep', code: 'invalid_config' })]);
      expect(lines.flatMap(lineProblems)).toEqual([]);
    },
    60_000,
  );
});

describe('a deployed reconcile function without its secret key', () => {
  it('answers 500 function_failed invalid_config naming LBSYNC_SCW_SECRET_KEY, on the first event and in its log; never a hand-off', async () => {
    const { answer, body, lines } = await functionWith(CALL_RECONCILE, {
      LBSYNC_TARGETS: '[{"kops":{"cluster":"a.k8s.local","zone":"fr-par-1"}}]',
      RECONCILE_QUEUE_URL: 'http://127.0.0.1:9/q',
      DEAD_LETTER_QUEUE_URL: 'http://127.0.0.1:9/dl',
      SQS_ACCESS_KEY_ID: 'SCWQUEUEKEY000000000',
      SQS_SECRET_ACCESS_KEY: '00000000-0000-4000-8000-0000000000aa',
      LBSYNC_SCW_ACCESS_KEY: 'SCWXXXXXXXXXXXXXXXXX',
    });
    // 500: the message is not deleted, the queue redelivers it and its RedrivePolicy dead-letters it in the end.
    expect(answer).toBe('500');
    expect(JSON.parse(body ?? '{}')).toMatchObject({
      outcome: 'function_failed',
      error: { code: 'invalid_config', message: expect.stringContaining('LBSYNC_SCW_SECRET_KEY: is not set') },
    });
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.filter((l) => l.log_type === 'function_failed')).toEqual([
      expect.objectContaining({
        code: 'invalid_config',
        message: expect.stringContaining('LBSYNC_SCW_SECRET_KEY'),
        error: expect.objectContaining({ field_errors: [expect.objectContaining({ path: 'LBSYNC_SCW_SECRET_KEY' })] }),
      }),
    ]);
    expect(parsed.filter((l) => /hand-off|queue_unavailable/.test(JSON.stringify(l)))).toEqual([]);
    expect(lines.flatMap(lineProblems)).toEqual([]);
  }, 60_000);
});
