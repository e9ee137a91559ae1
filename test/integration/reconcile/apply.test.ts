// Writing the plan (shared/reconcile/apply.ts) with the real SDK against the emulator: each action in order, each
// reported done only once the API took it, a stop at the first failure with kOps' message for that write, and a
// duplicate's removal that tolerates "already gone" and steps back from "now in use". The emulator's state and call
// log are the evidence.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { desiredBackends } from '../../../shared/core/desired';
import type { Action } from '../../../shared/core/model';
import { plan } from '../../../shared/core/plan';
import { applyActions } from '../../../shared/reconcile/apply';
import { findLb, observeBackends } from '../../../shared/reconcile/observe';
import type { Target } from '../../../shared/schemas/target';
import type { World } from '../../support/world';
import { DEMO_CONTROL_PLANE_IPS, DEMO_LB_ID, demoBackend, demoSeedWith, demoTarget, startWorld } from '../../support/world';

let world: World;
let defaults: ReturnType<World['emulator']['behaviours']>;
const BACKEND = '00000000-0000-4000-8000-0000000000a1';
const DUPLICATE = '00000000-0000-4000-8000-0000000000a2';
const NEW_IP = '51.15.100.14';

beforeAll(async () => {
  world = await startWorld({ instancePendingMs: 0 });
  defaults = world.emulator.behaviours();
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => {
  world.emulator.clearFaults();
  world.emulator.setBehaviours(defaults);
});

/** The actions the planner makes for the target against the emulator's state: the real inputs of applyActions. */
async function planned(target: Target, pool: readonly string[]) {
  const gateway = world.gateway();
  const { lb } = await findLb(gateway, target);
  const observed = await observeBackends(gateway, target, lb);
  world.emulator.resetCalls();
  return { gateway, lb, actions: plan(desiredBackends(target, pool), observed.byName) };
}

const driftedTarget = () =>
  demoTarget({
    backends: [
      {
        name: 'lb-backend-https',
        forwardPort: 443,
        forwardPortAlgorithm: 'leastconn',
        healthCheck: { port: 443, checkDelayMs: 2000, checkTimeoutMs: 1000, checkMaxRetries: 5 },
      },
    ],
  });

describe('applyActions', () => {
  it('creates a missing backend with the planned pool and health check', async () => {
    world.emulator.loadSeed(demoSeedWith({ backends: [] }));
    const { gateway, lb, actions } = await planned(demoTarget(), DEMO_CONTROL_PLANE_IPS);
    const outcome = await applyActions(gateway, 'fr-par-1', lb, actions);
    expect(outcome).toMatchObject({ done: [{ kind: 'CreateBackend' }], notes: [] });
    expect(outcome.error).toBeUndefined();
    expect(world.backends()).toMatchObject([
      { name: 'lb-backend-https', pool: DEMO_CONTROL_PLANE_IPS, health_check: { check_delay: 3000, check_timeout: 1000 } },
    ]);
  });

  it('performs UpdateBackend, UpdateHealthCheck and SetBackendServers in order, each reported done', async () => {
    world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, { id: BACKEND })] }));
    const { gateway, lb, actions } = await planned(driftedTarget(), [...DEMO_CONTROL_PLANE_IPS, NEW_IP]);
    expect(actions.map((a) => a.kind)).toEqual(['UpdateBackend', 'UpdateHealthCheck', 'SetBackendServers']);
    const outcome = await applyActions(gateway, 'fr-par-1', lb, actions);
    expect(outcome.done).toEqual(actions);
    expect(world.writes()).toEqual(['UpdateBackend', 'UpdateHealthCheck', 'SetBackendServers']);
    expect(world.backends()).toMatchObject([
      { id: BACKEND, forward_port_algorithm: 'leastconn', health_check: { check_delay: 2000 }, pool: [...DEMO_CONTROL_PLANE_IPS, NEW_IP] },
    ]);
  });

  it("stops at the first failure: what was done is reported, the rest is not tried, the error carries kOps' message and the LB", async () => {
    world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, { id: BACKEND })] }));
    const { gateway, lb, actions } = await planned(driftedTarget(), [...DEMO_CONTROL_PLANE_IPS, NEW_IP]);
    world.emulator.addFault({ operation: 'UpdateHealthCheck', status: 503, body: { message: 'service unavailable' } });
    const outcome = await applyActions(gateway, 'fr-par-1', lb, actions);
    expect(outcome.done.map((a) => a.kind)).toEqual(['UpdateBackend']);
    expect(outcome.error).toMatchObject({ code: 'api_unavailable', lb: { id: DEMO_LB_ID, name: 'api.demo.k8s.local' } });
    expect(outcome.error?.message).toMatch(/^updating back-end health check for load-balancer api\.demo\.k8s\.local: /);
    expect(world.emulator.calls().map((c) => c.operation)).not.toContain('SetBackendServers');
    expect(world.backends()[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
  });

  it('a backend gone between read and write: backend_not_found (the next attempt creates it)', async () => {
    world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, { id: BACKEND })] }));
    const { gateway, lb, actions } = await planned(demoTarget(), [...DEMO_CONTROL_PLANE_IPS, NEW_IP]);
    world.emulator.loadSeed(demoSeedWith({ backends: [] }));
    const outcome = await applyActions(gateway, 'fr-par-1', lb, actions);
    expect(outcome).toMatchObject({ done: [], error: { code: 'backend_not_found', errorClass: 'not_found' } });
    expect(outcome.error?.message).toMatch(/^updating back-end server IPs for load-balancer api\.demo\.k8s\.local: /);
  });

  describe('removing a duplicate', () => {
    const remove: Action = { kind: 'DeleteDuplicateBackend', backend: 'lb-backend-https', backendId: DUPLICATE, keptId: BACKEND };
    const seedDuplicates = (frontendOn?: string) =>
      world.emulator.loadSeed(
        demoSeedWith({
          backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, { id: BACKEND }), demoBackend(DEMO_CONTROL_PLANE_IPS, { id: DUPLICATE })],
          ...(frontendOn && { frontends: [{ name: 'lb-frontend-https', inbound_port: 443, backend: frontendOn }] }),
        }),
      );

    it('deletes it, and reports it done', async () => {
      seedDuplicates();
      const { gateway, lb } = await planned(demoTarget(), DEMO_CONTROL_PLANE_IPS);
      const outcome = await applyActions(gateway, 'fr-par-1', lb, [remove]);
      expect(outcome).toEqual({ done: [remove], notes: [] });
      expect(world.backends().map((b) => b.id)).toEqual([BACKEND]);
    });

    it('already gone (another reconcile removed it): that is what was wanted, done, no error', async () => {
      world.emulator.loadSeed(demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, { id: BACKEND })] }));
      const { gateway, lb } = await planned(demoTarget(), DEMO_CONTROL_PLANE_IPS);
      const outcome = await applyActions(gateway, 'fr-par-1', lb, [remove]);
      expect(outcome).toEqual({ done: [remove], notes: [] });
      expect(world.writes()).toEqual(['DeleteBackend']);
    });

    it('refused because a frontend uses it now (412): left alone with a note, not done, and the next action still runs', async () => {
      world.emulator.setBehaviours({ deleteBackendInUse: 'refuse' });
      seedDuplicates(DUPLICATE);
      const { gateway, lb } = await planned(demoTarget(), DEMO_CONTROL_PLANE_IPS);
      const setPool: Action = {
        kind: 'SetBackendServers',
        backend: 'lb-backend-https',
        backendId: BACKEND,
        pool: [...DEMO_CONTROL_PLANE_IPS, NEW_IP],
        added: [NEW_IP],
        removed: [],
      };
      const outcome = await applyActions(gateway, 'fr-par-1', lb, [remove, setPool]);
      expect(outcome.error).toBeUndefined();
      expect(outcome.done).toEqual([setPool]);
      expect(outcome.notes).toEqual([
        expect.stringMatching(
          new RegExp(`^left duplicate backend ${DUPLICATE} of "lb-backend-https" alone: the API refused to delete it \\(`),
        ),
      ]);
      expect(
        world
          .backends()
          .map((b) => b.id)
          .sort(),
      ).toEqual([BACKEND, DUPLICATE].sort());
    });
  });
});
