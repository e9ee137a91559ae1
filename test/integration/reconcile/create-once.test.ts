import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reconcileTarget } from '../../../shared/reconcile/reconcile-target';
import type { World } from '../../support/world';
import { DEMO_CONTROL_PLANE_IPS, demoTarget, startWorld } from '../../support/world';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.stop();
});

const fastSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 20)));

describe('concurrent reconciles of one target', () => {
  for (const jitterMs of [0, 15, 40]) {
    it(`ten that all find the backend missing leave exactly one (create latency jitter ${jitterMs} ms)`, async () => {
      // Hold every first read until all ten have asked, so they all see the backend missing;
      // then spread the creates so the racers interleave in different orders.
      world.emulator.addFault({ operation: 'ListBackends', latencyMs: 150, count: 10 });
      for (let i = 0; i < 10; i += 1) world.emulator.addFault({ operation: 'CreateBackend', latencyMs: 80 + ((i * jitterMs) % 70) });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 3_000, sleep: fastSleep })),
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
