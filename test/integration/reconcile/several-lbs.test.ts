/**
 * A target with several LBs (loadBalancers: a main LB in the servers' zone and a fallback in another zone of the
 * region), reconciled through the real SDK against the emulator: the servers are discovered once, each LB is
 * reconciled by the same rules in its own zone, and one LB's failure never stops the others. Judged by the emulator's
 * call log and state.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reconcileTarget } from '../../../shared/reconcile/reconcile-target';
import type { Target } from '../../../shared/schemas/target';
import type { World } from '../../support/world';
import {
  convergedTwoLbSeed,
  DEMO_CLUSTER,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  DEMO_LB_ID,
  DEMO_PRIVATE_NETWORK_ID,
  demoBackend,
  FALLBACK_LB_ID,
  FALLBACK_LB_NAME,
  poolOf,
  startWorld,
  twoLbSeed,
  twoLbTarget,
  wireAnswer,
} from '../../support/world';

let world: World;
const fastSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 20)));
/** The real clock, its waits cut short. */
const fastClock = { clock: { now: () => Date.now(), sleep: fastSleep } };
const MAIN = { name: `api.${DEMO_CLUSTER}`, zone: 'fr-par-1' };
const FALLBACK = { name: FALLBACK_LB_NAME, zone: 'fr-par-2' };
const PRIVATE_IPS = ['10.0.0.11', '10.0.0.12', '10.0.0.13'];

function reconcile(target: Target = twoLbTarget(), event: Parameters<typeof reconcileTarget>[1] = {}) {
  return reconcileTarget(target, event, { gateway: world.gateway(), waitBudgetMs: 3_000 }, fastClock);
}

const calls = () => world.emulator.calls();
const reads = () =>
  calls()
    .filter((c) => !c.write)
    .map((c) => c.operation)
    .sort();
const writesOn = (lbId: string) => calls().filter((c) => c.write && c.path.includes(lbId));

beforeAll(async () => {
  world = await startWorld({ instancePendingMs: 20 });
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => {
  world.emulator.clearFaults();
  world.emulator.resetCalls();
});

describe('several LBs sharing one pool', () => {
  it("creates the backend on each LB through its own zone's routes; the pool is the servers' of the target's zone, read once", async () => {
    world.emulator.loadSeed(twoLbSeed());
    const result = await reconcile();
    expect(result.status).toBe('applied');
    expect(result.lbs?.map((lb) => [lb.loadBalancer, lb.status, lb.lb?.id])).toEqual([
      [MAIN, 'applied', DEMO_LB_ID],
      [FALLBACK, 'applied', FALLBACK_LB_ID],
    ]);
    expect(poolOf(world.emulator, DEMO_LB_ID)).toEqual(DEMO_CONTROL_PLANE_IPS);
    expect(poolOf(world.emulator, FALLBACK_LB_ID)).toEqual(DEMO_CONTROL_PLANE_IPS);
    expect(writesOn(DEMO_LB_ID).map((c) => c.path)).toEqual([`/lb/v1/zones/fr-par-1/lbs/${DEMO_LB_ID}/backends`]);
    expect(writesOn(FALLBACK_LB_ID).map((c) => c.path)).toEqual([`/lb/v1/zones/fr-par-2/lbs/${FALLBACK_LB_ID}/backends`]);
    // The servers are the target's (fr-par-1), listed once for both LBs.
    expect(
      calls()
        .filter((c) => c.operation === 'ListServers')
        .map((c) => c.path),
    ).toEqual(['/instance/v1/zones/fr-par-1/servers']);
    expect(result.done.map((a) => a.kind)).toEqual(['CreateBackend', 'CreateBackend']);
  });

  it('in sync: the servers once, then two reads per LB (1 + 2N: 5 for two LBs, 7 for three), no write; named by id: GetLb for ListLbs', async () => {
    world.emulator.loadSeed(convergedTwoLbSeed());
    const result = await reconcile();
    expect(result).toMatchObject({ status: 'noop', planned: [], apiCalls: { reads: 5, writes: 0 } });
    expect(reads()).toEqual(['ListBackends', 'ListBackends', 'ListLbs', 'ListLbs', 'ListServers']);
    world.emulator.resetCalls();
    const byId = twoLbTarget({
      loadBalancers: [
        { id: DEMO_LB_ID, zone: 'fr-par-1' },
        { id: FALLBACK_LB_ID, zone: 'fr-par-2' },
      ],
    });
    expect((await reconcile(byId)).status).toBe('noop');
    expect(reads()).toEqual(['GetLb', 'GetLb', 'ListBackends', 'ListBackends', 'ListServers']);
    expect(calls().find((c) => c.operation === 'GetLb' && c.path.includes(FALLBACK_LB_ID))?.path).toBe(
      `/lb/v1/zones/fr-par-2/lbs/${FALLBACK_LB_ID}`,
    );
    // N LBs: 1 + 2N reads (a third LB, in the main LB's zone: 7).
    const seed = convergedTwoLbSeed();
    seed.lbs?.push({ name: 'api-third.demo.k8s.local', zone: 'fr-par-1', backends: [demoBackend()] });
    world.emulator.loadSeed(seed);
    world.emulator.resetCalls();
    const three = twoLbTarget({ loadBalancers: [MAIN, FALLBACK, { name: 'api-third.demo.k8s.local', zone: 'fr-par-1' }] });
    expect(await reconcile(three)).toMatchObject({ status: 'noop', apiCalls: { reads: 7, writes: 0 } });
    expect(reads().filter((op) => op === 'ListServers')).toHaveLength(1);
  });

  it("ipam-private: the servers and IPAM once, each LB's attachment to the private network on its own (8 reads for two)", async () => {
    const attached = [{ privateNetworkId: DEMO_PRIVATE_NETWORK_ID }];
    world.emulator.loadSeed(
      twoLbSeed({ main: [demoBackend(PRIVATE_IPS)], fallback: [demoBackend(PRIVATE_IPS)], fallbackNetworks: attached }),
    );
    const target = twoLbTarget({ servers: { tags: twoLbTarget().servers.tags, ipSource: 'ipam-private' } });
    const result = await reconcile(target);
    expect(result).toMatchObject({ status: 'noop', apiCalls: { reads: 8, writes: 0 } });
    expect(reads()).toEqual([
      'ListBackends',
      'ListBackends',
      'ListIPs',
      'ListLbPrivateNetworks',
      'ListLbPrivateNetworks',
      'ListLbs',
      'ListLbs',
      'ListServers',
    ]);
    // The fallback not attached: it alone is refused (permanent); the main LB is still reconciled.
    world.emulator.loadSeed(twoLbSeed({ main: [demoBackend(PRIVATE_IPS)], fallback: [] }));
    world.emulator.replaceServer(DEMO_CP0_ID, {
      name: 'control-plane-fr-par-1-0b',
      zone: 'fr-par-1',
      tags: target.servers.tags,
      publicIps: ['51.15.100.31'],
      privateNics: [{ privateNetworkId: DEMO_PRIVATE_NETWORK_ID, ipamAddresses: ['10.0.0.31/22'] }],
    });
    const refused = await reconcile(target);
    expect(refused.lbs?.map((lb) => [lb.status, lb.error?.code])).toEqual([
      ['applied', undefined],
      ['failed', 'private_network_not_attached'],
    ]);
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'private_network_not_attached', errorClass: 'permanent' } });
    expect(poolOf(world.emulator, DEMO_LB_ID)).toEqual(['10.0.0.12', '10.0.0.13', '10.0.0.31']);
    expect(writesOn(FALLBACK_LB_ID)).toEqual([]);
  });

  it('the fallback not found: the main LB is still written; the target fails permanently, naming the fallback', async () => {
    world.emulator.loadSeed(twoLbSeed({ main: [demoBackend()] }));
    world.emulator.replaceServer(DEMO_CP0_ID, {
      name: 'control-plane-fr-par-1-0b',
      zone: 'fr-par-1',
      tags: twoLbTarget().servers.tags,
      publicIps: ['51.15.100.31'],
    });
    const target = twoLbTarget({ loadBalancers: [MAIN, { name: 'api-gone.demo.k8s.local', zone: 'fr-par-2' }] });
    const result = await reconcile(target);
    expect(poolOf(world.emulator, DEMO_LB_ID)).toEqual(['51.15.100.12', '51.15.100.13', '51.15.100.31']);
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'lb_not_found', errorClass: 'permanent', lb: { name: 'api-gone.demo.k8s.local' } });
    expect(result.lbs?.map((lb) => [lb.status, lb.error?.code])).toEqual([
      ['applied', undefined],
      ['failed', 'lb_not_found'],
    ]);
    expect(result.done.map((a) => a.kind)).toEqual(['SetBackendServers']);
  });

  it('the main LB busy: the fallback is still written, and the target fails transiently; a permanent failure elsewhere wins', async () => {
    world.emulator.loadSeed(twoLbSeed());
    world.emulator.setLbStatus(DEMO_LB_ID, 'pending');
    const result = await reconcile();
    expect(result.lbs?.map((lb) => [lb.status, lb.error?.code])).toEqual([
      ['failed', 'lb_transient_state'],
      ['applied', undefined],
    ]);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'lb_transient_state', errorClass: 'transient' } });
    expect(poolOf(world.emulator, FALLBACK_LB_ID)).toEqual(DEMO_CONTROL_PLANE_IPS);
    expect(writesOn(DEMO_LB_ID)).toEqual([]);
    // Busy main LB, fallback gone: the event is dead-lettered for the fallback (a human fixes it), not retried.
    const gone = await reconcile(twoLbTarget({ loadBalancers: [MAIN, { name: 'api-gone.demo.k8s.local', zone: 'fr-par-2' }] }));
    expect(gone.error).toMatchObject({ code: 'lb_not_found', errorClass: 'permanent' });
  });

  it("each LB is found in its own zone: a fallback answered in another zone (the servers' zone) is refused, never written to", async () => {
    world.emulator.loadSeed(convergedTwoLbSeed());
    const path = `/lb/v1/zones/fr-par-2/lbs?name=${FALLBACK_LB_NAME}`;
    const answer = await wireAnswer<{ lbs: Record<string, unknown>[] }>(world.emulator, path);
    // The fallback as if it lived in the servers' zone: in the target's zone, but not in the zone asked.
    const moved = { ...answer, lbs: answer.lbs.map((lb) => ({ ...lb, zone: 'fr-par-1' })) };
    world.emulator.addFault({ operation: 'ListLbs', pathIncludes: '/zones/fr-par-2/', status: 200, body: moved });
    const result = await reconcile();
    expect(result.lbs?.[0]).toMatchObject({ status: 'noop' });
    expect(result.lbs?.[1]).toMatchObject({ status: 'failed', error: { code: 'lb_not_found' } });
    expect(result.lbs?.[1]?.error?.message).toContain('which is in zone fr-par-1, not fr-par-2');
    expect(writesOn(FALLBACK_LB_ID)).toEqual([]);
    // By id, GetLb answering the fallback in another zone: lb_answer_mismatch.
    const wire = await wireAnswer(world.emulator, `/lb/v1/zones/fr-par-2/lbs/${FALLBACK_LB_ID}`);
    world.emulator.addFault({ operation: 'GetLb', pathIncludes: FALLBACK_LB_ID, status: 200, body: { ...wire, zone: 'fr-par-1' } });
    const byId = await reconcile(twoLbTarget({ loadBalancers: [MAIN, { id: FALLBACK_LB_ID, zone: 'fr-par-2' }] }));
    expect(byId.lbs?.[1]?.error).toMatchObject({ code: 'lb_answer_mismatch', lb: { id: FALLBACK_LB_ID } });
  });

  it('one LB named twice (by name and by id): reconciled once, under the first; the second entry is invalid_config', async () => {
    world.emulator.loadSeed(twoLbSeed({ main: [demoBackend(DEMO_CONTROL_PLANE_IPS.slice(1))] }));
    const result = await reconcile(twoLbTarget({ loadBalancers: [MAIN, { id: DEMO_LB_ID, zone: 'fr-par-1' }] }));
    expect(result.lbs?.map((lb) => [lb.status, lb.error?.code])).toEqual([
      ['applied', undefined],
      ['failed', 'invalid_config'],
    ]);
    expect(result.lbs?.[1]?.error?.message).toContain(`api.${DEMO_CLUSTER} (fr-par-1) and as ${DEMO_LB_ID} (fr-par-1)`);
    expect(world.writes()).toEqual(['SetBackendServers']);
  });

  it("the pool's warnings are told once for the target, each LB's own named by its LB", async () => {
    world.emulator.loadSeed(convergedTwoLbSeed());
    world.emulator.upsertServer({ name: 'control-plane-no-ip', zone: 'fr-par-1', tags: twoLbTarget().servers.tags, publicIps: [] });
    const result = await reconcile();
    expect(result.status).toBe('noop');
    const leftOut = result.warnings.filter((w) => w.includes('control-plane-no-ip'));
    expect(leftOut).toHaveLength(1);
    expect(leftOut[0]).not.toMatch(/^load-balancer /);
  });
});
