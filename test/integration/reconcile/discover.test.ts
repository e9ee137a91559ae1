// The kops shorthand's addresses against kOps' own rule, with the real SDK against the emulator: kOps'
// GetServerIP (IPAM ListIPs resource_id + zonal + IPv4, newest first) gives the addresses the shorthand
// takes from the server list, without the IPAM call; the no-op path stays at 3 reads; a server with two
// routed IPv4 addresses gets the lowest and a warning naming kOps' different choice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedServer } from '../../../emulator';
import { kopsServerIp } from '../../../shared/core/kops-rule';
import { discoverPool } from '../../../shared/reconcile/discover';
import { reconcileTarget } from '../../../shared/reconcile/reconcile-target';
import type { World } from '../../support/world';
import { DEMO_CONTROL_PLANE_IPS, demoSeed, demoTarget, startWorld } from '../../support/world';

let world: World;

beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.stop();
});

describe('kops ipSource vs kOps GetServerIP', () => {
  it("each control plane's address is the one kOps reads from IPAM", async () => {
    world.emulator.loadSeed(demoSeed());
    const gateway = world.gateway();
    const target = demoTarget();
    const pool = await discoverPool(gateway, target);
    expect(pool.ips).toEqual(DEMO_CONTROL_PLANE_IPS);
    const ips = await gateway.listZonalIpv4(target.zone, pool.members.map((m) => m.serverId));
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
    expect(world.emulator.calls().map((c) => c.operation).sort()).toEqual(['ListBackends', 'ListLbs', 'ListServers']);
  });

  it('a control plane with two routed IPv4: the lowest, and a warning that kOps takes the newest', async () => {
    const seed = demoSeed();
    const servers = (seed.servers ?? []).map((s): SeedServer => (s.name === 'control-plane-fr-par-1-0' ? { ...s, publicIps: ['51.15.100.111', '51.15.100.11'] } : s));
    world.emulator.loadSeed({ ...seed, servers });
    const result = await reconcileTarget(demoTarget(), { dryRun: true }, { gateway: world.gateway(), waitBudgetMs: 0 });
    expect(result.pool?.ips).toEqual(DEMO_CONTROL_PLANE_IPS);
    expect(result.warnings).toContain(
      "server control-plane-fr-par-1-0 has 2 routed public IPv4 addresses (51.15.100.11, 51.15.100.111); using 51.15.100.11, the lowest. kOps' GetServerIP takes the most recently created one, so `kops update cluster` may write another",
    );
  });
});
