// Reading the world (shared/reconcile/observe.ts) with the real SDK against the emulator: finding the target's LB,
// reading its backends (one listing; the frontends only when a name is carried twice), and refusing to write to
// an LB that is not ready. Each case counts the calls in the emulator's log.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ObservedLb } from '../../../shared/core/model';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import { assertWritable, findLb, observeBackends } from '../../../shared/reconcile/observe';
import { reconcileTarget } from '../../../shared/reconcile/reconcile-target';
import type { World } from '../../support/world';
import {
  DEMO_LB_ID,
  demoBackend,
  demoSeed,
  demoSeedWith,
  demoTarget,
  DEMO_CONTROL_PLANE_IPS,
  startWorld,
  wireAnswer,
} from '../../support/world';

let world: World;
const operations = () => world.emulator.calls().map((c) => c.operation);
const OLD = '00000000-0000-4000-8000-000000000001';
const NEW = '00000000-0000-4000-8000-000000000002';
const OTHER_LB = '00000000-0000-4000-8000-0000000000b2';
const UUID = '[0-9a-f-]{36}';

/** Two backends of the managed name on the demo LB, the younger one used by a frontend. */
function namesakesOneInUse() {
  return demoSeedWith({
    backends: [
      demoBackend([], { id: OLD, created_at: '2026-01-01T00:00:00Z' }),
      demoBackend([], { id: NEW, created_at: '2026-01-02T00:00:00Z' }),
    ],
    frontends: [{ name: 'lb-frontend-https', inbound_port: 443, backend: NEW }],
  });
}

async function thrown(promise: Promise<unknown>): Promise<LbSyncError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LbSyncError);
  return error as LbSyncError;
}

beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => {
  world.emulator.loadSeed(demoSeed());
  world.emulator.clearFaults();
  world.emulator.resetCalls();
});

describe('findLb', () => {
  it('by name: the LB with exactly that name, though ListLbs?name= also returns its longer namesakes; one call', async () => {
    world.emulator.loadSeed(demoSeedWith({ moreLbs: [{ id: OTHER_LB, name: 'api.demo.k8s.local.old', zone: 'fr-par-1' }] }));
    const lb = (await findLb(world.gateway(), demoTarget())).lb;
    expect(lb).toMatchObject({ id: DEMO_LB_ID, name: 'api.demo.k8s.local', zone: 'fr-par-1', status: 'ready' });
    expect(operations()).toEqual(['ListLbs']);
  });

  it('by id: one GetLb', async () => {
    const lb = (await findLb(world.gateway(), demoTarget({ loadBalancer: { id: DEMO_LB_ID } }))).lb;
    expect(lb.name).toBe('api.demo.k8s.local');
    expect(operations()).toEqual(['GetLb']);
  });

  it('no LB of that name: lb_not_found, told with the name the target gives', async () => {
    const error = await thrown(findLb(world.gateway(), demoTarget({ loadBalancer: { name: 'api.gone.k8s.local' } })));
    expect(error).toMatchObject({ code: 'lb_not_found', errorClass: 'permanent', lb: { name: 'api.gone.k8s.local' } });
    expect(error.message).toBe('finding load-balancer api.gone.k8s.local: no load-balancer named "api.gone.k8s.local" in fr-par-1');
  });

  it("no LB with that id: the API's untyped 404 is lb_not_found, told with the id", async () => {
    const id = '00000000-0000-4000-8000-00000000dead';
    const error = await thrown(findLb(world.gateway(), demoTarget({ loadBalancer: { id } })));
    expect(error).toMatchObject({ code: 'lb_not_found', lb: { id } });
    expect(error.message).toMatch(new RegExp(`^finding load-balancer ${id}: `));
  });

  it('two LBs with exactly that name: lb_ambiguous, naming both ids', async () => {
    world.emulator.loadSeed(demoSeedWith({ moreLbs: [{ id: OTHER_LB, name: 'api.demo.k8s.local', zone: 'fr-par-1' }] }));
    const error = await thrown(findLb(world.gateway(), demoTarget()));
    expect(error.code).toBe('lb_ambiguous');
    expect(error.message).toContain(DEMO_LB_ID);
    expect(error.message).toContain(OTHER_LB);
  });
});

describe('observeBackends', () => {
  it('each managed backend by exact name (a longer namesake is not it): one ListBackends, no ListFrontends', async () => {
    world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend(), demoBackend(['51.15.100.99'], { name: 'lb-backend-https-old' })] }));
    const gateway = world.gateway();
    const lb = (await findLb(gateway, demoTarget())).lb;
    world.emulator.resetCalls();
    const observed = await observeBackends(gateway, demoTarget(), lb);
    expect([...observed.byName.keys()]).toEqual(['lb-backend-https']);
    expect(observed.byName.get('lb-backend-https')?.pool).toEqual(demoBackend().pool);
    expect(observed.duplicates).toEqual([]);
    expect(operations()).toEqual(['ListBackends']);
  });

  it('a name carried twice: the frontends are read (once); the backend a frontend uses is kept, though it is younger', async () => {
    world.emulator.loadSeed(namesakesOneInUse());
    const gateway = world.gateway();
    const lb = (await findLb(gateway, demoTarget())).lb;
    world.emulator.resetCalls();
    const observed = await observeBackends(gateway, demoTarget(), lb);
    expect(observed.byName.get('lb-backend-https')?.id).toBe(NEW);
    expect(observed.duplicates).toMatchObject([{ name: 'lb-backend-https', kept: { id: NEW }, others: [{ id: OLD }] }]);
    expect([...(observed.duplicates[0]?.inUse ?? [])]).toEqual([NEW]);
    expect(operations()).toEqual(['ListBackends', 'ListFrontends']);
  });

  it('a name carried twice, no frontend using either: the oldest is kept (the order every reconcile agrees on)', async () => {
    world.emulator.loadSeed(
      demoSeedWith({
        backends: [
          demoBackend([], { id: NEW, created_at: '2026-01-02T00:00:00Z' }),
          demoBackend([], { id: OLD, created_at: '2026-01-01T00:00:00Z' }),
        ],
      }),
    );
    const gateway = world.gateway();
    const observed = await observeBackends(gateway, demoTarget(), (await findLb(gateway, demoTarget())).lb);
    expect(observed.byName.get('lb-backend-https')?.id).toBe(OLD);
  });

  it("a failed listing is told in kOps' listing words, with the LB id as kOps' Find puts it", async () => {
    const gateway = world.gateway();
    const lb = (await findLb(gateway, demoTarget())).lb;
    world.emulator.addFault({ operation: 'ListBackends', status: 503, body: { message: 'service unavailable' } });
    const error = await thrown(observeBackends(gateway, demoTarget(), lb));
    expect(error).toMatchObject({ code: 'api_unavailable', lb: { id: DEMO_LB_ID, name: 'api.demo.k8s.local' } });
    expect(error.message).toMatch(new RegExp(`^listing back-ends for load-balancer ${DEMO_LB_ID}: `));
  });
});

describe('assertWritable', () => {
  const lb = (status: string): ObservedLb => ({
    id: DEMO_LB_ID,
    name: 'api.demo.k8s.local',
    zone: 'fr-par-1',
    status,
    instanceStatuses: ['ready'],
  });

  it.each(['pending', 'migrating', 'to_create', 'creating', 'to_delete', 'deleting', 'unknown'])(
    '%s: lb_transient_state (wait, then retry)',
    (status) => {
      expect(() => assertWritable(lb(status))).toThrow(
        expect.objectContaining({
          code: 'lb_transient_state',
          message: `waiting for load-balancer api.demo.k8s.local: load-balancer is ${status}`,
        }),
      );
    },
  );

  it.each(['stopped', 'error', 'locked'])('%s: lb_not_ready (a human must look)', (status) => {
    expect(() => assertWritable(lb(status))).toThrow(expect.objectContaining({ code: 'lb_not_ready', errorClass: 'permanent' }));
  });

  it('ready: writable', () => {
    expect(() => assertWritable(lb('ready'))).not.toThrow();
  });
});

// One rule for every listing of the LB's own resources: an item naming another LB makes the answer
// lb_answer_mismatch, as GetLb's. Scripted with faults answering 200 with the emulator's own bodies, changed.
describe('a listing of the LB’s own resources that names another LB is lb_answer_mismatch: nothing written', () => {
  const OURS = '00000000-0000-4000-8000-0000000000c0';
  const STAGING_BACKEND = '00000000-0000-4000-8000-0000000000c1';
  const STALE_POOL = ['51.15.100.11', '51.15.100.12', '51.15.100.99'];
  /** The demo LB with its lb-backend-https (a stale pool in it, a frontend on it), and the staging LB beside it. */
  const seedWithStagingLb = () =>
    world.emulator.loadSeed(
      demoSeedWith({
        backends: [demoBackend(STALE_POOL, { id: OURS })],
        frontends: [{ name: 'lb-frontend-https', inbound_port: 443, backend: OURS }],
        moreLbs: [
          {
            id: OTHER_LB,
            name: 'api.staging.k8s.local',
            zone: 'fr-par-1',
            backends: [demoBackend(['51.15.101.10'], { id: STAGING_BACKEND, created_at: '2026-01-01T00:00:00Z' })],
          },
        ],
      }),
    );
  const backendsOf = async (lbId: string) =>
    (await wireAnswer<{ backends: Record<string, unknown>[] }>(world.emulator, `/lb/v1/zones/fr-par-1/lbs/${lbId}/backends`)).backends;
  const lbOf = (lbId: string) => wireAnswer(world.emulator, `/lb/v1/zones/fr-par-1/lbs/${lbId}`);
  const reconcile = () => reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 3_000, duplicateGraceMs: 0 });

  it('our lb-backend-https answered with another LB’s id: no CreateBackend, no DeleteBackend, not applied', async () => {
    seedWithStagingLb();
    const [ours] = await backendsOf(DEMO_LB_ID);
    const relabelled = { ...ours, lb: await lbOf(OTHER_LB) };
    world.emulator.addFault({
      operation: 'ListBackends',
      pathIncludes: DEMO_LB_ID,
      status: 200,
      body: { backends: [relabelled], total_count: 1 },
      count: -1,
    });
    world.emulator.resetCalls();
    for (let event = 0; event < 3; event += 1) {
      const result = await reconcile();
      expect(result.status).toBe('failed');
      expect(result.error).toMatchObject({ code: 'lb_answer_mismatch', errorClass: 'permanent', lb: { id: DEMO_LB_ID } });
      expect(result.error?.message).toBe(
        `listing back-ends for load-balancer ${DEMO_LB_ID}: the API answered backend lb-backend-https (${OURS}), which belongs to load-balancer ${OTHER_LB}, not ${DEMO_LB_ID}: the answer is not used, and nothing is written from it`,
      );
    }
    expect(world.writes()).toEqual([]);
    expect(world.backends().map((b) => [b.id, b.pool])).toEqual([
      [OURS, STALE_POOL],
      [STAGING_BACKEND, ['51.15.101.10']],
    ]);
  });

  it('the same rule holds where another LB’s backend joins the answer beside ours (an older namesake): nothing written', async () => {
    seedWithStagingLb();
    const backends = [...(await backendsOf(DEMO_LB_ID)), ...(await backendsOf(OTHER_LB))];
    world.emulator.addFault({ operation: 'ListBackends', pathIncludes: DEMO_LB_ID, status: 200, body: { backends, total_count: 2 } });
    const result = await reconcile();
    expect(result.error?.code).toBe('lb_answer_mismatch');
    expect(result.error?.message).toContain(`backend lb-backend-https (${STAGING_BACKEND}), which belongs to load-balancer ${OTHER_LB}`);
    expect(world.writes()).toEqual([]);
  });

  it("create-once's re-list is held to the same rule: ours is created, the lying re-list deletes nothing", async () => {
    world.emulator.loadSeed(
      demoSeedWith({
        backends: [],
        moreLbs: [
          {
            id: OTHER_LB,
            name: 'api.staging.k8s.local',
            zone: 'fr-par-1',
            backends: [demoBackend(['51.15.101.10'], { id: STAGING_BACKEND, created_at: '2026-01-01T00:00:00Z' })],
          },
        ],
      }),
    );
    // The first listing passes (a fault without a status only counts the request); the re-list after the create lies.
    world.emulator.addFault({ operation: 'ListBackends', pathIncludes: DEMO_LB_ID });
    world.emulator.addFault({
      operation: 'ListBackends',
      pathIncludes: DEMO_LB_ID,
      status: 200,
      body: { backends: await backendsOf(OTHER_LB), total_count: 1 },
    });
    world.emulator.resetCalls();
    const result = await reconcile();
    expect(result.error?.code).toBe('lb_answer_mismatch');
    expect(result.error?.message).toMatch(
      new RegExp(
        `^creating back-end for load-balancer api\\.demo\\.k8s\\.local: re-listing its back-ends after creating ${UUID}: the API answered backend lb-backend-https \\(${STAGING_BACKEND}\\), which belongs to load-balancer ${OTHER_LB}`,
      ),
    );
    expect(world.writes()).toEqual(['CreateBackend']);
    const created = world.backends().filter((b) => b.name === 'lb-backend-https' && b.id !== STAGING_BACKEND);
    expect(created.map((b) => b.pool)).toEqual([DEMO_CONTROL_PLANE_IPS]);
  });

  it('a ListFrontends answer naming another LB (read to tell duplicates apart): nothing written, no duplicate deleted', async () => {
    world.emulator.loadSeed(namesakesOneInUse());
    const { frontends } = await wireAnswer<{ frontends: Record<string, unknown>[] }>(
      world.emulator,
      `/lb/v1/zones/fr-par-1/lbs/${DEMO_LB_ID}/frontends`,
    );
    const relabelled = frontends.map((f) => ({ ...f, lb: { ...(f.lb as object), id: OTHER_LB } }));
    world.emulator.addFault({ operation: 'ListFrontends', status: 200, body: { frontends: relabelled, total_count: relabelled.length } });
    const result = await reconcile();
    expect(result.error?.code).toBe('lb_answer_mismatch');
    expect(result.error?.message).toContain(`which belongs to load-balancer ${OTHER_LB}, not ${DEMO_LB_ID}`);
    expect(world.writes()).toEqual([]);
  });
});

// An answer that picks the LB written to is checked like the others: GetLb must answer the id it was asked for,
// and every LB an answer names must be in the target's zone. Scripted with a fault that answers 200 with another
// LB's body in its real wire shape, read from the emulator.
describe('an LB answer is checked on our side', () => {
  const AMS_LB = '00000000-0000-4000-8000-0000000000a3';
  const lbBody = (zone: string, lbId: string): Promise<unknown> => wireAnswer(world.emulator, `/lb/v1/zones/${zone}/lbs/${lbId}`);
  /** Another LB of the project carrying a backend of the managed name: where a write would go, were its answer taken. */
  const seedWithStagingLb = () =>
    world.emulator.loadSeed(
      demoSeedWith({
        moreLbs: [
          { id: OTHER_LB, name: 'api.staging.k8s.local', zone: 'fr-par-1', backends: [demoBackend(['51.15.101.10'], { id: NEW })] },
          { id: AMS_LB, name: 'api.demo.k8s.local', zone: 'nl-ams-1' },
        ],
      }),
    );

  /** Every GetLb of the demo LB answered with the staging LB, in its real wire shape. */
  const answerGetLbWithStagingLb = async () =>
    world.emulator.addFault({
      operation: 'GetLb',
      pathIncludes: DEMO_LB_ID,
      status: 200,
      body: await lbBody('fr-par-1', OTHER_LB),
      count: -1,
    });

  it('by id: a GetLb answer for another LB is lb_answer_mismatch (permanent), and nothing is written to either LB', async () => {
    seedWithStagingLb();
    await answerGetLbWithStagingLb();
    const result = await reconcileTarget(
      demoTarget({ loadBalancer: { id: DEMO_LB_ID } }),
      {},
      { gateway: world.gateway(), waitBudgetMs: 2_000 },
    );
    expect(result.error).toMatchObject({ code: 'lb_answer_mismatch', errorClass: 'permanent', lb: { id: DEMO_LB_ID } });
    expect(result.error?.message).toBe(
      `finding load-balancer ${DEMO_LB_ID}: the API answered load-balancer api.staging.k8s.local (${OTHER_LB}), which is ${OTHER_LB}, not ${DEMO_LB_ID}: nothing is written to it`,
    );
    expect(world.writes()).toEqual([]);
    expect(operations().filter((op) => op === 'ListBackends')).toEqual([]);
  });

  it('while waiting for a busy LB: a poll answered with another (ready) LB is never taken for it; nothing is written', async () => {
    seedWithStagingLb();
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    await answerGetLbWithStagingLb();
    const result = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 2_000, transientWaitMs: 2_000 });
    expect(result.error).toMatchObject({ code: 'lb_answer_mismatch', errorClass: 'permanent' });
    expect(result.error?.message).toMatch(
      /^waiting for load-balancer api\.demo\.k8s\.local: the API answered load-balancer api\.staging\.k8s\.local/,
    );
    expect(world.writes()).toEqual([]);
  });

  it('by name: an exact namesake of another zone in the answer is left out and named once; the zone’s own LB is written', async () => {
    seedWithStagingLb();
    const lbs = [await lbBody('fr-par-1', DEMO_LB_ID), await lbBody('nl-ams-1', AMS_LB)];
    world.emulator.addFault({ operation: 'ListLbs', pathIncludes: 'fr-par-1', status: 200, body: { lbs, total_count: 2 } });
    world.emulator.resetHistory();
    const result = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 3_000 });
    expect(result.status).toBe('applied');
    expect(world.emulator.history().map((w) => [w.operation, w.lbId])).toEqual([['CreateBackend', DEMO_LB_ID]]);
    expect(result.warnings.filter((w) => w.startsWith('[discovery_filter_mismatch] '))).toEqual([
      `[discovery_filter_mismatch] the API answered 1 item(s) its request did not ask for, left out of every pool and backend: load-balancer api.demo.k8s.local (${AMS_LB}): is in zone nl-ams-1, not fr-par-1`,
    ]);
  });

  it('by name: when the only namesake answered is of another zone, lb_not_found names it; nothing is written', async () => {
    seedWithStagingLb();
    world.emulator.addFault({ operation: 'ListLbs', status: 200, body: { lbs: [await lbBody('nl-ams-1', AMS_LB)], total_count: 1 } });
    const error = await thrown(findLb(world.gateway(), demoTarget()));
    expect(error).toMatchObject({ code: 'lb_not_found', lb: { name: 'api.demo.k8s.local' } });
    expect(error.message).toBe(
      `finding load-balancer api.demo.k8s.local: no load-balancer named "api.demo.k8s.local" in fr-par-1 (the API answered load-balancer api.demo.k8s.local (${AMS_LB}), which is in zone nl-ams-1, not fr-par-1)`,
    );
  });
});
