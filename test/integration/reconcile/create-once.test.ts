// CreateBackend that stays single under concurrent reconciles (shared/reconcile/create-once.ts), with the real
// SDK against the emulator: the oldest backend of the name stays, a racer removes its own younger one, and one
// already removed by another racer is no error.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Action } from '../../../shared/core/model';
import { planBackend } from '../../../shared/core/plan';
import { createBackendOnce } from '../../../shared/reconcile/create-once';
import { reconcileTarget } from '../../../shared/reconcile/reconcile-target';
import type { BackendSpec } from '../../../shared/schemas/target';
import type { World } from '../../support/world';
import { DEMO_CONTROL_PLANE_IPS, DEMO_LB_ID, demoBackend, demoSeedWith, demoTarget, startWorld } from '../../support/world';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.stop();
});

const fastSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 20)));
/** The real clock, its waits cut short. */
const fastClock = { clock: { now: () => Date.now(), sleep: fastSleep } };

describe('concurrent reconciles of one target', () => {
  for (const jitterMs of [0, 15, 40]) {
    it(`ten that all find the backend missing leave exactly one (create latency jitter ${jitterMs} ms)`, async () => {
      // Hold every first read until all ten have asked, so they all see the backend missing;
      // then spread the creates so the racers interleave in different orders.
      world.emulator.addFault({ operation: 'ListBackends', latencyMs: 150, count: 10 });
      for (let i = 0; i < 10; i += 1) world.emulator.addFault({ operation: 'CreateBackend', latencyMs: 80 + ((i * jitterMs) % 70) });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 3_000 }, fastClock)),
      );
      expect(results.map((r) => r.error?.code).filter(Boolean)).toEqual([]);
      const backends = world.backends().filter((b) => b.name === 'lb-backend-https');
      expect(backends).toHaveLength(1);
      expect(backends[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
      const creates = world.writes().filter((op) => op === 'CreateBackend').length;
      const deletes = world.writes().filter((op) => op === 'DeleteBackend').length;
      expect(creates).toBeGreaterThan(1); // the race really happened
      expect(creates - deletes).toBe(1);
      expect(results.filter((r) => r.warnings.some((w) => w.includes('created concurrently'))).length).toBe(deletes);
      // Every pool ever written was the control plane: a duplicate's removal never touched the kept one.
      for (const write of world.emulator.history()) expect(write.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
    });
  }
});

describe('createBackendOnce', () => {
  const OLDER = '00000000-0000-4000-8000-0000000000c1';
  const DEMO_LB = { id: DEMO_LB_ID, name: 'api.demo.k8s.local' };
  const spec = demoTarget().backends[0] as BackendSpec;
  const create = planBackend({ spec, pool: [...DEMO_CONTROL_PLANE_IPS] }, undefined)[0] as Extract<Action, { kind: 'CreateBackend' }>;

  it('alone: creates, re-lists to check, keeps its own', async () => {
    world.emulator.loadSeed(demoSeedWith({ backends: [] }));
    const { kept, removedOwnDuplicate } = await createBackendOnce(world.gateway(), 'fr-par-1', DEMO_LB, create);
    expect(removedOwnDuplicate).toBe(false);
    expect(world.backends().map((b) => b.id)).toEqual([kept.id]);
    expect(world.emulator.calls().map((c) => c.operation)).toEqual(['CreateBackend', 'ListBackends']);
  });

  it('an older backend of that name appeared meanwhile: ours is removed, the older one kept and returned', async () => {
    world.emulator.loadSeed(
      demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, { id: OLDER, created_at: '2026-01-01T00:00:00Z' })] }),
    );
    const { kept, removedOwnDuplicate } = await createBackendOnce(world.gateway(), 'fr-par-1', DEMO_LB, create);
    expect(removedOwnDuplicate).toBe(true);
    expect(kept.id).toBe(OLDER);
    expect(world.backends().map((b) => b.id)).toEqual([OLDER]);
    expect(world.writes()).toEqual(['CreateBackend', 'DeleteBackend']);
  });

  it('ours already removed by another racer (404 on delete): no error', async () => {
    world.emulator.loadSeed(
      demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS, { id: OLDER, created_at: '2026-01-01T00:00:00Z' })] }),
    );
    world.emulator.addFault({ operation: 'DeleteBackend', status: 404, body: { message: 'backend not Found' } });
    const { kept, removedOwnDuplicate } = await createBackendOnce(world.gateway(), 'fr-par-1', DEMO_LB, create);
    expect({ kept: kept.id, removedOwnDuplicate }).toEqual({ kept: OLDER, removedOwnDuplicate: true });
  });
});
