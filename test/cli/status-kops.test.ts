// `lbsync status --watch` while kOps' rolling update runs (started through the emulator's control API, as the local
// stack's hint says): the control planes kOps marked show as leaving, the one it deregistered as "not added back",
// and the workers kOps' apply wrote in as to remove. Waits on the output, never a timer: kOps' drain lasts a minute
// and is stopped at the end.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../emulator';
import { convergedDemoSeed, DEMO_WORKER_IPS } from '../support/world';
import { BIN, ROOT, demoApiEnv, waitFor } from './support';

let emulator: EmulatorHandle;
let child: ChildProcess | undefined;
beforeAll(async () => {
  emulator = await startEmulator({ seed: convergedDemoSeed(), instancePendingMs: 10 });
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await fetch(`${emulator.url}/_emulator/kops/rolling-update`, { method: 'DELETE' });
  await emulator.stop();
});

const control = (method: string, body?: unknown) =>
  fetch(`${emulator.url}/_emulator/kops/rolling-update`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });

describe("lbsync status --watch during kOps' rolling update", () => {
  it('shows the marked control planes as leaving, the deregistered one as not added back, the workers to remove', async () => {
    let stdout = '';
    child = spawn(process.execPath, [BIN, 'status', '--no-queue', '--watch', '1'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: mkdtempSync(join(tmpdir(), 'lbsync-home-')), ...demoApiEnv(emulator.url) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    await waitFor('the first refresh', () => /1 target: 1 in sync/.test(stdout), 20_000);

    expect(
      (await control('POST', { cluster: 'demo.k8s.local', timings: { drainMs: 60_000, validateMs: 10, serverPollMs: 20 } })).status,
    ).toBe(202);
    expect((await control('POST', { cluster: 'demo.k8s.local' })).status).toBe(409);
    const run = await waitFor(
      "kOps' deregistration",
      async () => {
        const { runs } = (await (await control('GET')).json()) as { runs: { steps: { step: string; ip?: string }[] }[] };
        return runs[0]?.steps.find((s) => s.step === 'deregistered');
      },
      20_000,
    );
    const ip = (run.ip as string).replaceAll('.', '\\.');
    const notBack = new RegExp(
      `^ {4}${ip} +- +leaving: server control-plane-fr-par-1-\\d, leaving \\(marked needs-update; kOps removes it\\): not added back`,
      'm',
    );
    await waitFor('the deregistered control plane as leaving', () => notBack.test(stdout), 20_000);
    expect(stdout).toMatch(/leaving \(marked needs-update; kOps removes it\): stays while it is in the pool/);
    for (const worker of DEMO_WORKER_IPS) expect(stdout).toMatch(new RegExp(`^ {4}${worker.replaceAll('.', '\\.')} .*- to remove:`, 'm'));
    // status reads, never writes: the only writes are kOps'.
    expect(
      new Set(
        emulator
          .calls()
          .filter((c) => c.write)
          .map((c) => c.userAgent?.split(' ')[0]),
      ),
    ).toEqual(new Set(['scaleway-sdk-go/v1.0.0-beta.36']));
  }, 60_000);
});
