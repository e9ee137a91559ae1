// The Scaleway adapter (shared/adapters/scaleway.ts), the only importer of the Scaleway SDK, against the emulator:
// the calls it makes and counts, "delete if it exists" (the one place a 404 is read as "gone"), and a request that
// is not made once the invocation has no time left.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { classifyApiFailure, wrapApiFailure } from '../../../shared/adapters/api-failure';
import type { ScalewayGateway } from '../../../shared/adapters/scaleway';
import { createScalewayGateway, WRITE_CALLS, withoutWrites } from '../../../shared/adapters/scaleway';
import { healthReadOnce } from '../../../shared/reconcile/health-read-once';
import type { World } from '../../support/world';
import {
  CONTROL_PLANE_ROLE_TAG,
  DEMO_CLUSTER_TAG,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_LB_ID,
  FAKE_ACCESS_KEY,
  FAKE_SECRET_KEY,
  demoBackend,
  demoSeedWith,
  startWorld,
  wireAnswer,
} from '../../support/world';

let world: World;
const BACKEND = '00000000-0000-4000-8000-0000000000a1';

beforeAll(async () => {
  world = await startWorld({ instancePendingMs: 0 });
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => {
  world.emulator.setBehaviours({ deleteBackendInUse: 'refuse' });
  world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, { id: BACKEND })] }));
  world.emulator.resetCalls();
});

describe('deleteBackendIfExists', () => {
  it('deletes a backend that exists: deleted', async () => {
    expect(await world.gateway().deleteBackendIfExists('fr-par-1', BACKEND)).toEqual({ deleted: true });
    expect(world.backends()).toEqual([]);
  });

  it("one already gone (the API's untyped 404): not an error, not deleted", async () => {
    const gateway = world.gateway();
    await gateway.deleteBackendIfExists('fr-par-1', BACKEND);
    expect(await gateway.deleteBackendIfExists('fr-par-1', BACKEND)).toEqual({ deleted: false });
    expect(world.emulator.calls().map((c) => [c.operation, c.status])).toEqual([
      ['DeleteBackend', 204],
      ['DeleteBackend', 404],
    ]);
  });

  it("any other refusal is the SDK's own error, for the caller to classify (412: a frontend uses it)", async () => {
    world.emulator.loadSeed(
      demoSeedWith({
        backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, { id: BACKEND })],
        frontends: [{ name: 'lb-frontend-https', inbound_port: 443, backend: BACKEND }],
      }),
    );
    const error = await world
      .gateway()
      .deleteBackendIfExists('fr-par-1', BACKEND)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(classifyApiFailure(error, 'backend_not_found').code).toBe('precondition_failed');
    expect(world.backends().map((b) => b.id)).toEqual([BACKEND]);
  });
});

describe('calls', () => {
  it('counts reads and writes by operation, as the emulator saw them', async () => {
    const gateway = world.gateway();
    await gateway.listBackends('fr-par-1', DEMO_LB_ID);
    await gateway.getLb('fr-par-1', DEMO_LB_ID);
    await gateway.setBackendServers('fr-par-1', BACKEND, DEMO_CONTROL_PLANE_IPS.slice(1));
    expect(gateway.calls()).toEqual({
      ms: expect.any(Number),
      maxMs: expect.any(Number),
      reads: 2,
      writes: 1,
      byOperation: {
        'GET /lb/v1/zones/{locality}/lbs/{id}/backends': 1,
        'GET /lb/v1/zones/{locality}/lbs/{id}': 1,
        'PUT /lb/v1/zones/{locality}/backends/{id}/servers': 1,
      },
    });
    expect(world.emulator.calls().map((c) => c.operation)).toEqual(['ListBackends', 'GetLb', 'SetBackendServers']);
  });

  it('no time left in the invocation: the request is not made (nor counted), it fails as a timeout', async () => {
    const gateway = createScalewayGateway({
      accessKey: FAKE_ACCESS_KEY,
      secretKey: FAKE_SECRET_KEY,
      apiUrl: world.emulator.url,
      remainingMs: () => 0,
    });
    const error = await gateway.getLb('fr-par-1', DEMO_LB_ID).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(classifyApiFailure(error, 'lb_not_found').code).toBe('network_error');
    // It says why: not a slow API, but an invocation out of time.
    expect(wrapApiFailure('finding load-balancer api.demo.k8s.local', error, 'lb_not_found').message).toBe(
      'finding load-balancer api.demo.k8s.local: no time left in this invocation',
    );
    expect(gateway.calls()).toMatchObject({ reads: 0, writes: 0 });
    expect(world.emulator.calls()).toEqual([]);
  });
});

describe('withoutWrites (LBSYNC_MODE=shadow)', () => {
  it('refuses every write before it is sent, the changes-only pool writes of a rolling update included', async () => {
    expect([...WRITE_CALLS].sort()).toEqual([
      'addBackendServers',
      'createBackend',
      'deleteBackendIfExists',
      'removeBackendServers',
      'setBackendServers',
      'updateBackend',
      'updateHealthCheck',
    ]);
    const gateway = withoutWrites(world.gateway());
    for (const call of WRITE_CALLS) {
      const write = gateway[call] as (...args: unknown[]) => Promise<unknown>;
      await expect(write('fr-par-1', BACKEND, ['51.15.9.9']), call).rejects.toThrow(
        `${call} refused before it was sent: this deployment is in shadow mode`,
      );
    }
    expect(world.emulator.calls()).toEqual([]);
    expect(world.backends().map((b) => b.pool)).toEqual([DEMO_CONTROL_PLANE_IPS]);
    expect(gateway.calls()).toMatchObject({ reads: 0, writes: 0 });
  });

  it("keeps every read, also under a wrapper that copies the gateway (the reconcile's one health read per backend)", async () => {
    const { gateway } = healthReadOnce(withoutWrites(world.gateway()));
    const reads: (keyof ScalewayGateway)[] = ['getLb', 'listBackends', 'listBackendHealth'];
    for (const call of reads) expect(typeof gateway[call], call).toBe('function');
    expect((await gateway.getLb('fr-par-1', DEMO_LB_ID)).id).toBe(DEMO_LB_ID);
    expect((await gateway.listBackends('fr-par-1', DEMO_LB_ID)).map((b) => b.id)).toEqual([BACKEND]);
    await gateway.listBackendHealth('fr-par-1', DEMO_LB_ID, BACKEND);
    await gateway.listBackendHealth('fr-par-1', DEMO_LB_ID, BACKEND);
    await expect(gateway.addBackendServers('fr-par-1', BACKEND, ['51.15.9.9'])).rejects.toThrow('shadow mode');
    expect(world.emulator.calls().map((c) => c.operation)).toEqual(['GetLb', 'ListBackends', 'ListBackendStats']);
    expect(gateway.calls()).toMatchObject({ reads: 3, writes: 0 });
  });
});

// Every listing is read page after page (shared/adapters/pages.ts): the next page only after a full one, so a total
// that lies costs nothing, and a listing that never ends is refused. Counted in the emulator's call log.
describe('listings: one page after another, the total never trusted', () => {
  const ZONE = 'fr-par-1';
  const region = 'fr-par';
  beforeEach(() => {
    world.emulator.loadSeed(
      demoSeedWith({
        backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, { id: BACKEND })],
        frontends: [{ name: 'lb-frontend-https', inbound_port: 443, backend: BACKEND }],
      }),
    );
  });
  const serverIds = () => [...world.emulator.state.servers.keys()];
  const nicIds = () => [...world.emulator.state.servers.values()].flatMap((s) => s.privateNics.map((n) => n.id));
  /** Each listing of the gateway: the emulator's path (its real answer), the operation logged, and the call. */
  const LISTINGS: { operation: string; path: () => string; header?: boolean; call: (g: ScalewayGateway) => Promise<unknown[]> }[] = [
    {
      operation: 'ListLbs',
      path: () => `/lb/v1/zones/${ZONE}/lbs?name=api.demo.k8s.local`,
      call: (g) => g.findLbsByName(ZONE, 'api.demo.k8s.local'),
    },
    {
      operation: 'ListBackends',
      path: () => `/lb/v1/zones/${ZONE}/lbs/${DEMO_LB_ID}/backends`,
      call: (g) => g.listBackends(ZONE, DEMO_LB_ID),
    },
    {
      operation: 'ListFrontends',
      path: () => `/lb/v1/zones/${ZONE}/lbs/${DEMO_LB_ID}/frontends`,
      call: (g) => g.listFrontends(ZONE, DEMO_LB_ID),
    },
    {
      operation: 'ListBackendStats',
      path: () => `/lb/v1/zones/${ZONE}/lbs/${DEMO_LB_ID}/backend-stats?backend_id=${BACKEND}`,
      call: (g) => g.listBackendHealth(ZONE, DEMO_LB_ID, BACKEND),
    },
    {
      operation: 'ListLbPrivateNetworks',
      path: () => `/lb/v1/zones/${ZONE}/lbs/${DEMO_LB_ID}/private-networks`,
      call: (g) => g.listLbPrivateNetworks(ZONE, DEMO_LB_ID),
    },
    {
      operation: 'ListServers',
      path: () => `/instance/v1/zones/${ZONE}/servers?tags=${encodeURIComponent(DEMO_CLUSTER_TAG)}`,
      header: true,
      call: (g) => g.listServersByTags(ZONE, [DEMO_CLUSTER_TAG]),
    },
    {
      operation: 'ListIPs',
      path: () =>
        `/ipam/v1/regions/${region}/ips?${nicIds()
          .map((id) => `resource_id=${id}`)
          .join('&')}`,
      call: (g) => g.listPrivateNicIps(region, nicIds()),
    },
    {
      operation: 'ListIPs',
      path: () =>
        `/ipam/v1/regions/${region}/ips?zonal=${ZONE}&is_ipv6=false&${serverIds()
          .map((id) => `resource_id=${id}`)
          .join('&')}`,
      call: (g) => g.listZonalIpv4(ZONE, serverIds()),
    },
  ];

  it.each(LISTINGS)('$operation with a total of 3000 for a few items: one request, the items as answered', async (listing) => {
    const answer = await wireAnswer(world.emulator, listing.path());
    const items = Object.values(answer).find(Array.isArray) as unknown[];
    expect(items.length).toBeGreaterThan(0);
    world.emulator.addFault({
      operation: listing.operation,
      status: 200,
      body: listing.header ? answer : { ...answer, total_count: 3000 },
      ...(listing.header && { headers: { 'X-Total-Count': '3000' } }),
    });
    world.emulator.resetCalls();
    expect(await listing.call(world.gateway())).toHaveLength(items.length);
    expect(world.emulator.calls().map((c) => c.operation)).toEqual([listing.operation]);
  });

  it('a real second page is read, and the listing ends at its short page: 150 servers, two ListServers', async () => {
    const many = Array.from({ length: 150 }, (_, i) => ({
      name: `control-plane-${i}`,
      zone: ZONE,
      tags: [DEMO_CLUSTER_TAG, CONTROL_PLANE_ROLE_TAG],
      publicIps: [`51.15.${110 + Math.floor(i / 100)}.${(i % 100) + 1}`],
    }));
    world.emulator.loadSeed({ ...demoSeedWith({}), servers: many });
    world.emulator.resetCalls();
    const servers = await world.gateway().listServersByTags(ZONE, [DEMO_CLUSTER_TAG]);
    expect(new Set(servers.map((s) => s.name)).size).toBe(150);
    expect(world.emulator.calls().map((c) => [c.operation, new URLSearchParams(c.query).get('page')])).toEqual([
      ['ListServers', '1'],
      ['ListServers', '2'],
    ]);
  });

  it('a listing that answers full pages for ever is refused at 50 pages: listing_too_long, told in the step’s words', async () => {
    const full = Array.from({ length: 100 }, (_, i) => ({
      name: `control-plane-${i}`,
      zone: ZONE,
      tags: [DEMO_CLUSTER_TAG, CONTROL_PLANE_ROLE_TAG],
      publicIps: [`51.15.120.${i + 1}`],
    }));
    world.emulator.loadSeed({ ...demoSeedWith({}), servers: full });
    const page = await wireAnswer(world.emulator, `/instance/v1/zones/${ZONE}/servers?per_page=100`);
    world.emulator.addFault({ operation: 'ListServers', status: 200, body: page, headers: { 'X-Total-Count': '100' }, count: -1 });
    world.emulator.resetCalls();
    const error = await world
      .gateway()
      .listServersByTags(ZONE, [DEMO_CLUSTER_TAG])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(world.emulator.calls()).toHaveLength(50);
    const told = wrapApiFailure("getting cluster servers for load-balancer's back-end", error, 'unknown_api_error');
    expect(told).toMatchObject({ code: 'listing_too_long', errorClass: 'permanent' });
    expect(told.message).toBe(
      "getting cluster servers for load-balancer's back-end: ListServers answered 50 full pages of 100 and had more: a listing that long is not used (nothing was written)",
    );
  });
});
