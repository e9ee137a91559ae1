// hooks/lbsync-boot-hook.sh under sh: against the local stack's inject function, served as a private
// function (the platform's X-Auth-Token gate in front of it): 202, the event lands on the queue and the
// pool converges; with a wrong or missing token (retries, gives up, exit 0, a hint naming both headers);
// against a failing URL (exactly the configured number of attempts), with and without metadata. Neither
// token ever appears on curl's command line (a shim records it) nor in the hook's output.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/stack';
import { startDemoStack } from '../support/demo-stack';
import { DEMO_CONTROL_PLANE_IPS, DEMO_LB_ID } from '../support/world';
import { ROOT, waitFor } from './support';

const HOOK = join(ROOT, 'hooks/lbsync-boot-hook.sh');
const dir = mkdtempSync(join(tmpdir(), 'lbsync-hook-'));
const FUNCTION_TOKEN = 'IAM-SECRET-KEY-4242-function-private-access';
// A curl shim first on PATH: writes each argument to ARGV_LOG, then runs the real curl with the same stdin.
const shimDir = mkdtempSync(join(tmpdir(), 'lbsync-curl-shim-'));
const argvLog = join(shimDir, 'argv.log');
const realCurl = execFileSync('sh', ['-c', 'command -v curl']).toString().trim();
writeFileSync(join(shimDir, 'curl'), `#!/bin/sh\nprintf '%s\\n' "$@" >> "${argvLog}"\nexec "${realCurl}" "$@"\n`);
chmodSync(join(shimDir, 'curl'), 0o755);
let stack: LocalStack;
let closedPort: number;
const delivered: { body: string; status: number | 'error' }[] = [];

function runHook(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'sh',
      [HOOK],
      {
        env: {
          PATH: `${shimDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
          LBSYNC_HOOK_ENV_FILE: join(dir, 'absent.env'),
          FUNCTION_TOKEN_FILE: join(dir, 'absent-function-token'),
          LBSYNC_METADATA_URL: `http://127.0.0.1:${closedPort}/conf?format=json`,
          LBSYNC_HOOK_BACKOFF_SECONDS: '0',
          ...env,
        },
        timeout: 20_000,
      },
      (error, _stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr }),
    );
  });
}

async function listen(
  handler: (req: IncomingMessage, body: string) => { status: number; body: string },
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const answer = handler(req, body);
      res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function tokenFile(name: string, token: string): string {
  const path = join(dir, name);
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return path;
}

beforeAll(async () => {
  // A port nothing listens on: the metadata API is unreachable at once.
  const probe = await listen(() => ({ status: 200, body: '{}' }));
  closedPort = Number(new URL(probe.url).port);
  await new Promise((r) => probe.server.close(r));
  stack = await startDemoStack({
    instancePendingMs: 50,
    functionToken: FUNCTION_TOKEN,
    env: { LBSYNC_WAIT_BUDGET_MS: '3000' },
    onDelivery: (d) => delivered.push({ body: d.body, status: d.status }),
  });
});
afterAll(async () => {
  await stack?.stop();
});

describe('lbsync boot hook', () => {
  it('POSTs an instance-replacement event named after the host, with both tokens (read from files, never on argv); 202, processed, the pool converges', async () => {
    writeFileSync(argvLog, '');
    const result = await runHook({
      INJECT_URL: stack.functions.inject.url,
      TARGET: 'demo.k8s.local',
      INJECT_TOKEN_FILE: tokenFile('token', stack.injectToken),
      FUNCTION_TOKEN_FILE: tokenFile('function-token', FUNCTION_TOKEN),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('metadata API unreachable, identity from the hostname');
    // 202 through the gate: the X-Auth-Token was sent, and right.
    expect(result.stderr).toMatch(/attempt 1\/5: accepted \(202\) \{"eventId":"evt-boot-[A-Za-z0-9._:-]+-\d+","target":"demo.k8s.local"\}/);
    expect(result.stderr).not.toContain(stack.injectToken);
    expect(result.stderr).not.toContain(FUNCTION_TOKEN);
    const argv = readFileSync(argvLog, 'utf8');
    expect(argv).toContain(stack.functions.inject.url); // the shim did see the request's command line...
    expect(argv).not.toContain(stack.injectToken); // ...and neither token was on it
    expect(argv).not.toContain(FUNCTION_TOKEN);
    const eventId = /"eventId":"([^"]+)"/.exec(result.stderr)?.[1] as string;
    await waitFor('the event to be delivered', () => delivered.find((d) => d.body.includes(eventId) && d.status === 200));
    const event = JSON.parse(delivered.find((d) => d.body.includes(eventId))?.body as string);
    expect(event).toMatchObject({ version: 1, id: eventId, source: 'instance-replacement', target: 'demo.k8s.local' });
    expect(event.serverIps).toBeUndefined();
    const state = stack.emulator.dumpState() as { lbs: { id: string; backends: { pool: string[] }[] }[] };
    expect(state.lbs.find((lb) => lb.id === DEMO_LB_ID)?.backends[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
  });

  it('no X-Auth-Token for a private function: said once, 403 five times with a hint naming both headers, exit 0, nothing enqueued', async () => {
    const before = delivered.length;
    const result = await runHook({
      INJECT_URL: stack.functions.inject.url,
      TARGET: 'demo.k8s.local',
      INJECT_TOKEN_FILE: tokenFile('token', stack.injectToken),
    });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/no X-Auth-Token/g)).toHaveLength(1);
    expect(result.stderr.match(/forbidden \(403\)/g)).toHaveLength(5);
    expect(result.stderr).toMatch(
      /needs X-Auth-Token \(an IAM key with FunctionsPrivateAccess, in .*absent-function-token\) besides Authorization: Bearer/,
    );
    expect(result.stderr).not.toContain(stack.injectToken);
    await stack.bridge.waitIdle({ quietMs: 200, timeoutMs: 10_000 });
    expect(delivered.length).toBe(before);
  });

  it('a wrong X-Auth-Token (from the environment, the file being absent): 403, never printed', async () => {
    const result = await runHook({
      INJECT_URL: stack.functions.inject.url,
      TARGET: 'demo.k8s.local',
      INJECT_TOKEN_FILE: tokenFile('token', stack.injectToken),
      FUNCTION_TOKEN: 'WRONG-FUNCTION-TOKEN-0000',
      LBSYNC_HOOK_ATTEMPTS: '2',
    });
    expect(result.stderr.match(/forbidden \(403\)/g)).toHaveLength(2);
    expect(result.stderr).not.toContain('no X-Auth-Token');
    expect(result.stderr).not.toContain('WRONG-FUNCTION-TOKEN-0000');
  });

  it('a wrong token: retried 5 times, then gives up with exit 0 and a clear line', async () => {
    const result = await runHook({
      INJECT_URL: stack.functions.inject.url,
      TARGET: 'demo.k8s.local',
      INJECT_TOKEN_FILE: tokenFile('wrong', 'not-the-token'),
      FUNCTION_TOKEN_FILE: tokenFile('function-token', FUNCTION_TOKEN),
    });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/unauthorized \(401\)/g)).toHaveLength(5);
    expect(result.stderr).toContain('attempt 4/5 failed: unauthorized (401)');
    expect(result.stderr).toMatch(
      /attempt 5\/5 failed: unauthorized \(401\): the token in .*wrong is not the inject function's INJECT_TOKEN; no more attempts after 5 -- giving up/,
    );
  });

  it('a failing inject URL: exactly the configured attempts with doubling waits; metadata identity in the id', async () => {
    let requests = 0;
    const down = await listen(() => {
      requests += 1;
      return { status: 503, body: '{"error":"queue_unavailable"}' };
    });
    const metadata = await listen(() => ({
      status: 200,
      body: JSON.stringify({
        id: '5a1b2c3d-0000-4000-8000-000000000001',
        hostname: 'control-plane-fr-par-1-0b',
        public_ip: { id: 'x', address: '51.15.100.31' },
        tags: ['a'],
      }),
    }));
    try {
      const result = await runHook({
        INJECT_URL: down.url,
        TARGET: 'demo.k8s.local',
        INJECT_TOKEN: 'from-env',
        INJECT_TOKEN_FILE: join(dir, 'absent-token'),
        LBSYNC_HOOK_ATTEMPTS: '3',
        LBSYNC_HOOK_BACKOFF_SECONDS: '1',
        LBSYNC_HOOK_MAX_BACKOFF_SECONDS: '1',
        LBSYNC_METADATA_URL: `${metadata.url}/conf?format=json`,
      });
      expect(result.code).toBe(0);
      expect(requests).toBe(3);
      expect(result.stderr).toContain(
        'node control-plane-fr-par-1-0b (instance 5a1b2c3d-0000-4000-8000-000000000001, public IP 51.15.100.31) booted',
      );
      expect(result.stderr).toMatch(
        /event evt-boot-control-plane-fr-par-1-0b-5a1b2c3d-0000-4000-8000-000000000001-\d+ for target demo.k8s.local/,
      );
      expect(result.stderr).toContain('attempt 1/3 failed: HTTP 503');
      expect(result.stderr).toContain('retrying in 1s');
      expect(result.stderr).toContain('no more attempts after 3 -- giving up');
    } finally {
      await new Promise((r) => down.server.close(r));
      await new Promise((r) => metadata.server.close(r));
    }
  });

  it('missing configuration: logs what to set and exits 0 without a request', async () => {
    const result = await runHook({ TARGET: 'demo.k8s.local' });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('INJECT_URL is not set');
  });
});
