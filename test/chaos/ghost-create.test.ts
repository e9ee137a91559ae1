// Found by the chaos run (npm run chaos -- --ghost-creates): a backend this tool created itself but did not
// see in create-once's re-list (a create that committed after the client gave up; a racer whose re-list
// failed). The next reconcile removes it: an unused duplicate with the target's own settings, past the grace
// period (0 here), is deleted; the one a frontend uses, else the oldest, stays.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reconcileTarget } from '../../shared/reconcile/reconcile-target';
import type { World } from '../support/world';
import { DEMO_CONTROL_PLANE_IPS, demoTarget, startWorld } from '../support/world';

let world: World;
beforeEach(async () => {
  world = await startWorld(); // demo seed: lb-backend-https missing
});
afterEach(async () => {
  await world.stop();
});

const fastSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 20)));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const httpsBackends = () => world.backends().filter((b) => b.name === 'lb-backend-https');

describe('a backend we created but did not see in the re-list is removed by the next reconcile', () => {
  it('CreateBackend that commits after the client timed out: the retry creates a second one; the next removes it', async () => {
    // The API takes 700 ms on this create; the client gives up at 300 ms, but the create still lands.
    world.emulator.addFault({ operation: 'CreateBackend', latencyMs: 700 });
    const first = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(300), waitBudgetMs: 2_000, sleep: fastSleep });
    expect(first.error?.code).toBe('network_error'); // transient: the event is retried
    // The retry (backoff ~50 ms here) finds no backend yet, creates one, re-lists, sees only its own: keeps it.
    const retry = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(300), waitBudgetMs: 2_000, sleep: fastSleep });
    expect(retry.status).toBe('applied');
    await sleep(700); // the first create lands, newer than the retry's
    const later = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(300), waitBudgetMs: 2_000, duplicateGraceMs: 0, sleep: fastSleep });
    expect(later.error).toBeUndefined();
    expect(later.done.map((a) => a.kind)).toEqual(['DeleteDuplicateBackend']);
    expect(httpsBackends()).toHaveLength(1);
  });

  it('two racers, the newer one fails its re-list: its retry removes its duplicate', async () => {
    // Both read "missing" (ListBackends held until both asked); A creates first (older), B second.
    world.emulator.addFault({ operation: 'ListBackends', latencyMs: 150, count: 2 });
    world.emulator.addFault({ operation: 'CreateBackend', latencyMs: 10 });
    world.emulator.addFault({ operation: 'CreateBackend', latencyMs: 80 });
    // A's re-list passes (a fault with no effect, consumed in order); B's re-list fails with a 503.
    world.emulator.addFault({ operation: 'ListBackends', count: 1 });
    world.emulator.addFault({ operation: 'ListBackends', status: 503, body: { message: 'service unavailable' } });
    const [a, b] = await Promise.all([0, 1].map(() => reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 2_000, sleep: fastSleep })));
    expect(a?.error).toBeUndefined();
    expect(b?.error?.transient).toBe(true); // B is retried...
    const retryOfB = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 2_000, duplicateGraceMs: 0, sleep: fastSleep });
    expect(retryOfB.error).toBeUndefined();
    // ...and the retry removes the backend B created.
    expect(retryOfB.done.map((a) => a.kind)).toEqual(['DeleteDuplicateBackend']);
    expect(httpsBackends()).toHaveLength(1);
    expect(httpsBackends()[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
  });
});
