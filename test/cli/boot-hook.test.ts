// hooks/lbsync-boot-hook.sh under sh: against the local stack's inject function (202, the event
// lands on the queue and the pool converges), with a wrong token (retries, gives up, exit 0), and
// against a failing URL (exactly the configured number of attempts), with and without metadata.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
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
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          LBSYNC_HOOK_ENV_FILE: join(dir, 'absent.env'),
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

async function listen(handler: (req: IncomingMessage, body: string) => { status: number; body: string }): Promise<{ server: Server; url: string }> {
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
    env: { LBSYNC_WAIT_BUDGET_MS: '3000' },
    onDelivery: (d) => delivered.push({ body: d.body, status: d.status }),
  });
});
afterAll(async () => {
  await stack?.stop();
});

describe('lbsync boot hook', () => {
  it('POSTs an instance-replacement event named after the host; 202, the event is processed and the pool converges', async () => {
    const result = await runHook({ INJECT_URL: stack.functions.inject.url, TARGET: 'demo.k8s.local', INJECT_TOKEN_FILE: tokenFile('token', stack.injectToken) });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('metadata API unreachable, identity from the hostname');
    expect(result.stderr).toMatch(/attempt 1\/5: accepted \(202\) \{"eventId":"evt-boot-[A-Za-z0-9._:-]+-\d+","target":"demo.k8s.local"\}/);
    expect(result.stderr).not.toContain(stack.injectToken);
    const eventId = /"eventId":"([^"]+)"/.exec(result.stderr)?.[1] as string;
    await waitFor('the event to be delivered', () => delivered.find((d) => d.body.includes(eventId) && d.status === 200));
    const event = JSON.parse(delivered.find((d) => d.body.includes(eventId))?.body as string);
    expect(event).toMatchObject({ version: 1, id: eventId, source: 'instance-replacement', target: 'demo.k8s.local' });
    expect(event.serverIps).toBeUndefined();
    const state = stack.emulator.dumpState() as { lbs: { id: string; backends: { pool: string[] }[] }[] };
    expect(state.lbs.find((lb) => lb.id === DEMO_LB_ID)?.backends[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
  });

  it('a wrong token: retried 5 times, then gives up with exit 0 and a clear line', async () => {
    const result = await runHook({ INJECT_URL: stack.functions.inject.url, TARGET: 'demo.k8s.local', INJECT_TOKEN_FILE: tokenFile('wrong', 'not-the-token') });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/unauthorized \(401\)/g)).toHaveLength(5);
    expect(result.stderr).toContain('attempt 4/5 failed: unauthorized (401)');
    expect(result.stderr).toMatch(/attempt 5\/5 failed: unauthorized \(401\): the token in .*wrong is not the inject function's INJECT_TOKEN; no more attempts after 5 -- giving up/);
  });

  it('a failing inject URL: exactly the configured attempts with doubling waits; metadata identity in the id', async () => {
    let requests = 0;
    const down = await listen(() => ((requests += 1), { status: 503, body: '{"error":"queue_unavailable"}' }));
    const metadata = await listen(() => ({
      status: 200,
      body: JSON.stringify({ id: '5a1b2c3d-0000-4000-8000-000000000001', hostname: 'control-plane-fr-par-1-0b', public_ip: { id: 'x', address: '51.15.100.31' }, tags: ['a'] }),
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
      expect(result.stderr).toContain('node control-plane-fr-par-1-0b (instance 5a1b2c3d-0000-4000-8000-000000000001, public IP 51.15.100.31) booted');
      expect(result.stderr).toMatch(/event evt-boot-control-plane-fr-par-1-0b-5a1b2c3d-0000-4000-8000-000000000001-\d+ for target demo.k8s.local/);
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
