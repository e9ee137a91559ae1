// The whole stack in a child process with fake credentials and LOG_LEVEL=trace; every byte it writes
// (the functions log to fd 1 through pino) and every dead-letter record is searched for the secrets.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DeadLetterRecord } from '../../shared/dead-letter';
import { FAKE_SECRETS } from './fixtures/secrets';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/secret-stack.ts', import.meta.url));

function runFixture(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], { cwd: root, env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** A secret as it might leak: verbatim, base64 (Basic auth), URL-encoded, JSON-escaped. */
function forms(secret: string): string[] {
  return [secret, Buffer.from(secret).toString('base64'), encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
}

describe('secrets never reach the logs or the dead-letter queue', () => {
  it('runs the stack with fake keys and finds none of them in any output or record', async () => {
    const { code, output } = await runFixture();
    expect(code, output.slice(-2_000)).toBe(0);

    const [before, dlqLine] = output.split('DLQ-RECORDS ');
    const records = JSON.parse((dlqLine ?? '[]').split('\n')[0] ?? '[]') as DeadLetterRecord[];
    const logLines = (before ?? '').split('\n').filter((l) => l.startsWith('{'));

    // The run really exercised the paths that could leak.
    const services = new Set(logLines.map((l) => (JSON.parse(l) as { service?: string }).service));
    expect([...services].sort()).toEqual(['lbsync-inject', 'lbsync-reconcile', 'lbsync-sweep']);
    expect(logLines.length).toBeGreaterThan(30);
    expect(output).toContain('dead-lettered');
    expect(output).toContain('retry ');
    const reasons = new Set(records.map((r) => r.reason));
    for (const reason of ['invalid_event', 'unknown_target', 'permanent_error']) expect(reasons).toContain(reason);
    expect(records.some((r) => r.error.code === 'authentication_denied')).toBe(true);

    const recordsText = JSON.stringify(records);
    for (const [name, secret] of Object.entries(FAKE_SECRETS)) {
      for (const form of forms(secret)) {
        expect(output.includes(form), `${name} (${form}) in the logs`).toBe(false);
        expect(recordsText.includes(form), `${name} (${form}) in a dead-letter record`).toBe(false);
      }
    }
  }, 60_000);
});
