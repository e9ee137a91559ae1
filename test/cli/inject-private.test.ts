// `lbsync inject --url` against inject served as a private function (the local stack plays the platform's
// X-Auth-Token gate): both secrets come from a file or a named variable, never from the command line, are
// sent in their headers, and never printed; a 403 gets a hint naming both headers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/stack';
import { startDemoStack } from '../support/demo-stack';
import { runInProcess as lbsync, waitFor } from './support';

const FUNCTION_TOKEN = 'IAM-SECRET-KEY-4242-cli-private-access';
const dir = mkdtempSync(join(tmpdir(), 'lbsync-cli-tokens-'));
let stack: LocalStack;
const delivered: string[] = [];

beforeAll(async () => {
  stack = await startDemoStack({ instancePendingMs: 50, functionToken: FUNCTION_TOKEN, onDelivery: (d) => void delivered.push(d.body) });
});
afterAll(async () => {
  await stack?.stop();
});

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, `${content}\n`, { mode: 0o600 });
  return path;
}

const base = () => ['inject', '--target', 'demo.k8s.local', '--url', stack.functions.inject.url];
const secretsIn = (text: string) => [stack.injectToken, FUNCTION_TOKEN].filter((s) => text.includes(s));

describe('lbsync inject --url to a private function', () => {
  it('both tokens from variables: sent as Authorization: Bearer and X-Auth-Token, 202, never printed', async () => {
    const sent = await lbsync([...base(), '--json'], { ...process.env, INJECT_TOKEN: stack.injectToken, FUNCTION_TOKEN });
    expect(sent.code, sent.stderr).toBe(0);
    const { eventId } = JSON.parse(sent.stdout) as { eventId: string };
    await waitFor('the event to be delivered', () => delivered.some((b) => b.includes(eventId)));
    expect(secretsIn(sent.stdout + sent.stderr)).toEqual([]);
  });

  it('both tokens from files (--token-file, --function-token-file), or from variables of another name', async () => {
    const fromFiles = await lbsync(
      [...base(), '--token-file', file('token', stack.injectToken), '--function-token-file', file('fn', FUNCTION_TOKEN)],
      { ...process.env, INJECT_TOKEN: '', FUNCTION_TOKEN: '' },
    );
    expect(fromFiles.code, fromFiles.stderr).toBe(0);
    const named = await lbsync([...base(), '--token-env', 'MY_INJECT', '--function-token-env', 'MY_IAM_KEY'], {
      ...process.env,
      MY_INJECT: stack.injectToken,
      MY_IAM_KEY: FUNCTION_TOKEN,
    });
    expect(named.code, named.stderr).toBe(0);
    expect(secretsIn(fromFiles.stdout + fromFiles.stderr + named.stdout + named.stderr)).toEqual([]);
  });

  it('no X-Auth-Token: 403 with a hint naming both headers, exit 1, nothing enqueued', async () => {
    await stack.bridge.waitIdle({ quietMs: 200, timeoutMs: 10_000 });
    const before = delivered.length;
    const refused = await lbsync(base(), { ...process.env, INJECT_TOKEN: stack.injectToken, FUNCTION_TOKEN: '' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('[forbidden] the platform got no X-Auth-Token (403)');
    expect(refused.stderr).toMatch(
      /hint: a private function needs X-Auth-Token: .*FunctionsPrivateAccess.*Authorization: Bearer <INJECT_TOKEN>/,
    );
    expect(secretsIn(refused.stdout + refused.stderr)).toEqual([]);
    await stack.bridge.waitIdle({ quietMs: 200, timeoutMs: 10_000 });
    expect(delivered.length).toBe(before);
  });

  it('a wrong X-Auth-Token: 403 told as refused, the token never printed (not even echoed by an error)', async () => {
    const refused = await lbsync([...base(), '--json'], {
      ...process.env,
      INJECT_TOKEN: stack.injectToken,
      FUNCTION_TOKEN: 'WRONG-IAM-KEY-0000-0000',
    });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      ok: false,
      error: { code: 'forbidden', message: 'the platform refused the X-Auth-Token (403): nothing was enqueued' },
    });
    expect(refused.stdout + refused.stderr).not.toContain('WRONG-IAM-KEY-0000-0000');
  });

  it('tokens are never taken on the command line, and a token file that cannot be read is named, not read out', async () => {
    for (const flag of ['--token', '--function-token', '--auth-token']) {
      const usage = await lbsync([...base(), flag, 'on-the-command-line']);
      expect(usage.code, flag).toBe(64);
    }
    const help = await lbsync(['inject', '--help']);
    expect(help.stdout).toContain('--function-token-file <path>');
    expect(help.stdout).toContain('--function-token-env <name>');
    const missing = await lbsync([...base(), '--token-file', join(dir, 'nope')], { ...process.env, FUNCTION_TOKEN });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`cannot read the inject token from ${join(dir, 'nope')} (ENOENT)`);
  });
});
