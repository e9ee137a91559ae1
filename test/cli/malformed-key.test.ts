// A malformed Scaleway key is one error everywhere (invalid_credentials), naming where it was read and the shape
// expected, and never any part of the value: through the real bin for every command that reads the key, and
// through the deployed reconcile and watch bundles. Nothing reaches the API (the emulator's call log stays empty).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../emulator';
import { startEmulator } from '../../emulator';
import { demoSeed, FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../support/world';
import { demoApiEnv, runBin } from './support';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

let emulator: EmulatorHandle;
beforeAll(async () => {
  emulator = await startEmulator({ seed: demoSeed() });
});
afterAll(async () => emulator.stop());

/** Pieces of the secret that must appear nowhere: a short one whole, a longer one as every run of 6 of its characters. */
function pieces(secret: string): RegExp[] {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (secret.length <= 6) return [new RegExp(`(?<![A-Za-z0-9])${literal(secret)}(?![A-Za-z0-9])`)];
  return Array.from({ length: secret.length - 5 }, (_, at) => new RegExp(literal(secret.slice(at, at + 6))));
}

const CASES = [
  { what: 'a 3-character secret key', access: FAKE_ACCESS_KEY, secret: 'abc', named: ['SCW_SECRET_KEY'], never: 'abc' },
  { what: 'a 6-character access key', access: 'SCWQZJ', secret: FAKE_SECRET_KEY, named: ['SCW_ACCESS_KEY'], never: 'SCWQZJ' },
  {
    what: 'a secret key one character short',
    access: FAKE_ACCESS_KEY,
    secret: 'f7a1c2e4-9b3d-4e5f-8a6b-7c8d9e0f1a2',
    named: ['SCW_SECRET_KEY'],
    never: 'f7a1c2e4-9b3d-4e5f-8a6b-7c8d9e0f1a2',
  },
  {
    what: 'the two halves swapped',
    access: 'f7a1c2e4-9b3d-4e5f-8a6b-7c8d9e0f1a2b',
    secret: 'SCWQZJKLMNOPQRSTUVWX',
    named: ['SCW_ACCESS_KEY', 'SCW_SECRET_KEY', 'swapped'],
    never: 'SCWQZJKLMNOPQRSTUVWX',
  },
];

const COMMANDS = [['plan'], ['status', '--no-queue'], ['reconcile'], ['watch', '--once', '--dry-run'], ['cockpit', 'install']];

describe('a malformed Scaleway key', () => {
  for (const c of CASES) {
    it(`${c.what}: invalid_credentials from every command, the variable and the shape named, no part of it shown`, async () => {
      const env = {
        ...demoApiEnv(emulator.url),
        SCW_ACCESS_KEY: c.access,
        SCW_SECRET_KEY: c.secret,
        SCW_DEFAULT_ORGANIZATION_ID: '00000000-0000-4000-8000-000000000000',
        SCW_DEFAULT_PROJECT_ID: '00000000-0000-4000-8000-000000000001',
        RECONCILE_QUEUE_URL: 'http://127.0.0.1:1/q',
        SQS_ACCESS_KEY_ID: 'x',
        SQS_SECRET_ACCESS_KEY: 'y',
        GRAFANA_TOKEN: 'glsa_x',
      };
      emulator.resetCalls();
      for (const args of COMMANDS) {
        const run = await runBin([...args, '-o', 'json'], env);
        const said = `${run.stdout}${run.stderr}`;
        expect(run.code, `${args.join(' ')}: ${said}`).toBe(1);
        const envelope = JSON.parse(run.stdout) as { error: { code: string; message: string } };
        expect(envelope.error.code, args.join(' ')).toBe('invalid_credentials');
        for (const name of c.named) expect(envelope.error.message, args.join(' ')).toContain(name);
        expect(envelope.error.message).toMatch(/expected|swapped/);
        for (const piece of pieces(c.never)) expect(said, `${args.join(' ')} shows ${piece}`).not.toMatch(piece);
        expect(said).not.toContain('[redacted]');
      }
      const doctor = await runBin(['doctor', '--no-queue', '-o', 'json'], env);
      const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; status: string; detail: string }[] }).checks;
      const credentials = checks.find((check) => check.name === 'credentials');
      expect(credentials?.status).toBe('fail');
      for (const name of c.named) expect(credentials?.detail).toContain(name);
      for (const piece of pieces(c.never)) expect(doctor.stdout).not.toMatch(piece);
      expect(emulator.calls()).toEqual([]);
    }, 60_000);
  }

  it('a profile of the scw config file is named by its field and the profile, never its value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbsync-key-'));
    const config = join(dir, 'config.yaml');
    writeFileSync(config, `profiles:\n  ops:\n    access_key: ${FAKE_ACCESS_KEY}\n    secret_key: not-a-uuid-at-all\n`);
    const { SCW_ACCESS_KEY: _a, SCW_SECRET_KEY: _s, ...env } = demoApiEnv(emulator.url);
    const run = await runBin(['plan', '-o', 'json', '--profile', 'ops'], { ...env, SCW_CONFIG_PATH: config });
    const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_credentials');
    expect(error.message).toContain(`secret_key of profile "ops" in ${config}`);
    for (const piece of pieces('not-a-uuid-at-all')) expect(run.stdout + run.stderr).not.toMatch(piece);
  });

  it('the reconcile and watch functions refuse it as their own failure (500, invalid_credentials), the key in no answer', async () => {
    for (const name of ['reconcile', 'watch']) {
      const call = `
const { handle } = await import('./functions/${name}/handler.ts');
const answer = await handle({ httpMethod: 'POST', path: '/', headers: {}, body: '{}', isBase64Encoded: false });
process.stdout.write('ANSWER ' + answer.statusCode + ' ' + answer.body + '\\n');`;
      const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', call], {
        cwd: new URL('../../', import.meta.url).pathname,
        env: {
          PATH: process.env.PATH ?? '',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          LBSYNC_SCW_ACCESS_KEY: FAKE_ACCESS_KEY,
          LBSYNC_SCW_SECRET_KEY: 'abc',
          LBSYNC_SCW_DEFAULT_ORGANIZATION_ID: '00000000-0000-4000-8000-000000000000',
          LBSYNC_TARGETS: demoApiEnv(emulator.url).LBSYNC_TARGETS as string,
          SCW_API_URL: emulator.url,
          SQS_ACCESS_KEY_ID: 'x',
          SQS_SECRET_ACCESS_KEY: 'y',
          RECONCILE_QUEUE_URL: 'http://127.0.0.1:1/q',
          DEAD_LETTER_QUEUE_URL: 'http://127.0.0.1:1/d',
        },
      });
      const said = `${stdout}${stderr}`;
      expect(/^ANSWER (\d+)/m.exec(stdout)?.[1], name).toBe('500');
      expect(said, name).toContain('invalid_credentials');
      expect(said, name).toContain('LBSYNC_SCW_SECRET_KEY');
      const failed = said
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.log_type === 'function_failed');
      expect(failed, name).toEqual([expect.objectContaining({ code: 'invalid_credentials' })]);
      for (const piece of pieces('abc')) expect(said, name).not.toMatch(piece);
    }
    expect(emulator.calls()).toEqual([]);
  }, 60_000);
});
