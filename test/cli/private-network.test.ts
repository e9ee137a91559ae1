// An ipam-private target whose LB is not attached to its servers' private network, seen through `lbsync plan`,
// `status` and `doctor`: each names the code and its hint before any event does, and nothing is written. Once the LB
// is attached (ready), the same commands plan the private addresses.
import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_PRIVATE_NETWORK_ID, demoSeedWith } from '../support/world';
import { demoControlPlaneTarget, runInProcess, useInProcessCli } from './support';

const TARGET = 'demo-private';
const OTHER_NETWORK = '3f1c2a9e-7d4b-4e8a-9c61-5b2d8e0f4a77';
const NOT_ATTACHED = `reading private networks of load-balancer api.demo.k8s.local: it is not attached to private network ${DEMO_PRIVATE_NETWORK_ID} (it is attached to ${OTHER_NETWORK} (ready)), so it cannot reach the servers' addresses there: nothing is written`;

const cli = useInProcessCli([demoControlPlaneTarget(TARGET, 'ipam-private')]);

beforeEach(() => {
  cli.emulator.loadSeed(demoSeedWith({ privateNetworks: [{ privateNetworkId: OTHER_NETWORK }] }));
  cli.emulator.resetCalls();
});

type Described = { code: string; message: string; hint?: string };

describe('the LB is not attached to the servers’ private network', () => {
  it('plan: the target fails with private_network_not_attached, message and hint; exit 1; text says the same', async () => {
    const json = await runInProcess(['plan', '-o', 'json'], cli.env);
    expect(json.code).toBe(1);
    const [target] = (JSON.parse(json.stdout) as { targets: { status: string; actions: unknown[]; error?: Described }[] }).targets;
    expect(target).toMatchObject({ status: 'failed', actions: [], error: { code: 'private_network_not_attached', message: NOT_ATTACHED } });
    expect(target?.error?.hint).toContain('Attach the LB to the network');
    const text = await runInProcess(['plan'], cli.env);
    expect(text.stdout).toContain(`error [private_network_not_attached] ${NOT_ATTACHED}`);
    expect(text.stdout).toContain('hint: The target takes its servers');
  });

  it('status: the same error and hint for the target; exit 1', async () => {
    const json = await runInProcess(['status', '--no-queue', '-o', 'json'], cli.env);
    expect(json.code).toBe(1);
    const [target] = (JSON.parse(json.stdout) as { targets: { error?: Described }[] }).targets;
    expect(target?.error).toMatchObject({ code: 'private_network_not_attached', message: NOT_ATTACHED });
    const text = await runInProcess(['status', '--no-queue'], cli.env);
    expect(text.stdout).toContain(`error [private_network_not_attached] ${NOT_ATTACHED}`);
  });

  it('doctor: a failed private-network line with the code, message and hint (and the plan line); exit 1', async () => {
    const run = await runInProcess(['doctor', '--no-queue', '-o', 'json'], cli.env);
    expect(run.code).toBe(1);
    const { checks } = JSON.parse(run.stdout) as { checks: { name: string; status: string; detail: string; hint?: string }[] };
    const line = checks.find((c) => c.name === `target:${TARGET}:private-network`);
    expect(line).toMatchObject({ status: 'fail', detail: `[private_network_not_attached] ${NOT_ATTACHED}` });
    expect(line?.hint).toContain('Attach the LB to the network');
    expect(checks.find((c) => c.name === `target:${TARGET}:plan`)).toMatchObject({ status: 'fail', detail: NOT_ATTACHED });
    expect(checks.find((c) => c.name === 'iam:lb-read')?.status).toBe('ok');
  });

  it('none of them writes anything', async () => {
    await runInProcess(['plan', '-o', 'json'], cli.env);
    await runInProcess(['status', '--no-queue', '-o', 'json'], cli.env);
    await runInProcess(['doctor', '--no-queue', '-o', 'json'], cli.env);
    expect(cli.emulator.calls().filter((c) => c.write)).toEqual([]);
  });
});

describe('once the LB is attached (ready)', () => {
  it('doctor’s line is ok, and plan would write the private addresses', async () => {
    cli.emulator.loadSeed(demoSeedWith({}));
    const run = await runInProcess(['doctor', '--no-queue', '-o', 'json'], cli.env);
    const { checks } = JSON.parse(run.stdout) as { checks: { name: string; status: string; detail: string }[] };
    expect(checks.find((c) => c.name === `target:${TARGET}:private-network`)).toEqual({
      name: `target:${TARGET}:private-network`,
      status: 'ok',
      detail: `api.demo.k8s.local is attached to private network ${DEMO_PRIVATE_NETWORK_ID} (ready): it reaches the pool's addresses there`,
    });
    const plan = await runInProcess(['plan', '-o', 'json'], cli.env);
    expect(plan.code).toBe(2);
    const [target] = (JSON.parse(plan.stdout) as { targets: { desiredPool: string[] }[] }).targets;
    expect(target?.desiredPool).toEqual(['10.0.0.11', '10.0.0.12', '10.0.0.13']);
  });
});
