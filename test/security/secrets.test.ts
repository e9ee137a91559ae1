// The whole stack in a child process with fake credentials, SCW_API_URL carrying user:password@, an API
// that echoes the secrets in 400/418/500 bodies, LOG_LEVEL=trace, and the CLI run against it: every byte
// it writes (the functions' logs go to fd 1 through pino, their answers and the CLI's output are printed
// too) and every dead-letter record is searched for each secret, plain and encoded.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DeadLetterRecord } from '../../shared/handlers/dead-letter';
import { ALL_SECRETS, TEAM_TARGET, UNSET_KEY_TARGET } from './fixtures/secrets';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/secret-stack.ts', import.meta.url));

function runFixture(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
      cwd: root,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** A secret as it might leak: verbatim, base64 (and base64url), URL-encoded, JSON-escaped. */
function forms(secret: string): string[] {
  return [
    ...new Set([
      secret,
      Buffer.from(secret).toString('base64').replace(/=+$/, ''),
      Buffer.from(secret).toString('base64url'),
      encodeURIComponent(secret),
      JSON.stringify(secret).slice(1, -1),
    ]),
  ];
}

function parsed<T>(json: string): T {
  try {
    return JSON.parse(json) as T;
  } catch (error) {
    throw new Error(`not JSON (${(error as Error).message}): ${json.slice(0, 300)}`);
  }
}

interface Answer {
  outcome?: string;
  reason?: string;
  error?: { code?: string; message?: string };
}

describe('secrets never leave', () => {
  it('runs the whole stack and the CLI against an API that echoes them, and finds none in logs, answers, records or CLI output', async () => {
    const { code, output } = await runFixture();
    expect(code, output.slice(-3_000)).toBe(0);

    const lines = output.split('\n');
    const logLines = lines.filter((l) => l.startsWith('{"level"'));
    const answers = lines.filter((l) => l.startsWith('ANSWER {')).map((l) => parsed<Answer>(l.slice('ANSWER '.length)));
    const cliRuns = lines.filter((l) => l.startsWith('CLI '));
    const records = parsed<DeadLetterRecord[]>(lines.find((l) => l.startsWith('DLQ-RECORDS '))?.slice('DLQ-RECORDS '.length) ?? '[]');

    // The run really went through every path that could leak.
    const services = new Set(logLines.map((l) => parsed<{ service?: string }>(l).service));
    expect([...services].sort()).toEqual(['lbsync-inject', 'lbsync-reconcile', 'lbsync-sweep', 'lbsync-watch']);
    expect(logLines.length).toBeGreaterThan(30);
    expect(output).toContain('dead-lettered');
    expect(output).toContain('retry ');
    const reasons = new Set(records.map((r) => r.reason));
    for (const reason of ['invalid_event', 'unknown_target', 'permanent_error', 'retries_exhausted']) expect(reasons).toContain(reason);
    // A fleet target's key was used (its target's calls met the same echoing API), and one whose variables are unset
    // was dead-lettered naming them, never a value.
    const unsetKey = records.find((r) => r.target === UNSET_KEY_TARGET);
    expect(unsetKey).toMatchObject({ reason: 'permanent_error', error: { code: 'invalid_config' } });
    expect(unsetKey?.error.message).toContain('NOBODY_ACCESS_KEY: is not set');
    expect(answers.some((a) => (a as { target?: string }).target === TEAM_TARGET)).toBe(true);
    // The watcher read each organization with a key of its own targets; a refused pair was told as a warning.
    const unread = answers.flatMap((a) => (a as { unread?: { code: string }[] }).unread ?? []);
    expect(unread.map((u) => u.code)).toContain('permissions_denied');
    const codes = new Set(records.map((r) => r.error.code));
    for (const c of ['authentication_denied', 'invalid_arguments', 'unknown_api_error', 'api_unavailable']) expect(codes).toContain(c);
    // The echoes arrived, scrubbed: in records, in the functions' answers and in the CLI's output.
    const echoed = records.filter((r) => ['invalid_arguments', 'unknown_api_error', 'api_unavailable'].includes(r.error.code));
    for (const r of echoed) expect(r.error.message).toContain('[redacted]');
    expect(answers.some((a) => a.error?.code === 'unknown_api_error' && a.error.message?.includes('[redacted]'))).toBe(true);
    expect(
      answers.some(
        (a) => a.outcome === 'retry_scheduled' && a.error?.code === 'api_unavailable' && a.error.message?.includes('[redacted]'),
      ),
    ).toBe(true);
    expect(cliRuns).toHaveLength(11);
    expect(cliRuns.filter((l) => l.startsWith('CLI reconcile') || l.startsWith('CLI plan'))).toHaveLength(4);
    const cliOutput = output.slice(output.indexOf('\nCLI '));
    for (const c of ['invalid_arguments', 'unknown_api_error', 'api_unavailable', 'forbidden']) expect(cliOutput).toContain(c);
    expect(cliOutput).toMatch(/hint: a private function needs X-Auth-Token/);
    // The URL's credentials: dropped (never sent), and said so by name, in the functions' logs and the CLI.
    expect(logLines.some((l) => l.includes('SCW_API_URL carries credentials'))).toBe(true);
    expect(cliOutput).toContain('warning: SCW_API_URL carries credentials');
    expect(records.find((r) => r.rawBody?.startsWith('{"leak"'))?.rawBody).toBe('{"leak":"[redacted]","also":"[redacted]"');

    const recordsText = JSON.stringify(records);
    for (const [name, secret] of Object.entries(ALL_SECRETS)) {
      for (const form of forms(secret)) {
        expect(output.includes(form), `${name} (${form}) in the output (logs, answers, CLI)`).toBe(false);
        expect(recordsText.includes(form), `${name} (${form}) in a dead-letter record`).toBe(false);
      }
    }
  }, 90_000);
});
