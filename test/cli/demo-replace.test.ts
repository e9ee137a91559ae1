// The demo's replacement as docs/operations.md and `npm start` tell it, reproduced: the local stack with the LB's
// checks taking their time, the printed `replace` (by name, through the control API) run twice, and the real bin's
// `lbsync status --watch` off a terminal, whose time-stamped blocks show the successor `unknown` while the old member
// is kept (`~ leaves later`), then the target in sync without it. Adding and removing a server go the same way.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_REPLACED_NAME } from '../../local/demo-story';
import type { LocalStack } from '../../local/stack';
import { startDemoStack } from '../support/demo-stack';
import { convergedDemoSeed, demoPool } from '../support/world';
import { BIN, demoApiEnv, ROOT, runBin, waitFor } from './support';

let stack: LocalStack;
let child: ChildProcess | undefined;

beforeAll(async () => {
  // As `npm start` runs the LB's checks (local/demo-story.ts DEMO_HEALTH_TIMING), shortened to keep the test quick.
  stack = await startDemoStack({ seed: convergedDemoSeed(), behaviours: { healthPassAfterMs: 3_000, healthFailAfterMs: 30_000 } });
});
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});
afterAll(async () => stack?.stop());

const control = async (method: string, path: string, body?: unknown) => {
  const answer = await fetch(`${stack.emulator.url}/_emulator/${path}`, {
    method,
    ...(body !== undefined && { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
};

describe("the demo's replacement, reproduced from the docs", () => {
  it('`replace` by name works every time; status --watch shows the old member held until its successor passes, with times', async () => {
    let stdout = '';
    child = spawn(process.execPath, [BIN, 'status', '--no-queue', '--watch', '1'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: mkdtempSync(join(tmpdir(), 'lbsync-home-')),
        ...demoApiEnv(stack.emulator.url),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    await waitFor('the first refresh', () => /^\[\d\d:\d\d:\d\dZ\] 1 target: 1 in sync/m.test(stdout), 20_000);

    for (const round of [1, 2]) {
      const replaced = await control('POST', `servers/${DEMO_REPLACED_NAME}/replace`);
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      const [newIp] = replaced.body.publicIps as string[];
      expect((await stack.sweep({})).status).toBe(200); // the demo's sweep runs every minute; the watcher would find it too
      const held = new RegExp(
        `^ {4}(\\S+) +passed +~ leaves later: .*make-before-break: waiting until ${(newIp as string).replaceAll('.', '\\.')} passes`,
        'm',
      );
      const unknown = new RegExp(`^ {4}${(newIp as string).replaceAll('.', '\\.')} +unknown`, 'm');
      await waitFor(
        `round ${round}: the old member held while ${newIp} is unknown`,
        () => held.test(stdout) && unknown.test(stdout),
        20_000,
      );
      await waitFor(
        `round ${round}: in sync on ${newIp}`,
        () => demoPool(stack.emulator)?.includes(newIp as string) && demoPool(stack.emulator)?.length === 3,
        30_000,
      );
      await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 20_000 });
    }
    // Each change was appended as a block stamped with its time: pending (held), then in sync again.
    expect(
      stdout.match(/^\[\d\d:\d\d:\d\dZ\] demo\.k8s\.local \(fr-par-1\) {2}pending: 1 removal staged for later$/gm)?.length,
    ).toBeGreaterThanOrEqual(2);
    child.kill('SIGINT');
  }, 120_000);

  it('a server is added and removed by name through the control API', async () => {
    const tags = ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'];
    const added = await control('POST', 'servers', { name: 'control-plane-fr-par-1-3', tags });
    expect(added.status).toBe(200);
    const [ip] = added.body.publicIps as string[];
    expect(ip).toMatch(/^51\.15\.100\.\d+$/);
    await stack.sweep({});
    await waitFor('the fourth control plane in the pool', () => demoPool(stack.emulator)?.includes(ip as string), 30_000);
    expect((await control('DELETE', 'servers/control-plane-fr-par-1-3')).status).toBe(200);
    expect((await control('DELETE', 'servers/control-plane-fr-par-1-3')).status).toBe(404);
    expect((await control('POST', 'servers', { zone: 'fr-par-1' })).status).toBe(400);
  }, 60_000);

  it('`lbsync emulator` alone serves the demo world and prints the environment to use it: doctor passes with that line', async () => {
    let stderr = '';
    child = spawn(process.execPath, [BIN, 'emulator', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const line = await waitFor('the export line', () => /^ {2}export (.+)$/m.exec(stderr)?.[1], 20_000);
    const env = Object.fromEntries([...line.matchAll(/([A-Z_]+)='([^']*)'/g)].map((m) => [m[1] as string, m[2] as string]));
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['SCW_API_URL', 'SCW_ACCESS_KEY', 'SCW_SECRET_KEY', 'LBSYNC_TARGETS']));
    const doctor = await runBin(['doctor', '--no-queue', '-o', 'json'], env);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).not.toContain('lb_not_found');
  }, 60_000);
});
