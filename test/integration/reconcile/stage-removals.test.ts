// Cutting a pool write down to what is safe now (shared/reconcile/stage-removals.ts) with the real SDK against the
// emulator's health checks: the LB's view of the members is read (one ListBackendStats) only when a member that may
// still serve is to leave; the policy itself is table-tested in test/unit/core/rollout.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DiscoveredPool } from '../../../shared/core/desired';
import type { Action, ObservedLb } from '../../../shared/core/model';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import { discoverPool } from '../../../shared/reconcile/discover';
import { findLb } from '../../../shared/reconcile/observe';
import { reconcileTarget } from '../../../shared/reconcile/reconcile-target';
import { stageRemovals } from '../../../shared/reconcile/stage-removals';
import type { World } from '../../support/world';
import {
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  DEMO_LB_ID,
  demoBackend,
  demoSeedWith,
  demoTarget,
  FAKE_SECRET_KEY,
  startWorld,
} from '../../support/world';

let world: World;
const BACKEND = '00000000-0000-4000-8000-0000000000a1';
const [OLD_IP, IP_1, IP_2] = DEMO_CONTROL_PLANE_IPS as [string, string, string];
const NEW_IP = '51.15.100.14';
const healthReads = () => world.emulator.calls().filter((c) => c.operation === 'ListBackendStats').length;

const setPool = (pool: string[], added: string[], removed: string[]): Extract<Action, { kind: 'SetBackendServers' }> => ({
  kind: 'SetBackendServers',
  backend: 'lb-backend-https',
  backendId: BACKEND,
  pool,
  added,
  removed,
});

/** The LB and the discovered pool after control plane 0 was replaced by NEW_IP (optionally still there, stopping). */
async function afterReplacement(oldState?: 'stopping'): Promise<{ lb: ObservedLb; pool: DiscoveredPool }> {
  const target = demoTarget();
  if (oldState)
    world.emulator.upsertServer({
      id: DEMO_CP0_ID,
      name: 'control-plane-fr-par-1-0',
      zone: 'fr-par-1',
      state: oldState,
      publicIps: [OLD_IP],
      tags: target.servers.tags,
    });
  else world.emulator.removeServer(DEMO_CP0_ID);
  world.emulator.upsertServer({ name: 'control-plane-fr-par-1-0b', zone: 'fr-par-1', publicIps: [NEW_IP], tags: target.servers.tags });
  const gateway = world.gateway();
  const result = { lb: (await findLb(gateway, target)).lb, pool: await discoverPool(gateway, target) };
  world.emulator.resetCalls();
  return result;
}

// backend_id is a filter the API applies, like ListServers' tags: an answer holding another backend's reports (the
// same addresses on another port, all passing; a backend the target does not manage) is no word on this backend. Taken for it, the replacement would read
// "passing" and the member that still serves would leave before the LB ever checked the new one here.
const OTHER_BACKEND = '00000000-0000-4000-8000-0000000000a2';
const POOL_OF_4 = [...DEMO_CONTROL_PLANE_IPS, NEW_IP];

/** Both backends hold the old and the new member, all passing; this backend's health read answers the other's reports. */
async function answerHealthWithOtherBackend(): Promise<{ lb: ObservedLb; pool: DiscoveredPool }> {
  world.emulator.loadSeed(
    demoSeedWith({
      backends: [
        demoBackend(POOL_OF_4, { id: BACKEND }),
        demoBackend(POOL_OF_4, { id: OTHER_BACKEND, name: 'lb-backend-metrics', forward_port: 9100 }),
      ],
    }),
  );
  const replaced = await afterReplacement();
  for (const ip of POOL_OF_4) world.emulator.forceHealth(ip, 'passed');
  const url = `${world.emulator.url}/lb/v1/zones/fr-par-1/lbs/${DEMO_LB_ID}/backend-stats?backend_id=${OTHER_BACKEND}`;
  const others = await (await fetch(url, { headers: { 'X-Auth-Token': FAKE_SECRET_KEY } })).json();
  expect(others).toMatchObject({ total_count: 4 });
  world.emulator.addFault({ operation: 'ListBackendStats', status: 200, body: others });
  return replaced;
}

beforeAll(async () => {
  world = await startWorld({ instancePendingMs: 0 });
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => {
  world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, { id: BACKEND })] }));
  world.emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0 });
  world.emulator.clearForcedHealth();
  world.emulator.clearFaults();
});

describe('stageRemovals', () => {
  it('a write that only adds goes as planned, and reads no health', async () => {
    const { lb, pool } = await afterReplacement();
    const add = setPool([...DEMO_CONTROL_PLANE_IPS, NEW_IP], [NEW_IP], []);
    const staged = await stageRemovals(world.gateway(), demoTarget(), lb, [add], pool);
    expect(staged).toEqual({ actions: [add], rollouts: [], leftOut: [] });
    expect(world.emulator.calls()).toEqual([]);
  });

  it('a member whose server discovery lists as stopping leaves at once, and its health is not read', async () => {
    const { lb, pool } = await afterReplacement('stopping');
    const replace = setPool([IP_1, IP_2, NEW_IP], [NEW_IP], [OLD_IP]);
    const staged = await stageRemovals(world.gateway(), demoTarget(), lb, [replace], pool);
    expect(staged.actions).toEqual([replace]);
    expect(staged.deferral).toBeUndefined();
    expect(staged.rollouts[0]?.rollout.removed).toEqual([
      { ip: OLD_IP, why: expect.stringContaining('server control-plane-fr-par-1-0 is stopping') },
    ]);
    expect(healthReads()).toBe(0);
  });

  it('a member that still passes while its replacement does not yet: the write only adds, the removal is held (removal_deferred); one health read', async () => {
    const { lb, pool } = await afterReplacement();
    world.emulator.forceHealth(OLD_IP, 'passed');
    world.emulator.forceHealth(NEW_IP, 'unknown');
    const staged = await stageRemovals(world.gateway(), demoTarget(), lb, [setPool([IP_1, IP_2, NEW_IP], [NEW_IP], [OLD_IP])], pool);
    expect(staged.actions).toEqual([setPool([...DEMO_CONTROL_PLANE_IPS, NEW_IP], [NEW_IP], [])]);
    expect(staged.deferral).toMatchObject({
      code: 'removal_deferred',
      errorClass: 'transient',
      lb: { id: DEMO_LB_ID, name: 'api.demo.k8s.local' },
    });
    expect(staged.deferral?.message).toMatch(
      new RegExp(
        `^updating back-end server IPs for load-balancer api\\.demo\\.k8s\\.local: backend lb-backend-https keeps ${OLD_IP.replace(/\./g, '\\.')} for now`,
      ),
    );
    expect(staged.rollouts[0]?.health).toMatchObject({ [OLD_IP]: { condition: 'passing' } });
    expect(healthReads()).toBe(1);
  });

  it('once every desired member passes (the replacement was added by an earlier write), the removal goes in this write', async () => {
    world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend([...DEMO_CONTROL_PLANE_IPS, NEW_IP], { id: BACKEND })] }));
    const { lb, pool } = await afterReplacement();
    world.emulator.forceHealth(OLD_IP, 'passed');
    world.emulator.forceHealth(NEW_IP, 'passed');
    const replace = setPool([IP_1, IP_2, NEW_IP], [NEW_IP], [OLD_IP]);
    const staged = await stageRemovals(world.gateway(), demoTarget(), lb, [replace], pool);
    expect(staged.actions).toEqual([replace]);
    expect(staged.deferral).toBeUndefined();
  });

  it('a removal deferred entirely drops the write (nothing left to write now)', async () => {
    world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend([...DEMO_CONTROL_PLANE_IPS, NEW_IP], { id: BACKEND })] }));
    const { lb, pool } = await afterReplacement();
    world.emulator.forceHealth(OLD_IP, 'passed');
    world.emulator.forceHealth(NEW_IP, 'failed');
    const staged = await stageRemovals(world.gateway(), demoTarget(), lb, [setPool([IP_1, IP_2, NEW_IP], [], [OLD_IP])], pool);
    expect(staged.actions).toEqual([]);
    expect(staged.deferral?.code).toBe('removal_deferred');
  });

  // backend_id is a filter the API applies, like ListServers' tags: an answer holding another backend's reports (the
  // same addresses on another port, all passing; a backend the target does not manage) is no word on this backend. Taken for it, the replacement would read
  // "passing" and the member that still serves would leave before the LB ever checked the new one here.
  it("a health answer holding another backend's reports: none is taken for this backend, the removal waits, each is named", async () => {
    const { lb, pool } = await answerHealthWithOtherBackend();
    const staged = await stageRemovals(world.gateway(), demoTarget(), lb, [setPool([IP_1, IP_2, NEW_IP], [], [OLD_IP])], pool);
    expect(staged.actions).toEqual([]);
    expect(staged.deferral?.code).toBe('removal_deferred');
    expect(staged.rollouts[0]?.health).toEqual({});
    expect(staged.leftOut).toEqual(
      POOL_OF_4.map((ip) => ({ what: `health report of ${ip}`, why: `is of backend ${OTHER_BACKEND}, not ${BACKEND}` })),
    );
  });

  it('... and through a whole reconcile: no write, the reports named in the one discovery_filter_mismatch warning', async () => {
    await answerHealthWithOtherBackend();
    world.emulator.resetHistory();
    const result = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 2_000 });
    expect(result.error?.code).toBe('removal_deferred');
    expect(world.emulator.history()).toEqual([]);
    const mismatch = result.warnings.filter((w) => w.startsWith('[discovery_filter_mismatch] '));
    expect(mismatch).toEqual([
      `[discovery_filter_mismatch] the API answered 4 item(s) its request did not ask for, left out of every pool and backend: ${POOL_OF_4.map((ip) => `health report of ${ip}`).join(', ')}: is of backend ${OTHER_BACKEND}, not ${BACKEND}`,
    ]);
  });

  it('a failed health read is told in the same voice: reading back-end server health for load-balancer <name>', async () => {
    const { lb, pool } = await afterReplacement();
    world.emulator.addFault({ operation: 'ListBackendStats', status: 503, body: { message: 'service unavailable' } });
    const error = await stageRemovals(world.gateway(), demoTarget(), lb, [setPool([IP_1, IP_2, NEW_IP], [NEW_IP], [OLD_IP])], pool).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LbSyncError);
    expect(error).toMatchObject({
      code: 'api_unavailable',
      message: expect.stringMatching(/^reading back-end server health for load-balancer api\.demo\.k8s\.local: /),
    });
  });
});
