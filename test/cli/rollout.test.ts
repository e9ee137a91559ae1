// `lbsync plan`, `reconcile` and `doctor` (in process) during a rolling update held back by the LB's health checks:
// the plan shows each member's health and the staged writes, reconcile does the safe first write and says what
// waits (exit 1, with the code and hint), doctor names the member that does not pass. Health timing is an hour
// ("not yet") or 0, switched between commands: nothing races a clock.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../emulator';
import { DEMO_CLUSTER, DEMO_CONTROL_PLANE_IPS, DEMO_CP0_ID, convergedDemoSeed } from '../support/world';
import { demoApiEnv, runInProcess } from './support';

const HOUR = 3_600_000;
const NEW = '51.15.100.31';
let emulator: EmulatorHandle;
let env: NodeJS.ProcessEnv;
let saved: NodeJS.ProcessEnv;

beforeAll(async () => {
  emulator = await startEmulator({ instancePendingMs: 0 });
  // The SDK's configuration loader reads process.env itself: the CLI runs with process.env.
  saved = { ...process.env };
  env = Object.assign(process.env, {
    ...demoApiEnv(emulator.url),
    LBSYNC_WAIT_BUDGET_MS: '2000',
    NO_COLOR: '1',
  });
});
afterAll(async () => {
  process.env = saved;
  await emulator.stop();
});

beforeEach(() => {
  emulator.loadSeed(convergedDemoSeed());
  emulator.setBehaviours({ healthPassAfterMs: HOUR, healthFailAfterMs: HOUR });
  // A kOps replacement: the old server is gone but its check has not failed yet; the new one does not pass yet.
  emulator.replaceServer(DEMO_CP0_ID, {
    name: 'control-plane-fr-par-1-0b',
    zone: 'fr-par-1',
    publicIps: [NEW],
    tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
  });
  emulator.resetCalls();
});

describe('a rolling update held back by the health checks', () => {
  it('plan: the health of each member and the staged writes, exit 2 (drift), nothing written', async () => {
    const text = await runInProcess(['plan'], env);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(`+ ${NEW}  (address of server control-plane-fr-par-1-0b`);
    expect(text.stdout).toContain(
      `~ 51.15.100.11  [passed]  (no server carrying the target's tags has this address; kept for now: passes its health check; make-before-break: waiting until ${NEW} passes the LB's health check)`,
    );
    expect(text.stdout).toContain(`1. now: +${NEW} -> [51.15.100.11, 51.15.100.12, 51.15.100.13, ${NEW}]`);
    expect(text.stdout).toContain(`2. once ${NEW} passes the LB's health check: -51.15.100.11 -> [51.15.100.12, 51.15.100.13, ${NEW}]`);
    expect(text.stdout).toContain('drift: 1 action, 1 removal staged for later');
    const json = JSON.parse((await runInProcess(['plan', '--json'], env)).stdout) as {
      targets: {
        backends: {
          added: string[];
          removed: string[];
          rollout: { health: Record<string, string>; stages: { when: string; removed: string[] }[] };
        }[];
      }[];
    };
    const backend = json.targets[0]?.backends[0];
    expect(backend).toMatchObject({ added: [NEW], removed: [] });
    expect(backend?.rollout.health).toMatchObject({ '51.15.100.11': 'passed' });
    expect(backend?.rollout.stages.map((s) => s.removed)).toEqual([[], ['51.15.100.11']]);
    expect(emulator.calls().filter((c) => c.write)).toEqual([]);
  });

  it('reconcile: the first write only adds; the removal waits (removal_deferred, exit 1); once the new member passes, it goes', async () => {
    const first = await runInProcess(['reconcile'], env);
    expect(first.code).toBe(1);
    expect(first.stdout).toContain(
      '[removal_deferred] updating back-end server IPs for load-balancer api.demo.k8s.local: backend lb-backend-https keeps 51.15.100.11 for now',
    );
    expect(first.stdout).toContain('hint: A rolling update in progress (make-before-break)');
    expect(emulator.history().map((w) => [...w.pool].sort())).toEqual([[...DEMO_CONTROL_PLANE_IPS, NEW]]);

    emulator.setBehaviours({ healthPassAfterMs: 0 });
    const second = await runInProcess(['reconcile', '--json'], env);
    expect(second.code).toBe(0);
    expect(emulator.history().map((w) => [...w.pool].sort())).toEqual([
      [...DEMO_CONTROL_PLANE_IPS, NEW],
      ['51.15.100.12', '51.15.100.13', NEW],
    ]);
  });

  it('doctor: names the member that does not pass, and what a reconcile would do now and later', async () => {
    await runInProcess(['reconcile'], env); // the new member is in the pool, not passing yet
    const report = JSON.parse((await runInProcess(['doctor', '--no-queue', '-o', 'json'], env)).stdout) as {
      checks: { name: string; status: string; detail: string }[];
    };
    const health = report.checks.find((c) => c.name === `target:${DEMO_CLUSTER}:health`);
    expect(health).toMatchObject({ status: 'warn' });
    expect(health?.detail).toBe(`not passing: ${NEW} unknown; passing: 51.15.100.11, 51.15.100.12, 51.15.100.13 (lb-backend-https)`);
    const plan = report.checks.find((c) => c.name === `target:${DEMO_CLUSTER}:plan`);
    expect(plan?.detail).toContain(`a reconcile would write nothing now; rollout lb-backend-https: keep 51.15.100.11 for now`);
  });
});
