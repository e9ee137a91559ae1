// Doctor's permission ledger over the real gateway and the emulator: the product's own reads (findLb, discoverPool,
// observeBackends, the health read) go through it, each request recorded under the permission it needs and named as
// the emulator's call log names it; a 403 is a refusal, a 400 still an answer, a 404 proves nothing; a 401 stops the
// key; and no write leaves it (the call log has none).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KeyRefused, unlessKeyRefused } from '../../../cli/doctor/key-refused';
import { PermissionLedger, READ_PERMISSIONS } from '../../../cli/doctor/permission-ledger';
import { WRITE_CALLS, type ScalewayGateway } from '../../../shared/adapters/scaleway';
import { kopsMessage } from '../../../shared/errors/kops-messages';
import { discoverPool } from '../../../shared/reconcile/discover';
import { findLb, observeBackends } from '../../../shared/reconcile/observe';
import { readBackendHealth } from '../../../shared/reconcile/stage-removals';
import { convergedDemoSeed, DEMO_CONTROL_PLANE_IDS, demoTarget, startWorld, type World } from '../../support/world';

let world: World;

beforeAll(async () => {
  world = await startWorld({ seed: convergedDemoSeed() });
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => {
  world.emulator.clearFaults();
  world.emulator.resetCalls();
});

const sentOperations = () => world.emulator.calls().map((call) => call.operation);

describe("doctor's permission ledger", () => {
  it('knows every call of the gateway: each read with its permission, the others are the writes', () => {
    const calls = Object.keys(world.gateway()).filter((key) => key !== 'projectId' && key !== 'calls');
    expect([...Object.keys(READ_PERMISSIONS), ...WRITE_CALLS].sort()).toEqual(calls.sort());
  });

  it("records each request the product's reads make under its permission, named as the call log names it; all answered", async () => {
    const ledger = new PermissionLedger();
    const gateway = ledger.watch(world.gateway());
    const target = demoTarget();
    const { lb } = await findLb(gateway, target);
    await gateway.getLb(target.zone, lb.id);
    await gateway.listLbPrivateNetworks(target.zone, lb.id);
    await discoverPool(gateway, target);
    const { byName } = await observeBackends(gateway, target, lb);
    await gateway.listFrontends(target.zone, lb.id);
    for (const backend of byName.values()) await readBackendHealth(gateway, target, lb, backend.id);
    await gateway.listZonalIpv4(target.zone, DEMO_CONTROL_PLANE_IDS);
    await gateway.listPrivateNicIps('fr-par', ['0b3c1e52-7d6a-4f0e-9c21-5a8b7e6d4c3f']);

    expect(ledger.calls().map((call) => call.operation)).toEqual(sentOperations());
    expect(new Set(sentOperations())).toEqual(new Set(Object.values(READ_PERMISSIONS).map((read) => read.operation)));
    expect(ledger.calls().filter((call) => call.outcome !== 'answered')).toEqual([]);
    expect(ledger.calls().map((call) => `${call.operation} ${call.permission} ${call.where}`)).toEqual([
      'ListLbs iam:lb-read fr-par-1',
      'GetLb iam:lb-read fr-par-1',
      'ListLbPrivateNetworks iam:lb-read fr-par-1',
      'ListServers iam:instance-servers fr-par-1',
      'ListBackends iam:lb-backends fr-par-1',
      'ListFrontends iam:lb-backends fr-par-1',
      'ListBackendStats iam:lb-backends fr-par-1',
      'ListIPs iam:ipam-read fr-par',
      'ListIPs iam:ipam-read fr-par',
    ]);
    expect(ledger.anyAnswered()).toBe(true);
    expect(ledger.checks().map((check) => `${check.status} ${check.name}: ${check.detail}`)).toEqual([
      'ok iam:lb-read: ListLbs / GetLb (and ListLbPrivateNetworks for ipam-private) answered (fr-par-1)',
      'ok iam:lb-backends: ListBackends / ListBackendStats answered (fr-par-1)',
      'ok iam:instance-servers: ListServers by tags answered (fr-par-1)',
      'ok iam:ipam-read: IPAM ListIPs answered (fr-par)',
    ]);
  });

  it('a 403 is the permission refused, a 400 still an answer, a 404 proves nothing, a call not made is not tried; the steps tell their failures as ever', async () => {
    world.emulator.addFault({ operation: 'ListIPs', status: 403, count: -1 });
    world.emulator.addFault({ operation: 'ListBackends', status: 400, count: -1 });
    world.emulator.addFault({ operation: 'ListServers', status: 404, count: -1 });
    const ledger = new PermissionLedger();
    const gateway = ledger.watch(world.gateway());
    const target = demoTarget();
    const lb = { id: '5a0e7c1d-2b3f-4a6e-8d9c-1e2f3a4b5c6d', name: 'api.demo.k8s.local' };

    await expect(discoverPool(gateway, target)).rejects.toThrow(kopsMessage.listServers());
    await expect(gateway.listBackends(target.zone, lb.id)).rejects.toMatchObject({ status: 400 });
    await expect(gateway.listZonalIpv4(target.zone, [])).rejects.toMatchObject({ status: 403 });

    expect(ledger.calls().map((call) => `${call.operation} ${call.outcome}`)).toEqual([
      'ListServers failed',
      'ListBackends answered',
      'ListIPs refused',
    ]);
    expect(ledger.anyAnswered()).toBe(true);
    const [lbRead, backends, servers, ipam] = ledger.checks(':TEAM_B_ACCESS_KEY');
    expect(lbRead).toMatchObject({ name: 'iam:lb-read:TEAM_B_ACCESS_KEY', status: 'warn', detail: expect.stringMatching(/not tried/) });
    expect(backends).toMatchObject({ status: 'ok', detail: 'ListBackends / ListBackendStats answered (fr-par-1)' });
    expect(servers).toMatchObject({ status: 'warn', detail: expect.stringMatching(/not proven: tried, but no read got an answer/) });
    expect(ipam).toMatchObject({
      name: 'iam:ipam-read:TEAM_B_ACCESS_KEY',
      status: 'fail',
      detail: expect.stringMatching(/^IPAM ListIPs refused \(403\): ListIPs in fr-par: /),
      hint: 'give the key of TEAM_B_ACCESS_KEY IPAMReadOnly on the project (docs/deploy.md, step 2)',
    });
  });

  it("a 401 stops the key's checks (KeyRefused), told in the step's words; the call proves nothing", async () => {
    world.emulator.addFault({ operation: 'ListLbs', status: 401 });
    const ledger = new PermissionLedger();
    const refused = await findLb(ledger.watch(world.gateway()), demoTarget()).catch((error: unknown) => {
      try {
        return unlessKeyRefused(error);
      } catch (stop) {
        return stop;
      }
    });
    expect(refused).toBeInstanceOf(KeyRefused);
    expect((refused as KeyRefused).error.message).toMatch(/^finding load-balancer api\.demo\.k8s\.local: /);
    expect(ledger.anyAnswered()).toBe(false);
  });

  it('refuses every write before it is sent: the call log has none, the ledger records none', async () => {
    const ledger = new PermissionLedger();
    const gateway = ledger.watch(world.gateway()) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const call of WRITE_CALLS)
      await expect(gateway[call]?.('fr-par-1', 'b1d2c3e4-0000-4000-8000-000000000001', ['51.15.100.11'])).rejects.toThrow(
        `lbsync doctor never writes: ${call} was not sent`,
      );
    expect(world.writes()).toEqual([]);
    expect(sentOperations()).toEqual([]);
    expect(ledger.calls()).toEqual([]);
  });

  it('keeps the gateway as the steps see it: its project and its call count', () => {
    const real: ScalewayGateway = world.gateway(5_000, { projectId: '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c' });
    const watched = new PermissionLedger().watch(real);
    expect(watched.projectId).toBe(real.projectId);
    expect(watched.calls()).toEqual(real.calls());
  });
});
