// `lbsync status` and `lbsync doctor` name the other writers of a target's pool (Audit Trail, the last 30 minutes)
// when an organization is known, and warn pool_contested when scw-lb-sync kept reverting one of them: here another
// scw-lb-sync deployment (owner staging-par) and this one (prod-par) undoing each other's pool, written for real.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../emulator';
import { createScalewayGateway } from '../../shared/adapters/scaleway';
import { convergedDemoSeed, DEMO_CONTROL_PLANE_IPS, FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../support/world';
import { demoApiEnv, runBin } from './support';

const ORGANIZATION = '23b8c1e9-3924-46de-beb1-3b9046685257';
let emulator: EmulatorHandle;
let env: Record<string, string>;

beforeAll(async () => {
  emulator = await startEmulator({ seed: convergedDemoSeed(), instancePendingMs: 5, auditTrailDelayMs: 0 });
  env = { ...demoApiEnv(emulator.url), SCW_DEFAULT_ORGANIZATION_ID: ORGANIZATION, LBSYNC_OWNER_ID: 'prod-par' };
  const backendId = emulator.backendHealth().backends[0]?.backendId as string;
  const as = (ownerId: string) =>
    createScalewayGateway({ accessKey: FAKE_ACCESS_KEY, secretKey: FAKE_SECRET_KEY, apiUrl: emulator.url, ownerId });
  for (let i = 0; i < 3; i += 1) {
    await as('staging-par').setBackendServers('fr-par-1', backendId, DEMO_CONTROL_PLANE_IPS.slice(1));
    await as('prod-par').setBackendServers('fr-par-1', backendId, DEMO_CONTROL_PLANE_IPS);
  }
});
afterAll(() => emulator.stop());

describe('other writers in lbsync status and lbsync doctor', () => {
  it('status: the writes by others, and the pool_contested warning naming both deployments', async () => {
    const run = await runBin(['status', '--no-queue', '-o', 'json'], env);
    const [target] = (JSON.parse(run.stdout) as { targets: { warnings: string[]; foreignWrites: { writer: string }[] }[] }).targets;
    expect(target?.foreignWrites.map((w) => w.writer)).toEqual(Array(3).fill('another scw-lb-sync deployment (owner staging-par)'));
    expect(target?.warnings).toContainEqual(
      expect.stringMatching(
        /^\[pool_contested\] target demo\.k8s\.local: scw-lb-sync reverted another scw-lb-sync deployment \(owner staging-par\) \(owners staging-par and ours, prod-par\) 3 times/,
      ),
    );
    const text = await runBin(['status', '--no-queue'], env);
    expect(text.stdout).toContain(
      'written by others in the last 30 minutes: another scw-lb-sync deployment (owner staging-par) (3 writes)',
    );
  });

  it('doctor: a warn line per target naming the contest, with its hint; none without an organization', async () => {
    const run = await runBin(['doctor', '--no-queue', '-o', 'json'], env);
    const { checks } = JSON.parse(run.stdout) as { checks: { name: string; status: string; detail: string; hint?: string }[] };
    const writers = checks.find((c) => c.name === 'target:demo.k8s.local:writers');
    expect(writers).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('[pool_contested]'),
      hint: expect.stringContaining('three times in 30 minutes'),
    });
    const without = await runBin(['doctor', '--no-queue', '-o', 'json'], { ...env, SCW_DEFAULT_ORGANIZATION_ID: '' });
    expect((JSON.parse(without.stdout) as { checks: { name: string }[] }).checks.map((c) => c.name)).not.toContain(
      'target:demo.k8s.local:writers',
    );
  });
});
