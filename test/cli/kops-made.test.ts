// The first contact with an existing kOps cluster: `lbsync emulator --seed kops-made` serves an LB exactly as
// kOps makes it (emulator/seeds/kops-made.json, docs/kops-parity.md), and `lbsync plan` with the one-line
// shorthand says what it would change and why, field by field. The intended drift is kOps' 0 ms health check;
// the worker addresses kOps puts in the API pool are the one other difference (kOps' role filter lets workers
// through); every other field is in sync.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKopsLbBackend } from '../../bench/kops-baseline';
import { FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../support/world';
import { BIN, ROOT, runBin } from './support';

const CONTROL_PLANES = ['51.15.20.11', '51.15.20.12', '51.15.20.13'];
const WORKERS = ['51.15.20.21', '51.15.20.22'];
const LB_ID = 'e3b7a9c2-1d4f-4a6b-8c0e-9f2d1a3b5c70';
const BACKENDS = ['lb-backend-https', 'lb-backend-kops-controller'];

let emulator: ChildProcess;
let url: string;
let env: Record<string, string>;

beforeAll(async () => {
  emulator = spawn(process.execPath, [BIN, 'emulator', '--port', '0', '--seed', 'kops-made', '--instance-pending-ms', '50'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: mkdtempSync(join(tmpdir(), 'lbsync-home-')) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    emulator.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(line.trim());
    });
    emulator.on('exit', (code) => reject(new Error(`lbsync emulator exited with ${code}`)));
  });
  env = {
    SCW_ACCESS_KEY: FAKE_ACCESS_KEY,
    SCW_SECRET_KEY: FAKE_SECRET_KEY,
    SCW_API_URL: url,
    LBSYNC_TARGETS: JSON.stringify([{ kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1' } }]),
    LBSYNC_WAIT_BUDGET_MS: '5000',
  };
});
afterAll(() => {
  emulator?.kill('SIGTERM');
});

async function emulatorCalls(): Promise<{ method: string; operation: string }[]> {
  return ((await (await fetch(`${url}/_emulator/calls`)).json()) as { calls: { method: string; operation: string }[] }).calls;
}

interface PlannedBackend {
  name: string;
  exists: boolean;
  actions: string[];
  changes: { field: string; from: unknown; to: unknown; reason: string }[];
  inSync: string[];
  poolChanges: { ip: string; change: string; why: string }[];
  added: string[];
  removed: string[];
}

describe('plan on an LB kOps made', () => {
  it('reports, per backend, the health-check units fix and the worker addresses, each with its reason; nothing else', async () => {
    const [text, json] = [await runBin(['plan'], env), await runBin(['plan', '--json'], env)];
    expect(json.code).toBe(2);
    const plan = JSON.parse(json.stdout) as {
      targets: {
        lb: { id: string; name: string };
        desiredPool: string[];
        backends: PlannedBackend[];
        actions: { kind: string; backend: string }[];
      }[];
    };
    const [target] = plan.targets;
    expect(target?.lb).toMatchObject({ id: LB_ID, name: 'api.prod.k8s.local' });
    expect(target?.desiredPool).toEqual(CONTROL_PLANES);
    expect(target?.actions.map((a) => `${a.kind} ${a.backend}`)).toEqual([
      'UpdateHealthCheck lb-backend-https',
      'SetBackendServers lb-backend-https',
      'UpdateHealthCheck lb-backend-kops-controller',
      'SetBackendServers lb-backend-kops-controller',
    ]);
    for (const name of BACKENDS) {
      const backend = target?.backends.find((b) => b.name === name);
      expect(backend).toMatchObject({ exists: true, actions: ['UpdateHealthCheck', 'SetBackendServers'], added: [], removed: WORKERS });
      expect(backend?.changes.map((c) => [c.field, c.from, c.to])).toEqual([
        ['healthCheck.checkDelayMs', 0, 3000],
        ['healthCheck.checkTimeoutMs', 0, 1000],
      ]);
      expect(backend?.inSync).toEqual([
        'forwardProtocol',
        'forwardPort',
        'forwardPortAlgorithm',
        'stickySessions',
        'proxyProtocol',
        'healthCheck.port',
        'healthCheck.checkMaxRetries',
      ]);
      for (const c of backend?.changes ?? [])
        expect(c.reason).toMatch(/0 ms is what kOps creates: it passes 3000 and 1001 as Go durations \(nanoseconds\)/);
      // The workers fail the LB's TCP check on 443 / 3988 (nothing listens there), so both leave in one write.
      expect(backend?.poolChanges).toEqual(
        WORKERS.map((ip) => ({
          ip,
          change: 'remove',
          why: "no server carrying the target's tags has this address; the LB's health check fails it",
        })),
      );
    }
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('healthCheck.checkDelayMs: 0 -> 3000  (the target asks 3000; 0 ms is what kOps creates');
    expect(text.stdout).toContain('healthCheck.checkTimeoutMs: 0 -> 1000');
    expect(text.stdout).toContain(
      'in sync: forwardProtocol, forwardPort, forwardPortAlgorithm, stickySessions, proxyProtocol, healthCheck.port, healthCheck.checkMaxRetries',
    );
    expect(text.stdout).toContain(
      `- ${WORKERS[0]}  [failed]  (no server carrying the target's tags has this address; the LB's health check fails it)`,
    );
    expect(text.stdout).toContain('drift: 4 actions');
    expect((await emulatorCalls()).filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it("after one reconcile it is in sync; kOps' next update re-adds only the workers, and the health-check fix stays", async () => {
    const applied = await runBin(['reconcile', '--json'], env);
    expect(applied.code).toBe(0);
    expect((await runBin(['plan'], env)).code).toBe(0);

    // `kops update cluster` replayed (its RenderScw with the real SDK: UpdateBackend + SetBackendServers).
    for (const [name, port] of [
      ['lb-backend-https', 443],
      ['lb-backend-kops-controller', 3988],
    ] as const) {
      const run = await runKopsLbBackend({
        apiUrl: url,
        accessKey: FAKE_ACCESS_KEY,
        secretKey: FAKE_SECRET_KEY,
        zone: 'fr-par-1',
        lbId: LB_ID,
        clusterName: 'prod.k8s.local',
        backend: { name, forwardPort: port },
        waitPollMs: 20,
      });
      expect(run).toMatchObject({ path: 'update' });
      expect([...run.pool].sort()).toEqual([...CONTROL_PLANES, ...WORKERS].sort()); // kOps' own addresses: ours plus the workers
    }
    const after = JSON.parse((await runBin(['plan', '--json'], env)).stdout) as { targets: { backends: PlannedBackend[] }[] };
    for (const backend of after.targets[0]?.backends ?? []) {
      expect(backend.actions).toEqual(['SetBackendServers']);
      expect(backend.changes).toEqual([]);
      expect(backend.removed).toEqual(WORKERS);
    }
  });
});

describe('plan after a failed read says what it could not check, never "in sync"', () => {
  const unavailable = { status: 503, body: { message: 'service unavailable' }, count: -1 };
  const setFaults = async (faults: Record<string, unknown>[]) => {
    await fetch(`${url}/_emulator/faults`, { method: 'DELETE' });
    for (const fault of faults)
      await fetch(`${url}/_emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(fault),
      });
  };
  afterAll(() => setFaults([]));

  it('precondition: with every read answering, a removal is pending (the workers), so a plan needs the LB health checks', async () => {
    await setFaults([]);
    const plan = JSON.parse((await runBin(['plan', '--json'], env)).stdout) as { targets: { backends: PlannedBackend[] }[] };
    for (const backend of plan.targets[0]?.backends ?? []) expect(backend.removed).toEqual(WORKERS);
  });

  it.each([
    ['ListBackends', 'the backends could not be read'],
    ['ListServers', 'the servers could not be read, so the desired pool is unknown'],
    ['ListBackendStats', "the LB's health checks could not be read, so the removals could not be judged"],
  ])('a 503 on %s: every backend shows the failure and no pool state; exit 1', async (operation, why) => {
    await setFaults([{ operation, ...unavailable }]);
    const [text, json] = [await runBin(['plan'], env), await runBin(['plan', '--json'], env)];
    expect(text.code).toBe(1);
    expect(json.code).toBe(1);
    const backendLines = text.stdout.split('\n').filter((line) => line.startsWith('  backend '));
    expect(backendLines).toEqual(BACKENDS.map((name) => `  backend ${name}  not checked: ${why} [api_unavailable]`));
    // Nothing under a backend: no pool, no "in sync", no planned change.
    expect(text.stdout).not.toMatch(/^ {6}/m);
    expect(text.stdout).not.toMatch(/in sync:|pool \(|would run/);
    expect(text.stdout).toContain('prod.k8s.local (fr-par-1)  error');
    expect(text.stdout).toMatch(/error \[api_unavailable\] .*http error 503/);

    const [target] = (JSON.parse(json.stdout) as { targets: Record<string, unknown>[] }).targets;
    expect(target?.backends).toEqual(
      BACKENDS.map((name) => expect.objectContaining({ name, checked: false, notChecked: `${why} [api_unavailable]` })),
    );
    for (const backend of (target?.backends ?? []) as Record<string, unknown>[])
      for (const claim of ['exists', 'inSync', 'actions', 'added', 'removed']) expect(backend).not.toHaveProperty(claim);
    expect(target?.coverage).toMatchObject({ complete: false, stoppedAt: { step: why, code: 'api_unavailable' } });
    expect(target?.actions).toEqual([]);
  });
});

describe('doctor on an LB kOps made', () => {
  it('the health line tells each address once, though both backends hold it', async () => {
    const run = await runBin(['doctor', '--no-queue', '-o', 'json'], env);
    const { checks } = JSON.parse(run.stdout) as { checks: { name: string; status: string; detail: string }[] };
    const health = checks.find((c) => c.name === 'target:prod.k8s.local:health');
    expect(health?.status).toBe('warn');
    for (const ip of [...CONTROL_PLANES, ...WORKERS])
      expect(health?.detail.split(new RegExp(`\\b${ip.replaceAll('.', '\\.')}\\b`)).length, ip).toBe(2);
    expect(health?.detail).toBe(
      `not passing: ${WORKERS.map((ip) => `${ip} failed`).join(', ')}; passing: ${CONTROL_PLANES.join(', ')} (${BACKENDS.join(', ')})`,
    );
  });
});
