// `lbsync status` as an operator runs it (the real bin) against the emulator and the local queue: each member with
// the LB's own health of it (ListBackendStats, one call per backend), desired vs current with what is pending and
// why (the make-before-break hold included), the queues' depths, the exit codes of `plan`; a failed read shows the
// failure and no pool; `--watch` off a terminal appends a stamped block per change. Then the short ids of
// `lbsync dlq` and the sweep's progress over paced batches. Nothing races a clock: health timing is an hour or 0,
// switched between commands, and the watch is followed by its output and the emulator's call log.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../emulator';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import { createEventQueue, type EventQueue } from '../../shared/adapters/queue';
import { provisionQueues } from '../../cli/adapters/queue-provisioning';
import {
  DEMO_CLUSTER,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  DEMO_LB_ID,
  demoBackend,
  demoSeedWith,
  FAKE_SECRET_KEY,
} from '../support/world';
import { main } from '../../cli/main';
import { colorsFor } from '../../cli/output';
import type { StatusSnapshot } from '../../cli/status-view';
import { REDRAW, statusExitCode, terminalFrame } from '../../cli/status-view';
import { BIN, ROOT, demoApiEnv, localQueueEnv, runBin, waitFor } from './support';

const HOUR = 3_600_000;
const NEW = '51.15.100.31';
const OLD = '51.15.100.11';
const NEW_SERVER = {
  name: 'control-plane-fr-par-1-0b',
  zone: 'fr-par-1',
  publicIps: [NEW],
  tags: [`noprefix=kops.k8s.io/cluster=${DEMO_CLUSTER}`, 'noprefix=kops.k8s.io/role=ControlPlane'],
};

let emulator: EmulatorHandle;
let localQueue: LocalQueue;
let queue: EventQueue;
let env: Record<string, string>;
let statusQueues: { reconcileQueueUrl: string; deadLetterQueueUrl: string };

interface Member {
  backend: string;
  ip: string;
  health: string | null;
  inPool: boolean;
  desired?: boolean;
  change?: string;
  why?: string;
}
interface TargetJson {
  target: string;
  inSync: boolean;
  warnings: string[];
  state: string;
  lb?: { status: string };
  backends: { name: string; state: string }[];
  members: Member[];
  apiCalls: { reads: number; writes: number };
  error?: { code: string; message: string };
}
interface StatusJson {
  ok: boolean;
  command: string;
  inSync: boolean;
  exitCode: number;
  targets: TargetJson[];
  queues?:
    | { reconcile: { waiting: number; inFlight: number }; deadLetter: { waiting: number; inFlight: number } }
    | { error: { code: string } };
}

async function status(args: string[] = [], overrides: Record<string, string> = {}) {
  const run = await runBin(['status', '-o', 'json', ...args], { ...env, ...overrides });
  return { ...run, json: JSON.parse(run.stdout) as StatusJson };
}

const operations = () => emulator.calls().map((c) => c.operation);
const statsCalls = () => operations().filter((op) => op === 'ListBackendStats').length;

beforeAll(async () => {
  [emulator, localQueue] = await Promise.all([startEmulator({ instancePendingMs: 0 }), startLocalQueue()]);
  queue = createEventQueue(localQueue.settings);
  statusQueues = await provisionQueues(queue, {
    reconcileQueueName: 'status-reconcile',
    deadLetterQueueName: 'status-dead-letter',
    functionTimeoutSeconds: 60,
  });
  env = {
    ...demoApiEnv(emulator.url),
    LBSYNC_WAIT_BUDGET_MS: '2000',
    ...localQueueEnv(localQueue, statusQueues),
  };
});
afterAll(async () => {
  await emulator?.stop();
  await localQueue?.stop();
});

beforeEach(() => {
  emulator.loadSeed(demoSeedWith({ backends: [demoBackend()] }));
  emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0 });
  emulator.clearForcedHealth();
  emulator.clearFaults();
  emulator.resetCalls();
});

describe('lbsync status: one snapshot', () => {
  it("in sync: each member with the LB's own health of it (one ListBackendStats per backend), the queues' depths; exit 0; nothing written", async () => {
    emulator.forceHealth('51.15.100.12', 'failed'); // only the stats say so: the pool and the servers are as wanted
    await Promise.all([
      queue.send(statusQueues.reconcileQueueUrl, '{"waiting":1}'),
      queue.send(statusQueues.reconcileQueueUrl, '{"waiting":2}'),
      queue.send(statusQueues.deadLetterQueueUrl, '{"dead":1}'),
    ]);
    const { code, json } = await status();
    expect(code).toBe(0);
    expect(json).toMatchObject({ ok: true, command: 'status', inSync: true, exitCode: 0 });
    const [target] = json.targets;
    expect(target).toMatchObject({ target: DEMO_CLUSTER, inSync: true, state: 'in_sync', lb: { status: 'ready' } });
    expect(target?.members.map((m) => [m.backend, m.ip, m.health, m.inPool, m.desired])).toEqual([
      ['lb-backend-https', '51.15.100.11', 'passed', true, true],
      ['lb-backend-https', '51.15.100.12', 'failed', true, true],
      ['lb-backend-https', '51.15.100.13', 'passed', true, true],
    ]);
    expect(target?.backends).toEqual([
      expect.objectContaining({ name: 'lb-backend-https', state: 'in_sync' }),
      expect.objectContaining({ name: 'lb-backend-kops-controller', state: 'absent' }),
    ]);
    expect(json.queues).toEqual({ reconcile: { waiting: 2, inFlight: 0 }, deadLetter: { waiting: 1, inFlight: 0 } });
    // The cost of one target's status, from the emulator's log: the plan's three reads and one ListBackendStats.
    expect(operations().sort()).toEqual(['ListBackendStats', 'ListBackends', 'ListLbs', 'ListServers']);
    expect(target?.apiCalls).toEqual(expect.objectContaining({ reads: 4, writes: 0 }));

    const text = await runBin(['status'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^demo\.k8s\.local \(fr-par-1\) {2}in sync$/m);
    expect(text.stdout).toMatch(/^ {4}51\.15\.100\.12 {2}failed$/m);
    expect(text.stdout).toContain('queues  reconcile: 2 waiting, 0 in flight; dead letters: 1 waiting, 0 in flight  (lbsync dlq list)');
    expect(text.stdout).toContain('1 target: 1 in sync, 0 pending, 0 failed  (4 Scaleway API reads)');
    expect(emulator.calls().filter((c) => c.write)).toEqual([]);
  });

  it('a rolling update: the new member to add, then the old one held by make-before-break until the new one passes; exit 2 until in sync', async () => {
    emulator.setBehaviours({ healthPassAfterMs: HOUR, healthFailAfterMs: HOUR });
    emulator.replaceServer(DEMO_CP0_ID, NEW_SERVER);
    const before = await status(['--no-queue']);
    expect(before.code).toBe(2);
    expect(before.json).toMatchObject({ ok: true, inSync: false, exitCode: 2, targets: [{ state: 'pending' }] });
    expect(before.json.queues).toBeUndefined();
    const members = (s: StatusJson) => Object.fromEntries((s.targets[0]?.members ?? []).map((m) => [m.ip, m]));
    expect(members(before.json)[NEW]).toMatchObject({ health: null, inPool: false, desired: true, change: 'add' });
    expect(members(before.json)[OLD]).toMatchObject({ health: 'passed', inPool: true, desired: false, change: 'keep' });
    expect(members(before.json)[OLD]?.why).toContain(`make-before-break: waiting until ${NEW} passes the LB's health check`);
    // The plan read the stats to stage the removal; status reused that answer.
    expect(statsCalls()).toBe(1);

    expect((await runBin(['reconcile'], env)).code).toBe(1); // adds NEW, keeps OLD for now (removal_deferred)
    const held = await runBin(['status', '--no-queue'], env);
    expect(held.code).toBe(2);
    expect(held.stdout).toContain('pending: 1 removal staged for later');
    expect(held.stdout).toMatch(new RegExp(`^ {4}${NEW.replaceAll('.', '\\.')} {2}unknown$`, 'm'));
    expect(held.stdout).toMatch(
      new RegExp(
        `^ {4}${OLD.replaceAll('.', '\\.')} {2}passed +~ leaves later: .*make-before-break: waiting until ${NEW.replaceAll('.', '\\.')} passes`,
        'm',
      ),
    );

    emulator.setBehaviours({ healthPassAfterMs: 0 });
    const ready = await status(['--no-queue']);
    expect(ready.code).toBe(2);
    expect(members(ready.json)[NEW]).toMatchObject({ health: 'passed', inPool: true });
    expect(members(ready.json)[OLD]).toMatchObject({ change: 'remove' });
    expect((await runBin(['reconcile'], env)).code).toBe(0);
    const done = await status(['--no-queue']);
    expect(done.code).toBe(0);
    expect(done.json.targets[0]?.members.map((m) => [m.ip, m.health])).toEqual([
      ['51.15.100.12', 'passed'],
      ['51.15.100.13', 'passed'],
      [NEW, 'passed'],
    ]);
  });

  it('a failed read shows the failure and never a pool: the backends unread, exit 1', async () => {
    emulator.addFault({ operation: 'ListBackends', status: 500, body: { message: 'internal error' }, count: -1 });
    const { code, json } = await status(['--no-queue']);
    expect(code).toBe(1);
    expect(json).toMatchObject({
      ok: false,
      inSync: false,
      exitCode: 1,
      targets: [{ state: 'failed', inSync: false, backends: [], members: [] }],
    });
    expect(json.targets[0]?.error?.message).toContain('listing back-ends for load-balancer');
    const text = await runBin(['status', '--no-queue'], env);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^demo\.k8s\.local \(fr-par-1\) {2}failed$/m);
    expect(text.stdout).not.toMatch(/ {2}in sync$/m);
    expect(text.stdout).not.toContain('backend lb-backend-https');
    expect(text.stdout).not.toContain('51.15.100.1');
  });

  it('health that could not be read is not made up: the members as read with no health, the failure told, exit 1', async () => {
    emulator.addFault({ operation: 'ListBackendStats', status: 403, body: { type: 'permissions_denied', message: 'denied' }, count: -1 });
    const { code, json } = await status(['--no-queue']);
    expect(code).toBe(1);
    expect(json.targets[0]).toMatchObject({ state: 'failed', inSync: false, error: { code: 'permissions_denied' } });
    expect(json.targets[0]?.error?.message).toContain('reading back-end server health for load-balancer api.demo.k8s.local');
    expect(json.targets[0]?.members.map((m) => [m.ip, m.health])).toEqual(DEMO_CONTROL_PLANE_IPS.map((ip) => [ip, null]));
  });

  it("reports of another backend in the health answer are not shown as these members' health, and are named", async () => {
    const OTHER_BACKEND = '00000000-0000-4000-8000-0000000000b7';
    const url = `${emulator.url}/lb/v1/zones/fr-par-1/lbs/${DEMO_LB_ID}/backend-stats`;
    const own = (await (await fetch(url, { headers: { 'X-Auth-Token': FAKE_SECRET_KEY } })).json()) as {
      backend_servers_stats: Record<string, unknown>[];
    };
    const others = own.backend_servers_stats.map((item) => ({ ...item, backend_id: OTHER_BACKEND, last_health_check_status: 'passed' }));
    emulator.forceHealth('51.15.100.12', 'failed');
    emulator.addFault({ operation: 'ListBackendStats', status: 200, body: { backend_servers_stats: others, total_count: others.length } });
    const { code, json } = await status(['--no-queue']);
    expect(code).toBe(0);
    const [target] = json.targets;
    expect(target?.members.map((m) => [m.ip, m.health])).toEqual(DEMO_CONTROL_PLANE_IPS.map((ip) => [ip, 'no report']));
    expect(target?.warnings.filter((w) => w.startsWith('[discovery_filter_mismatch] '))).toEqual([
      expect.stringContaining(
        `health report of 51.15.100.11, health report of 51.15.100.12, health report of 51.15.100.13: is of backend ${OTHER_BACKEND}, not `,
      ),
    ]);
  });

  it('a queue that does not answer is told (exit 1) with the targets still shown; --no-queue leaves the queues out', async () => {
    const broken = await status([], { DEAD_LETTER_QUEUE_URL: `${localQueue.endpoint}/000000000000/no-such-queue` });
    expect(broken.code).toBe(1);
    expect(broken.json).toMatchObject({ ok: false, inSync: true, queues: { error: { code: expect.any(String) } } });
    expect(broken.json.targets[0]?.state).toBe('in_sync');
    const unset = await runBin(['status'], { ...env, SQS_ACCESS_KEY_ID: '' });
    expect(unset.code).toBe(1);
    expect(unset.stdout).toContain('queues  error [invalid_config]');
    expect(unset.stdout).toContain('or leave the queues out with --no-queue');
    expect((await runBin(['status', '--no-queue'], { ...env, SQS_ACCESS_KEY_ID: '' })).code).toBe(0);
  });

  it('bad flags exit 64, an unknown target too, with a suggestion', async () => {
    for (const watch of ['0', 'soon', '3601']) expect((await runBin(['status', '--watch', watch], env)).code).toBe(64);
    const unknown = await runBin(['status', '-t', 'demo.k8s.locl'], env);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('(did you mean "demo.k8s.local"?)');
  });
});

describe('lbsync status --watch off a terminal', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('appends a time-stamped block for each change only; Ctrl-C ends it with the last refresh’s exit code', async () => {
    let stdout = '';
    child = spawn(process.execPath, [BIN, 'status', '--no-queue', '--watch', '1'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: mkdtempSync(join(tmpdir(), 'lbsync-home-')), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child?.on('exit', (code) => resolve(code)));
    const heads = (verdict: string) =>
      stdout.match(new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\dZ\\] demo\\.k8s\\.local \\(fr-par-1\\) {2}${verdict}$`, 'gm')) ?? [];
    /**
     * Waits for refreshes, counted by their ListBackendStats in the emulator's log: a refresh prints before the next
     * one reads, so two more reads mean at least one more refresh printed (or printed nothing).
     */
    const refreshes = async (count: number) => {
      const seen = statsCalls();
      await waitFor(`${count} more refreshes`, () => statsCalls() >= seen + count, 20_000);
    };

    await waitFor('the first refresh', () => /^\[\d\d:\d\d:\d\dZ\] 1 target: 1 in sync, 0 pending, 0 failed/m.test(stdout), 20_000);
    expect(heads('in sync')).toHaveLength(1);
    await refreshes(2);
    expect(heads('in sync')).toHaveLength(1); // nothing changed: nothing appended

    emulator.replaceServer(DEMO_CP0_ID, NEW_SERVER); // the old member fails at once: a write is pending
    const toAdd = new RegExp(`^ {4}${NEW.replaceAll('.', '\\.')} +- +\\+ to add: address of server control-plane-fr-par-1-0b`, 'm');
    await waitFor('the pending block', () => heads('pending: 1 write').length === 1 && toAdd.test(stdout), 20_000);
    await refreshes(2);
    expect(heads('pending: 1 write')).toHaveLength(1);

    expect((await runBin(['reconcile'], env)).code).toBe(0);
    await waitFor('in sync again', () => heads('in sync').length === 2, 20_000);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(
      emulator
        .calls()
        .filter((c) => c.write)
        .map((c) => c.operation),
    ).toEqual(['SetBackendServers']); // the reconcile's only
  }, 90_000);
});

describe('lbsync status --watch on a terminal', () => {
  it('redraws in place: each refresh clears the screen and draws the whole status under a header, in colour', async () => {
    const stop = new AbortController();
    let stdout = '';
    const frames = () => stdout.split(REDRAW).slice(1);
    // In process, as on a terminal: the SDK's configuration loader reads process.env itself.
    const saved = { ...process.env };
    Object.assign(process.env, env);
    // A colour terminal, whatever the shell running the tests says (CI sets NO_COLOR).
    delete process.env.NO_COLOR;
    process.env.TERM = 'xterm-256color';
    try {
      const running = main(
        ['status', '--no-queue', '--watch', '1'],
        { stdout: { write: (s: string) => (stdout += s), isTTY: true }, stderr: { write: () => true }, env: process.env },
        { stopSignal: stop.signal },
      );
      try {
        await waitFor('two frames', () => frames().length >= 2, 20_000);
      } finally {
        stop.abort();
      }
      expect(await running).toBe(0);
    } finally {
      process.env = saved;
    }
    expect(stdout.startsWith(REDRAW)).toBe(true);
    for (const frame of frames()) {
      const plain = stripVTControlCharacters(frame);
      expect(plain).toMatch(
        /^lbsync status: every 1 s, read at \d\d:\d\d:\d\dZ \(Ctrl-C to stop\)\n\ndemo\.k8s\.local \(fr-par-1\) {2}in sync\n/,
      );
      expect(plain).toContain('    51.15.100.11  passed\n');
      expect(plain.trimEnd().split('\n').at(-1)).toBe('1 target: 1 in sync, 0 pending, 0 failed  (4 Scaleway API reads)');
    }
    expect(frames()[0]).toContain('\u001b[32min sync\u001b[39m'); // a terminal gets colours
  }, 60_000);

  it('the frame, from the rendering function: a pending target, its held member and why', () => {
    const snapshot: StatusSnapshot = {
      at: '2026-11-29T10:00:05.000Z',
      targets: [
        {
          target: 'prod',
          zone: 'fr-par-1',
          inSync: false,
          state: 'pending',
          lb: { id: 'lb-1', name: 'api.prod', status: 'ready' },
          desiredPool: ['10.0.0.2', '10.0.0.3'],
          poolSource: 'tags',
          serverCount: 2,
          backends: [{ name: 'lb-backend-https', id: 'b-1', state: 'pending', changes: [], actions: [] }],
          members: [
            {
              backend: 'lb-backend-https',
              ip: '10.0.0.1',
              health: 'passed',
              inPool: true,
              desired: false,
              change: 'keep',
              why: 'kept for now',
            },
            { backend: 'lb-backend-https', ip: '10.0.0.2', health: 'passed', inPool: true, desired: true },
            { backend: 'lb-backend-https', ip: '10.0.0.3', health: 'unknown', inPool: true, desired: true },
          ],
          actions: [],
          warnings: [],
          apiCalls: { reads: 4, writes: 0, byOperation: {} },
        },
      ],
      queues: { reconcile: { waiting: 0, inFlight: 1 }, deadLetter: { waiting: 0, inFlight: 0 } },
    };
    const c = colorsFor({ write: () => true, isTTY: false }, {});
    expect(terminalFrame(snapshot, c, 5)).toBe(
      [
        `${REDRAW}lbsync status: every 5 s, read at 10:00:05Z (Ctrl-C to stop)`,
        '',
        'prod (fr-par-1)  pending: 1 removal staged for later',
        '  load balancer api.prod lb-1 ready',
        '  desired pool  10.0.0.2, 10.0.0.3 from 2 servers matching the tags',
        '  backend lb-backend-https  b-1  pending',
        '    MEMBER    LB HEALTH',
        '    10.0.0.1  passed     ~ leaves later: kept for now',
        '    10.0.0.2  passed',
        '    10.0.0.3  unknown',
        '',
        'queues  reconcile: 0 waiting, 1 in flight; dead letters: 0 waiting, 0 in flight',
        '1 target: 0 in sync, 1 pending, 0 failed  (4 Scaleway API reads)',
        '',
      ].join('\n'),
    );
    expect(statusExitCode(snapshot)).toBe(2);
  });
});
