// `lbsync doctor` as an operator runs it (the real bin), against `lbsync emulator --seed demo` (one key of
// which is denied IPAM, one LB reads) and the local SQS-compatible queue: all ok on the demo; an unknown LB, a key
// without IPAM or LB read, a wrong queue URL, a queue without redrive or with a short visibility timeout each fail
// with the right check named, and a check that could not run is told with why, never left out; only an API answer
// proves the key (not a server answering 404 to everything); it never writes (the emulator's call log has no
// non-GET call, the queues stay empty).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import { createEventQueue, type EventQueue } from '../../shared/adapters/queue';
import { provisionQueues } from '../../cli/adapters/queue-provisioning';
import { DEMO_CLUSTER } from '../support/world';
import { BIN, ROOT, demoApiEnv, runBin, type Run } from './support';

const NO_IPAM_SECRET = '99999999-8888-4777-8666-555555555555';
const NO_LB_SECRET = '99999999-8888-4777-8666-444444444444';

let emulator: ChildProcess;
let apiUrl: string;
let localQueue: LocalQueue;
let queue: EventQueue;
let queues: { reconcileQueueUrl: string; deadLetterQueueUrl: string };
let env: Record<string, string>;

interface Report {
  ok: boolean;
  checks: { name: string; status: 'ok' | 'fail' | 'warn'; detail: string; hint?: string }[];
}

function startEmulatorBin(): Promise<string> {
  emulator = spawn(
    process.execPath,
    [BIN, 'emulator', '--port', '0', '--seed', 'demo', '--deny', `ipam:${NO_IPAM_SECRET}`, '--deny', `lb:${NO_LB_SECRET}`],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: mkdtempSync(join(tmpdir(), 'lbsync-home-')) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise<string>((resolve, reject) => {
    let out = '';
    emulator.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve((out.split('\n')[0] ?? '').trim());
    });
    emulator.on('exit', (code) => reject(new Error(`lbsync emulator exited with ${code}`)));
  });
}

beforeAll(async () => {
  [apiUrl, localQueue] = await Promise.all([startEmulatorBin(), startLocalQueue()]);
  queue = createEventQueue(localQueue.settings);
  queues = await provisionQueues(queue, {
    reconcileQueueName: 'doctor-reconcile',
    deadLetterQueueName: 'doctor-dead-letter',
    functionTimeoutSeconds: 60,
  });
  env = {
    ...demoApiEnv(apiUrl),
    SQS_ENDPOINT: localQueue.endpoint,
    SQS_REGION: localQueue.region,
    SQS_ACCESS_KEY_ID: localQueue.settings.accessKeyId,
    SQS_SECRET_ACCESS_KEY: localQueue.settings.secretAccessKey,
    RECONCILE_QUEUE_URL: queues.reconcileQueueUrl,
    DEAD_LETTER_QUEUE_URL: queues.deadLetterQueueUrl,
  };
});
afterAll(async () => {
  emulator?.kill('SIGTERM');
  await localQueue?.stop();
});

async function emulatorCalls(): Promise<{ method: string; operation: string }[]> {
  return ((await (await fetch(`${apiUrl}/_emulator/calls`)).json()) as { calls: { method: string; operation: string }[] }).calls;
}

async function writesSeen(): Promise<string[]> {
  return (await emulatorCalls()).filter((c) => c.method !== 'GET').map((c) => c.operation);
}

async function doctor(args: string[], overrides: Record<string, string> = {}): Promise<Run & { report: Report }> {
  const run = await runBin(['doctor', '-o', 'json', ...args], { ...env, ...overrides });
  return { ...run, report: JSON.parse(run.stdout) as Report };
}

const failed = (report: Report) => report.checks.filter((c) => c.status === 'fail').map((c) => c.name);

describe('lbsync doctor', () => {
  it('on the demo: every check ok (health: nothing to read yet, said so), exit 0, in the documented line format; nothing written, nothing queued', async () => {
    const [json, text] = await Promise.all([doctor([]), runBin(['doctor'], env)]);
    expect(json.code).toBe(0);
    expect(json.report.ok).toBe(true);
    expect(json.report.checks.map((c) => c.name)).toEqual([
      'config',
      'credentials',
      'iam:lb-read',
      'iam:lb-backends',
      'iam:instance-servers',
      'iam:ipam-read',
      'target:demo.k8s.local:lb',
      'target:demo.k8s.local:servers',
      'target:demo.k8s.local:kops-parity',
      'target:demo.k8s.local:health',
      'target:demo.k8s.local:plan',
      'queue:reconcile',
      'queue:dead-letter',
      'queue:redrive',
      'queue:visibility',
    ]);
    // The demo's LB has no backend yet: the health check has nothing to read, and says so.
    expect(json.report.checks.filter((c) => c.status !== 'ok')).toEqual([
      {
        name: 'target:demo.k8s.local:health',
        status: 'warn',
        detail: "skipped: nothing to check, the LB has none of the target's backends yet (lb-backend-https, lb-backend-kops-controller)",
      },
    ]);
    const detail = (name: string) => json.report.checks.find((c) => c.name === name)?.detail;
    expect(detail('target:demo.k8s.local:servers')).toContain('the pool would be [51.15.100.11, 51.15.100.12, 51.15.100.13]');
    expect(detail('target:demo.k8s.local:plan')).toContain('a reconcile would write: CreateBackend lb-backend-https');
    expect(detail('queue:visibility')).toBe("visibility timeout 90 s > the reconcile function's timeout 60 s");

    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(json.report.checks.length);
    for (const line of lines) expect(line).toMatch(/^(ok|fail|warn) [a-z][\w.:-]*: \S/);

    expect(await writesSeen()).toEqual([]);
    for (const url of [queues.reconcileQueueUrl, queues.deadLetterQueueUrl]) {
      expect((await queue.attributes(url)).ApproximateNumberOfMessages).toBe('0');
    }
  });

  it('an unknown LB fails target:<name>:lb; the permissions are still proven by the reads that answered', async () => {
    const targets = JSON.stringify([
      { kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } },
      { kops: { cluster: 'ghost.k8s.local', zone: 'fr-par-1' } },
    ]);
    const { code, report } = await doctor(['--no-queue'], { LBSYNC_TARGETS: targets });
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(failed(report)).toContain('target:ghost.k8s.local:lb');
    const lb = report.checks.find((c) => c.name === 'target:ghost.k8s.local:lb');
    expect(lb?.detail).toBe('finding load-balancer api.ghost.k8s.local: no load-balancer named "api.ghost.k8s.local" in fr-par-1');
    expect(lb?.hint).toMatch(/api\.<cluster>/);
    expect(report.checks.find((c) => c.name === 'iam:lb-read')?.status).toBe('ok');
    // Checks that could not run are told, with why: no LB, and no server to compare with kOps' addresses.
    expect(report.checks.filter((c) => c.name.startsWith('target:ghost.k8s.local:'))).toEqual([
      expect.objectContaining({ name: 'target:ghost.k8s.local:lb', status: 'fail' }),
      expect.objectContaining({ name: 'target:ghost.k8s.local:servers', status: 'fail' }),
      {
        name: 'target:ghost.k8s.local:kops-parity',
        status: 'warn',
        detail: 'skipped: no server gives an address to compare with what kOps would write',
      },
      { name: 'target:ghost.k8s.local:health', status: 'warn', detail: 'skipped: needs the load balancer (see target:ghost.k8s.local:lb)' },
      { name: 'target:ghost.k8s.local:plan', status: 'warn', detail: 'skipped: needs the load balancer (see target:ghost.k8s.local:lb)' },
    ]);
    expect(report.checks.some((c) => c.name.startsWith('queue:'))).toBe(false);
    expect(await writesSeen()).toEqual([]);
  });

  it('a key without IPAM read (the emulator answers 403 permissions_denied) fails iam:ipam-read, and the kops-parity it could not make', async () => {
    const { code, report } = await doctor(['--no-queue'], { SCW_SECRET_KEY: NO_IPAM_SECRET });
    expect(code).toBe(1);
    expect(failed(report)).toEqual(['iam:ipam-read', 'target:demo.k8s.local:kops-parity']);
    const ipam = report.checks.find((c) => c.name === 'iam:ipam-read');
    expect(ipam?.detail).toMatch(/refused \(403\)/);
    expect(ipam?.hint).toContain('IPAMReadOnly');
    expect(report.checks.find((c) => c.name === 'target:demo.k8s.local:kops-parity')?.detail).toMatch(/insufficient permissions/);
    expect(report.checks.find((c) => c.name === 'credentials')?.status).toBe('ok');
  });

  it('a key without LB read: the lb line fails, the health and plan lines say they could not run; none is left out', async () => {
    const { code, report } = await doctor(['--no-queue'], { SCW_SECRET_KEY: NO_LB_SECRET });
    expect(code).toBe(1);
    expect(failed(report)).toEqual(['iam:lb-read', 'target:demo.k8s.local:lb']);
    const target = report.checks.filter((c) => c.name.startsWith('target:'));
    expect(target.map((c) => c.name)).toEqual([
      'target:demo.k8s.local:lb',
      'target:demo.k8s.local:servers',
      'target:demo.k8s.local:kops-parity',
      'target:demo.k8s.local:health',
      'target:demo.k8s.local:plan',
    ]);
    expect(report.checks.find((c) => c.name === 'target:demo.k8s.local:lb')?.detail).toMatch(/insufficient permissions/);
    for (const name of ['health', 'plan'])
      expect(report.checks.find((c) => c.name === `target:demo.k8s.local:${name}`)).toEqual({
        name: `target:demo.k8s.local:${name}`,
        status: 'warn',
        detail: 'skipped: needs the load balancer (see target:demo.k8s.local:lb)',
      });
  });

  it('pointed at a server that answers 404 to everything: the key is not said to be accepted, no permission is said to be proven', async () => {
    for (const body of ['{"message":"Not Found"}', '404 page not found']) {
      const server = createServer((req, res) => {
        req.resume();
        res.writeHead(404, { 'content-type': body.startsWith('{') ? 'application/json' : 'text/plain' });
        res.end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { code, report } = await doctor(['--no-queue'], {
          SCW_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        });
        expect(code).toBe(1);
        const credentials = report.checks.find((c) => c.name === 'credentials');
        expect(credentials?.status, body).toBe('warn');
        expect(credentials?.detail).toMatch(/not proven: no read got an answer from the API/);
        for (const c of report.checks.filter((check) => check.name.startsWith('iam:')))
          expect(c.status, `${body}: ${c.name}`).not.toBe('ok');
        expect(report.checks.filter((c) => c.status === 'ok').map((c) => c.name)).toEqual(['config']);
        expect(report.checks.find((c) => c.name === 'target:demo.k8s.local:servers')?.hint).not.toMatch(/load balancer/i);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('a malformed secret key is refused before any call, naming the variable and the shape (no "401"), and nothing is sent', async () => {
    const before = (await emulatorCalls()).length;
    const { code, report } = await doctor(['--no-queue'], { SCW_SECRET_KEY: 'not-a-uuid' });
    expect(code).toBe(1);
    expect(failed(report)).toEqual(['credentials']);
    const credentials = report.checks.find((c) => c.name === 'credentials');
    expect(credentials?.detail).toMatch(/^SCW_SECRET_KEY: is not a Scaleway secret key: expected a UUID/);
    expect(credentials?.detail).not.toContain('not-a-uuid');
    expect(`${credentials?.detail} ${credentials?.hint}`).not.toMatch(/401|refused the key/);
    expect(credentials?.hint).toMatch(/nothing was sent/);
    expect(await emulatorCalls()).toHaveLength(before);
  });

  it('a missing secret key fails credentials, naming the variable; the fix is told once, as the hint', async () => {
    const { code, report } = await doctor(['--no-queue'], { SCW_SECRET_KEY: '' });
    expect(code).toBe(1);
    expect(failed(report)).toEqual(['credentials']);
    const credentials = report.checks.find((c) => c.name === 'credentials');
    expect(credentials?.detail).toMatch(/^SCW_SECRET_KEY: is not set/);
    expect(credentials?.hint).toMatch(/^export SCW_SECRET_KEY /);
    expect(credentials?.detail).not.toContain('fix:');
    expect(credentials?.detail).not.toContain(credentials?.hint as string);
  });

  it('an unknown --target is bad usage (64), with a suggestion; no check is run', async () => {
    const before = (await emulatorCalls()).length;
    const { code, stdout } = await runBin(['doctor', '--no-queue', '-t', 'demo.k8s.locl', '-o', 'json'], { ...env });
    expect(code).toBe(64);
    expect(JSON.parse(stdout)).toMatchObject({
      ok: false,
      command: 'doctor',
      error: { code: 'usage', message: expect.stringContaining('(did you mean "demo.k8s.local"?)') },
    });
    expect(await emulatorCalls()).toHaveLength(before);
  });

  it('a wrong queue URL fails queue:reconcile (and the checks that need its attributes are not made)', async () => {
    const wrong = queues.reconcileQueueUrl.replace(/doctor-reconcile$/, 'doctor-reconcile-typo');
    const { code, report } = await doctor([], { RECONCILE_QUEUE_URL: wrong });
    expect(code).toBe(1);
    expect(failed(report)).toEqual(['queue:reconcile']);
    expect(report.checks.find((c) => c.name === 'queue:reconcile')?.hint).toContain('RECONCILE_QUEUE_URL');
    expect(report.checks.some((c) => c.name === 'queue:redrive' || c.name === 'queue:visibility')).toBe(false);
  });

  it('a reconcile queue without RedrivePolicy fails queue:redrive; a function timeout at or above the visibility timeout fails queue:visibility', async () => {
    const bare = await queue.createQueue('doctor-bare', { VisibilityTimeout: '30' });
    const noRedrive = await doctor([], { RECONCILE_QUEUE_URL: bare });
    expect(failed(noRedrive.report)).toEqual(['queue:redrive', 'queue:visibility']);
    expect(noRedrive.report.checks.find((c) => c.name === 'queue:redrive')?.hint).toContain('lbsync provision');
    const slow = await doctor(['--function-timeout', '90']);
    expect(slow.code).toBe(1);
    expect(failed(slow.report)).toEqual(['queue:visibility']);
    // Without the flag, the timeout the function itself reads (LBSYNC_FUNCTION_TIMEOUT_MS) is the one checked.
    const [deployedSlow, deployedFast] = await Promise.all([
      doctor([], { LBSYNC_FUNCTION_TIMEOUT_MS: '95000' }),
      doctor([], { LBSYNC_FUNCTION_TIMEOUT_MS: '30000' }),
    ]);
    expect(failed(deployedSlow.report)).toEqual(['queue:visibility']);
    expect(deployedSlow.report.checks.find((c) => c.name === 'queue:visibility')?.detail).toContain(
      "the reconcile function's timeout (95 s)",
    );
    expect(failed(deployedFast.report)).toEqual([]);
  });

  it('bad flags exit 64', async () => {
    const [format, timeout] = await Promise.all([
      runBin(['doctor', '-o', 'yaml'], env),
      runBin(['doctor', '--function-timeout', 'soon'], env),
    ]);
    expect(format.code).toBe(64);
    expect(format.stderr).toContain('yaml');
    expect(timeout.code).toBe(64);
  });
});
