// Discovering the desired pool (shared/reconcile/discover.ts) with the real SDK against the emulator: the servers
// carrying all the target's tags, one address each by the target's ipSource, what is left out and why.
// And the kops shorthand's addresses against kOps' own rule: kOps' GetServerIP (IPAM ListIPs resource_id + zonal +
// IPv4, newest first) gives the addresses the shorthand takes from the server list, without the IPAM call; the
// no-op path stays at 3 reads; a server with two routed IPv4 addresses gets the lowest and a warning naming kOps'
// different choice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedServer } from '../../../emulator';
import { kopsServerIp } from '../../../shared/core/kops-rule';
import { discoverPool } from '../../../shared/reconcile/discover';
import { reconcileTarget } from '../../../shared/reconcile/reconcile-target';
import type { World } from '../../support/world';
import { DEMO_CLUSTER, DEMO_CONTROL_PLANE_IPS, DEMO_CP0_ID, demoSeed, demoTarget, startWorld } from '../../support/world';

let world: World;

beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.stop();
});

const TAGS = [`noprefix=kops.k8s.io/cluster=${DEMO_CLUSTER}`, 'noprefix=kops.k8s.io/role=ControlPlane'];
const operations = () => world.emulator.calls().map((c) => c.operation);

describe('discoverPool', () => {
  it('public: one address per server carrying all the tags (workers carry the cluster tag only), one ListServers', async () => {
    world.emulator.loadSeed(demoSeed());
    world.emulator.resetCalls();
    const pool = await discoverPool(world.gateway(), demoTarget({ servers: { tags: TAGS, ipSource: 'public' } }));
    expect(pool).toMatchObject({ ips: DEMO_CONTROL_PLANE_IPS, source: 'tags', serverCount: 3, skipped: [], several: [], leaving: [] });
    expect(pool.members.map((m) => [m.server, m.ip]).sort()).toEqual([
      ['control-plane-fr-par-1-0', '51.15.100.11'],
      ['control-plane-fr-par-1-1', '51.15.100.12'],
      ['control-plane-fr-par-1-2', '51.15.100.13'],
    ]);
    expect(operations()).toEqual(['ListServers']);
  });

  it('a stopping server is left out of the pool, and named as leaving with its address', async () => {
    world.emulator.loadSeed(demoSeed());
    world.emulator.upsertServer({
      id: DEMO_CP0_ID,
      name: 'control-plane-fr-par-1-0',
      zone: 'fr-par-1',
      state: 'stopping',
      publicIps: ['51.15.100.11'],
      tags: TAGS,
    });
    const pool = await discoverPool(world.gateway(), demoTarget());
    expect(pool.ips).toEqual(['51.15.100.12', '51.15.100.13']);
    expect(pool.skipped).toEqual([{ server: 'control-plane-fr-par-1-0', reason: 'state is stopping' }]);
    expect(pool.leaving).toEqual([{ server: 'control-plane-fr-par-1-0', state: 'stopping', ips: ['51.15.100.11'] }]);
  });

  it('ipam-private: the private-NIC addresses from IPAM, one ListIPs call for all servers, masks stripped', async () => {
    world.emulator.loadSeed(demoSeed());
    world.emulator.resetCalls();
    const pool = await discoverPool(world.gateway(), demoTarget({ servers: { tags: TAGS, ipSource: 'ipam-private' } }));
    expect(pool.ips).toEqual(['10.0.0.11', '10.0.0.12', '10.0.0.13']);
    expect(operations().sort()).toEqual(['ListIPs', 'ListServers']);
  });

  it("a failed server listing is told in kOps' words, with the LB the target names", async () => {
    world.emulator.loadSeed(demoSeed());
    world.emulator.addFault({ operation: 'ListServers', status: 500, body: { message: 'internal error', type: 'internal' } });
    const error = await discoverPool(world.gateway(), demoTarget()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'api_unavailable',
      lb: { name: `api.${DEMO_CLUSTER}` },
      message: expect.stringMatching(/^getting cluster servers for load-balancer's back-end: /),
    });
    world.emulator.clearFaults();
  });

  it("a failed IPAM read is told in kOps' words for the servers' addresses", async () => {
    world.emulator.loadSeed(demoSeed());
    world.emulator.addFault({ operation: 'ListIPs', status: 503, body: { message: 'service unavailable' } });
    const error = await discoverPool(world.gateway(), demoTarget({ servers: { tags: TAGS, ipSource: 'ipam-private' } })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'api_unavailable',
      message: expect.stringMatching(/^getting IP of server (control-plane-fr-par-1-\d,?){3} for load-balancer's back-end: /),
    });
    world.emulator.clearFaults();
  });
});

describe('kops ipSource vs kOps GetServerIP', () => {
  it("each control plane's address is the one kOps reads from IPAM", async () => {
    world.emulator.loadSeed(demoSeed());
    const gateway = world.gateway();
    const target = demoTarget();
    const pool = await discoverPool(gateway, target);
    expect(pool.ips).toEqual(DEMO_CONTROL_PLANE_IPS);
    const ips = await gateway.listZonalIpv4(
      target.zone,
      pool.members.map((m) => m.serverId),
    );
    for (const member of pool.members) expect(kopsServerIp(member.serverId, target.zone, ips)).toBe(member.ip);
    // The private-NIC addresses the demo servers also have (10.0.0.x) are IPAM addresses too, but not zonal.
    expect(ips.map((ip) => ip.address).some((a) => a.startsWith('10.'))).toBe(false);
  });

  it('the no-op path stays at 3 reads and no IPAM call', async () => {
    world.emulator.loadSeed(demoSeed());
    await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 5_000 });
    world.emulator.resetCalls();
    const result = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 5_000 });
    expect(result.status).toBe('noop');
    expect(
      world.emulator
        .calls()
        .map((c) => c.operation)
        .sort(),
    ).toEqual(['ListBackends', 'ListLbs', 'ListServers']);
  });

  it('a control plane with two routed IPv4: the lowest, and a warning that kOps takes the newest', async () => {
    const seed = demoSeed();
    const servers = (seed.servers ?? []).map(
      (s): SeedServer => (s.name === 'control-plane-fr-par-1-0' ? { ...s, publicIps: ['51.15.100.111', '51.15.100.11'] } : s),
    );
    world.emulator.loadSeed({ ...seed, servers });
    const result = await reconcileTarget(demoTarget(), { dryRun: true }, { gateway: world.gateway(), waitBudgetMs: 0 });
    expect(result.pool?.ips).toEqual(DEMO_CONTROL_PLANE_IPS);
    expect(result.warnings).toContain(
      "server control-plane-fr-par-1-0 has 2 routed public IPv4 addresses (51.15.100.11, 51.15.100.111); using 51.15.100.11, the lowest. kOps' GetServerIP takes the most recently created one, so `kops update cluster` may write another",
    );
  });
});
