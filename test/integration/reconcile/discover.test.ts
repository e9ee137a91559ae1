// Discovering the desired pool (shared/reconcile/discover.ts) with the real SDK against the emulator: the servers
// carrying all the target's tags, one address each by the target's ipSource, what is left out and why.
// And the kops shorthand's addresses against kOps' own rule: kOps' GetServerIP (IPAM ListIPs resource_id + zonal +
// IPv4, newest first) gives the addresses the shorthand takes from the server list, without the IPAM call; the
// no-op path stays at 3 reads; a server with two routed IPv4 addresses gets the lowest and a warning naming kOps'
// different choice.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SeedServer } from '../../../emulator';
import { kopsServerIp } from '../../../shared/core/kops-rule';
import { discoverPool } from '../../../shared/reconcile/discover';
import { reconcileTarget } from '../../../shared/reconcile/reconcile-target';
import type { World } from '../../support/world';
import {
  DEMO_CLUSTER,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  demoBackend,
  demoSeed,
  demoSeedWith,
  demoTarget,
  FAKE_SECRET_KEY,
  startWorld,
  wireAnswer,
} from '../../support/world';

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

// What the API answers is checked on our side (shared/core/discovery-check.ts). Each answer below is the emulator's
// own, in its real wire shape, with one thing the request did not ask for added (a fault answering 200 with it):
// the real SDK reads it, and nothing it adds may reach a pool.
describe('answers checked on our side', () => {
  const OTHER_PROJECT = '7c499ed1-0331-4425-83aa-29b5824753e4';

  /** The emulator's own answer to a GET, as the API would send it. */
  async function answerTo(path: string): Promise<Record<string, unknown>> {
    const response = await fetch(`${world.emulator.url}${path}`, { headers: { 'X-Auth-Token': FAKE_SECRET_KEY } });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  /** The answer to the demo target's ListServers, with these copies of a demo control plane, changed, added. */
  async function serversAnswerWith(...changes: Record<string, unknown>[]) {
    const query = new URLSearchParams({ tags: TAGS.join(',') });
    const { servers } = (await answerTo(`/instance/v1/zones/fr-par-1/servers?${query}`)) as { servers: Record<string, unknown>[] };
    const template = servers.find((s) => s.id === DEMO_CP0_ID) as Record<string, unknown>;
    const added = changes.map((change, i) => ({ ...template, id: `00000000-0000-4000-8000-00000000f00${i}`, ...change }));
    const all = [...servers, ...added];
    return { status: 200, body: { servers: all }, headers: { 'X-Total-Count': String(all.length) } };
  }

  /** A routed public IPv4 as the Instance API describes it (its IPAM id set: every ipSource takes it), attached. */
  const publicIp = (address: string, state = 'attached') => {
    const id = `00000000-0000-4000-8000-${address
      .split('.')
      .map((o) => o.padStart(3, '0'))
      .join('')}`;
    return [{ id, address, family: 'inet', provisioning_mode: 'dhcp', ipam_id: id, state }];
  };

  it('a server of another zone, of another project, or without every tag: left out and named, once', async () => {
    world.emulator.loadSeed(demoSeed());
    world.emulator.addFault({
      operation: 'ListServers',
      ...(await serversAnswerWith(
        { name: 'far-cp', zone: 'nl-ams-1', public_ips: publicIp('51.158.1.1') },
        { name: 'foreign-cp', project: OTHER_PROJECT, public_ips: publicIp('51.15.200.1') },
        { name: 'worker', tags: [TAGS[0]], public_ips: publicIp('51.15.200.2') },
      )),
    });
    world.emulator.resetHistory();
    const gateway = world.gateway(5_000, { projectId: demoSeed().projectId as string });
    const result = await reconcileTarget(demoTarget(), {}, { gateway, waitBudgetMs: 5_000 });
    expect(result.status).toBe('applied');
    expect(world.emulator.history().flatMap((w) => w.pool)).toEqual(DEMO_CONTROL_PLANE_IPS);
    const reported = result.warnings.filter((w) => w.startsWith('[discovery_filter_mismatch] '));
    expect(reported).toHaveLength(1);
    expect(reported[0]).toContain('server far-cp (00000000-0000-4000-8000-00000000f000): is in zone nl-ams-1, not fr-par-1');
    expect(reported[0]).toContain(`server foreign-cp (00000000-0000-4000-8000-00000000f001): is in project ${OTHER_PROJECT}, not`);
    expect(reported[0]).toContain(
      'server worker (00000000-0000-4000-8000-00000000f002): does not carry noprefix=kops.k8s.io/role=ControlPlane',
    );
  });

  it('the project is checked only when one is known (SCW_DEFAULT_PROJECT_ID): without it, a server of any project counts', async () => {
    world.emulator.loadSeed(demoSeed());
    const answer = await serversAnswerWith({ name: 'foreign-cp', project: OTHER_PROJECT, public_ips: publicIp('51.15.200.1') });
    world.emulator.addFault({ operation: 'ListServers', ...answer });
    const pool = await discoverPool(world.gateway(), demoTarget({ servers: { tags: TAGS, ipSource: 'public' } }));
    expect(pool.ips).toEqual([...DEMO_CONTROL_PLANE_IPS, '51.15.200.1']);
    expect(pool.leftOut).toEqual([]);
  });

  it('ipam-private: an IPAM address of a resource nobody asked about, or IPv6, is left out and named', async () => {
    world.emulator.loadSeed(demoSeed());
    const { ips } = (await answerTo('/ipam/v1/regions/fr-par/ips?resource_type=instance_private_nic&is_ipv6=false')) as {
      ips: Record<string, unknown>[];
    };
    const ours = ips.filter((ip) => String(ip.address).startsWith('10.0.0.1'));
    const template = ours[0] as Record<string, unknown> & { resource: Record<string, unknown> };
    const strangers = [
      {
        ...template,
        id: '00000000-0000-4000-8000-00000000e001',
        address: '10.1.101.10/22',
        resource: { ...template.resource, id: '00000000-0000-4000-8000-00000000e0ff' },
      },
      { ...template, id: '00000000-0000-4000-8000-00000000e002', address: 'fd00:0:0:1::5/64', is_ipv6: true },
    ];
    world.emulator.addFault({ operation: 'ListIPs', status: 200, body: { total_count: ours.length + 2, ips: [...ours, ...strangers] } });
    const result = await reconcileTarget(
      demoTarget({ servers: { tags: TAGS, ipSource: 'ipam-private' } }),
      { dryRun: true },
      {
        gateway: world.gateway(),
        waitBudgetMs: 0,
      },
    );
    expect(result.pool?.ips).toEqual(['10.0.0.11', '10.0.0.12', '10.0.0.13']);
    const reported = result.warnings.filter((w) => w.startsWith('[discovery_filter_mismatch] '));
    expect(reported).toHaveLength(1);
    expect(reported[0]).toContain(
      'IPAM address 10.1.101.10/22: belongs to instance_private_nic 00000000-0000-4000-8000-00000000e0ff, which was not asked about',
    );
    expect(reported[0]).toContain('IPAM address fd00:0:0:1::5/64: is IPv6, and IPv4 was asked for');
  });

  it('a server address that is not unicast IPv4 never reaches a pool: left out and named under unusable_address', async () => {
    world.emulator.loadSeed(demoSeed());
    world.emulator.upsertServer({ name: 'control-plane-fr-par-1-3', zone: 'fr-par-1', tags: TAGS, publicIps: ['127.0.0.1'] });
    world.emulator.upsertServer({
      name: 'control-plane-fr-par-1-4',
      zone: 'fr-par-1',
      tags: TAGS,
      publicIps: ['224.0.0.9', '51.15.100.14'],
    });
    world.emulator.resetHistory();
    const result = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 5_000 });
    expect(result.status).toBe('applied');
    expect(world.emulator.history().flatMap((w) => w.pool)).toEqual([...DEMO_CONTROL_PLANE_IPS, '51.15.100.14']);
    const reported = result.warnings.filter((w) => w.startsWith('[unusable_address] left out of the pool: '));
    expect(reported).toHaveLength(1);
    expect(reported[0]).toContain('127.0.0.1 of server control-plane-fr-par-1-3 is a loopback address, never a server to send traffic to');
    expect(reported[0]).toContain('224.0.0.9 of server control-plane-fr-par-1-4 is a multicast address, never a server to send traffic to');
  });
});

// Answers that still steered a pool (issue 24): each is the emulator's own ListServers answer, changed the way
// no recording shows the API answering, served back with a fault. Judged by the emulator's pool history.
describe('server answers that must not steer a pool', () => {
  const CP0 = 'control-plane-fr-par-1-0';
  const query = new URLSearchParams({ tags: TAGS.join(',') });
  /** The demo target's ListServers answer, changed, as a fault answering every ListServers with it. */
  async function serveServers(change: (servers: Record<string, unknown>[]) => Record<string, unknown>[], total?: number) {
    const { servers } = await wireAnswer<{ servers: Record<string, unknown>[] }>(
      world.emulator,
      `/instance/v1/zones/fr-par-1/servers?${query}`,
    );
    const changed = change(servers);
    world.emulator.addFault({
      operation: 'ListServers',
      status: 200,
      body: { servers: changed },
      headers: { 'X-Total-Count': String(total ?? changed.length) },
      count: -1,
    });
  }
  const cp0 = (servers: Record<string, unknown>[]) => servers.find((s) => s.id === DEMO_CP0_ID) as Record<string, unknown>;
  const publicIpOf = (server: Record<string, unknown>, address: string, state: string) => ({
    ...(server.public_ips as Record<string, unknown>[])[0],
    id: `00000000-0000-4000-8000-0000000${address.replaceAll('.', '').padStart(5, '0')}`,
    address,
    state,
  });
  const reconcile = () => reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 5_000 });
  const pools = () => world.emulator.history().map((w) => w.pool);

  beforeEach(() => {
    world.emulator.loadSeed(demoSeed());
    world.emulator.clearFaults();
    world.emulator.clearForcedHealth();
    world.emulator.resetHistory();
  });

  it('one server listed twice with different addresses: left out and named, never both addresses in the pool', async () => {
    await serveServers((servers) => [...servers, { ...cp0(servers), public_ips: [publicIpOf(cp0(servers), '51.15.100.99', 'attached')] }]);
    const result = await reconcile();
    expect(result.status).toBe('applied');
    expect(pools()).toEqual([['51.15.100.12', '51.15.100.13']]);
    expect(result.warnings.filter((w) => w.startsWith('[contradictory_answer] '))).toEqual([
      `[contradictory_answer] the API contradicted itself about 1 server(s), left out of the pool: server ${CP0} (${DEMO_CP0_ID}) is listed 2 times, with different public IPv4 [51.15.100.11] and [51.15.100.99]; routed IPv4 [51.15.100.11] and [51.15.100.99]; public IP states {"51.15.100.11":"attached"} and {"51.15.100.99":"attached"}`,
    ]);
  });

  it('one server listed twice alike (a listing whose pages shifted) is one server: no warning', async () => {
    await serveServers((servers) => [...servers, cp0(servers)]);
    const result = await reconcile();
    expect(pools()).toEqual([DEMO_CONTROL_PLANE_IPS]);
    expect(result.warnings.filter((w) => w.startsWith('[contradictory_answer] '))).toEqual([]);
  });

  it('a detached public IP is no candidate, though it is the lowest: the attached one is used, the other named', async () => {
    await serveServers((servers) =>
      servers.map((s) =>
        s.id === DEMO_CP0_ID ? { ...s, public_ips: [publicIpOf(s, '51.15.100.5', 'detached'), ...(s.public_ips as unknown[])] } : s,
      ),
    );
    const result = await reconcile();
    expect(pools()).toEqual([DEMO_CONTROL_PLANE_IPS]);
    expect(result.warnings).toContain(
      `[unusable_address] left out of the pool: 51.15.100.5 of server ${CP0} is detached, not attached to it`,
    );
    expect(result.warnings.filter((w) => w.includes('routed public IPv4 addresses'))).toEqual([]);
  });

  it('an inflated X-Total-Count (3 servers, 3000 announced): one ListServers, and the no-op stays 3 reads', async () => {
    await reconcile();
    await serveServers((servers) => servers, 3000);
    world.emulator.resetCalls();
    const result = await reconcile();
    expect(result.status).toBe('noop');
    expect(operations().sort()).toEqual(['ListBackends', 'ListLbs', 'ListServers']);
  });

  describe('a locked server takes no new traffic, and leaves a pool as a serving member does', () => {
    const cp0Seed = () => (demoSeed().servers ?? []).find((s) => s.id === DEMO_CP0_ID) as SeedServer;

    it('never added: the pool of the two others is in sync, the locked one named', async () => {
      world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS.slice(1))] }));
      world.emulator.upsertServer({ ...cp0Seed(), state: 'locked' });
      const result = await reconcile();
      expect(result.status).toBe('noop');
      expect(result.warnings).toContain(
        `server ${CP0} left out of the pool: state is locked (a lock only Scaleway support lifts): never added; in a pool it leaves once the other members pass their health checks`,
      );
    });

    it('in the pool and still passing: it stays while another member fails its check, and leaves once the others pass', async () => {
      world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend()] }));
      world.emulator.upsertServer({ ...cp0Seed(), state: 'locked' });
      // Whether a locked server still serves is the LB's to say (the emulator fails any server not running): here it does.
      world.emulator.forceHealth('51.15.100.11', 'passed');
      world.emulator.forceHealth('51.15.100.12', 'failed');
      world.emulator.resetHistory();
      const held = await reconcile();
      expect(held.error?.code).toBe('removal_deferred');
      expect(pools()).toEqual([]);
      world.emulator.clearForcedHealth('51.15.100.12');
      const done = await reconcile();
      expect(done.status).toBe('applied');
      expect(pools()).toEqual([['51.15.100.12', '51.15.100.13']]);
    });
  });
});
