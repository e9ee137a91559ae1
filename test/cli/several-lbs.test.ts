// A target with a main LB (fr-par-1) and a fallback (fr-par-2) through `lbsync plan`, `status`, `reconcile`, `doctor`
// and `targets validate`: each shows every LB (its own backends, members, writes and error), and a one-LB target's
// shape is left as it was (no `lbs`). Judged against the emulator's state and call log.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../emulator';
import {
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  DEMO_LB_ID,
  demoBackend,
  FALLBACK_LB_ID,
  FALLBACK_LB_NAME,
  poolOf,
  twoLbSeed,
  twoLbTarget,
} from '../support/world';
import { demoApiEnv, runInProcess } from './support';

const NEW_0 = '51.15.100.31';
const MAIN = { name: 'api.demo.k8s.local', zone: 'fr-par-1' };
const FALLBACK = { name: FALLBACK_LB_NAME, zone: 'fr-par-2' };
const TARGET = twoLbTarget().name;

let emulator: EmulatorHandle;
let env: NodeJS.ProcessEnv;
let saved: NodeJS.ProcessEnv;

const targetsWith = (loadBalancers: unknown) => JSON.stringify([{ ...twoLbTarget(), loadBalancers }]);

beforeAll(async () => {
  emulator = await startEmulator({ instancePendingMs: 20 });
  // The SDK's configuration loader reads process.env itself: the CLI runs with process.env.
  saved = { ...process.env };
  env = Object.assign(process.env, { ...demoApiEnv(emulator.url), NO_COLOR: '1' });
});
afterAll(async () => {
  process.env = saved;
  await emulator?.stop();
});
beforeEach(() => {
  env.LBSYNC_TARGETS = targetsWith([MAIN, FALLBACK]);
  // Both LBs hold the three control planes; the first one was replaced (deleted: its check fails at once).
  emulator.loadSeed(twoLbSeed({ main: [demoBackend()], fallback: [demoBackend()] }));
  emulator.replaceServer(DEMO_CP0_ID, {
    name: 'control-plane-fr-par-1-0b',
    zone: 'fr-par-1',
    publicIps: [NEW_0],
    tags: twoLbTarget().servers.tags,
  });
  emulator.resetCalls();
});

type Place = { name?: string; id?: string; zone: string };
interface PlanJson {
  targets: {
    status: string;
    lb?: unknown;
    lbs?: { loadBalancer: Place; lb?: { id: string }; status: string; error?: { code: string } }[];
    backends: { loadBalancer?: Place; name: string; added: string[]; removed: string[] }[];
    actions: { loadBalancer?: Place; kind: string }[];
    error?: { code: string };
  }[];
}

describe('lbsync with a target of two LBs', () => {
  it('plan: each LB with its own backends and writes (exit 2); the text groups them under each LB', async () => {
    const run = await runInProcess(['plan', '-o', 'json'], env);
    expect(run.code).toBe(2);
    const [target] = (JSON.parse(run.stdout) as PlanJson).targets;
    expect(target?.lb).toBeUndefined();
    expect(target?.lbs).toEqual([
      expect.objectContaining({ loadBalancer: MAIN, lb: expect.objectContaining({ id: DEMO_LB_ID }), status: 'planned' }),
      expect.objectContaining({ loadBalancer: FALLBACK, lb: expect.objectContaining({ id: FALLBACK_LB_ID }), status: 'planned' }),
    ]);
    // The kops target's kops-controller backend, absent on both LBs, is left alone on each.
    expect(target?.backends.map((b) => [b.loadBalancer, b.name, b.added, b.removed])).toEqual([
      [MAIN, 'lb-backend-https', [NEW_0], ['51.15.100.11']],
      [MAIN, 'lb-backend-kops-controller', [], []],
      [FALLBACK, 'lb-backend-https', [NEW_0], ['51.15.100.11']],
      [FALLBACK, 'lb-backend-kops-controller', [], []],
    ]);
    expect(target?.actions.map((a) => [a.loadBalancer, a.kind])).toEqual([
      [MAIN, 'SetBackendServers'],
      [FALLBACK, 'SetBackendServers'],
    ]);
    const text = (await runInProcess(['plan'], env)).stdout;
    expect(text).toMatch(/load balancer api\.demo\.k8s\.local \(fr-par-1\) \S+ ready\n\s+backend lb-backend-https/);
    expect(text).toMatch(/load balancer api-fallback\.demo\.k8s\.local \(fr-par-2\) \S+ ready\n\s+backend lb-backend-https/);
    expect(text).toContain(
      'would run: SetBackendServers lb-backend-https on api.demo.k8s.local (fr-par-1), SetBackendServers lb-backend-https on api-fallback.demo.k8s.local (fr-par-2)',
    );
    expect(emulator.calls().filter((c) => c.write)).toEqual([]);
  });

  it("status: every LB's members with that LB's health, each naming its LB; then reconcile writes both and status is in sync", async () => {
    const before = await runInProcess(['status', '--no-queue', '-o', 'json'], env);
    expect(before.code).toBe(2);
    const [target] = (
      JSON.parse(before.stdout) as {
        targets: {
          state: string;
          lbs: { loadBalancer: Place; state: string }[];
          members: { loadBalancer: Place; ip: string; health: string | null; change?: string }[];
        }[];
      }
    ).targets;
    expect(target?.lbs.map((l) => [l.loadBalancer, l.state])).toEqual([
      [MAIN, 'pending'],
      [FALLBACK, 'pending'],
    ]);
    for (const lb of [MAIN, FALLBACK]) {
      const members = target?.members.filter((m) => m.loadBalancer?.zone === lb.zone).map((m) => [m.ip, m.health, m.change ?? '']);
      expect(members).toEqual([
        ['51.15.100.11', 'failed', 'remove'],
        ['51.15.100.12', 'passed', ''],
        ['51.15.100.13', 'passed', ''],
        [NEW_0, null, 'add'],
      ]);
    }
    expect(
      emulator
        .calls()
        .filter((c) => c.operation === 'ListBackendStats')
        .map((c) => c.path.split('/')[4]),
    ).toEqual(['fr-par-1', 'fr-par-2']);

    const reconcile = await runInProcess(['reconcile', '-o', 'json'], env);
    expect(reconcile.code).toBe(0);
    const [done] = (JSON.parse(reconcile.stdout) as { targets: { status: string; lbs: { loadBalancer: Place; status: string }[] }[] })
      .targets;
    expect(done?.lbs.map((l) => [l.loadBalancer, l.status])).toEqual([
      [MAIN, 'applied'],
      [FALLBACK, 'applied'],
    ]);
    const converged = [...DEMO_CONTROL_PLANE_IPS.slice(1), NEW_0];
    expect(poolOf(emulator, DEMO_LB_ID)).toEqual(converged);
    expect(poolOf(emulator, FALLBACK_LB_ID)).toEqual(converged);
    await new Promise((r) => setTimeout(r, 40)); // the instances' pending window after a write
    const after = await runInProcess(['status', '--no-queue'], env);
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/load balancer api-fallback\.demo\.k8s\.local \(fr-par-2\)/);
  });

  it('a fallback that is not found: plan shows its error under it, the main LB still planned; exit 1', async () => {
    env.LBSYNC_TARGETS = targetsWith([MAIN, { name: 'api-gone.demo.k8s.local', zone: 'fr-par-2' }]);
    const run = await runInProcess(['plan', '-o', 'json'], env);
    expect(run.code).toBe(1);
    const [target] = (JSON.parse(run.stdout) as PlanJson).targets;
    expect(target?.error?.code).toBe('lb_not_found');
    expect(target?.lbs?.map((l) => [l.status, l.error?.code])).toEqual([
      ['planned', undefined],
      ['failed', 'lb_not_found'],
    ]);
    const text = (await runInProcess(['plan'], env)).stdout;
    expect(text).toMatch(
      /load balancer api-gone\.demo\.k8s\.local \(fr-par-2\)\n\s+backend lb-backend-https\s+not checked: the load balancer could not be read \[lb_not_found\]\n(.*\n)?\s+error \[lb_not_found\]/,
    );
    expect(text).toContain('would run: SetBackendServers lb-backend-https on api.demo.k8s.local (fr-par-1)\n');
  });

  it('doctor: lb and health lines per LB (named <name>@<zone>), the servers and the plan once', async () => {
    const run = await runInProcess(['doctor', '--no-queue', '-o', 'json'], env);
    const { checks } = JSON.parse(run.stdout) as { checks: { name: string; status: string; detail: string }[] };
    const mine = checks.filter((c) => c.name.startsWith(`target:${TARGET}:`)).map((c) => c.name.slice(`target:${TARGET}:`.length));
    // A backends line is told only when the backends could not be read.
    expect(mine).toEqual([
      'lb:api.demo.k8s.local@fr-par-1',
      'lb:api-fallback.demo.k8s.local@fr-par-2',
      'servers',
      'kops-parity',
      'health:api.demo.k8s.local@fr-par-1',
      'health:api-fallback.demo.k8s.local@fr-par-2',
      'plan',
    ]);
    expect(checks.find((c) => c.name === `target:${TARGET}:health:api-fallback.demo.k8s.local@fr-par-2`)?.detail).toContain(
      'not passing: 51.15.100.11 failed',
    );
    expect(checks.find((c) => c.name === `target:${TARGET}:lb:api-fallback.demo.k8s.local@fr-par-2`)).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining(`api-fallback.demo.k8s.local (${FALLBACK_LB_ID}) is ready`),
    });
    expect(checks.find((c) => c.name === `target:${TARGET}:plan`)?.detail).toContain(
      `api-fallback.demo.k8s.local (fr-par-2): SetBackendServers lb-backend-https`,
    );
    expect(emulator.calls().filter((c) => c.write)).toEqual([]);
  });

  it('a one-LB target keeps its shape: lb at the top, no lbs, no LB on its backends or actions', async () => {
    env.LBSYNC_TARGETS = JSON.stringify([{ kops: { cluster: 'demo.k8s.local', zone: 'fr-par-1' } }]);
    const [target] = (JSON.parse((await runInProcess(['plan', '-o', 'json'], env)).stdout) as PlanJson).targets;
    expect(target).toMatchObject({ lb: { id: DEMO_LB_ID } });
    expect(target).not.toHaveProperty('lbs');
    expect(target?.actions.every((a) => !('loadBalancer' in a))).toBe(true);
    expect(target?.backends.every((b) => !('loadBalancer' in b))).toBe(true);
    const [status] = (JSON.parse((await runInProcess(['status', '--no-queue', '-o', 'json'], env)).stdout) as PlanJson).targets;
    expect(status).not.toHaveProperty('lbs');
  });

  it('targets validate names every LB, with the zone of one outside the servers’ zone', async () => {
    const run = await runInProcess(['targets', 'validate'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`load balancers api.demo.k8s.local, ${FALLBACK_LB_NAME} in fr-par-2`);
  });
});
