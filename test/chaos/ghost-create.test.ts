// Found by the chaos run (npm run chaos -- --ghost-creates): a backend this tool created itself but did not
// see in create-once's re-list (a create that committed after the client gave up; a racer whose re-list
// failed). The next reconcile removes it: an unused duplicate with the target's own settings, past the grace
// period (0 here), is deleted; the one a frontend uses, else the oldest, stays.
//
// Every ordering here is chosen with the emulator's gates (a request is held until the test releases it),
// never with latencies that race each other: the outcome is the same on an idle machine and a busy one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReconcileResult } from '../../shared/reconcile/reconcile-target';
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
/** The real clock, its waits cut short. */
const fastClock = { clock: { now: () => Date.now(), sleep: fastSleep } };
const httpsBackends = () => world.backends().filter((b) => b.name === 'lb-backend-https');

/** Polls a condition of the emulator's state; fails (never passes) when it does not come. */
async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const held = (gate: string) => world.emulator.heldAtGates()[gate] ?? 0;

describe('a backend we created but did not see in the re-list is removed by the next reconcile', () => {
  it('CreateBackend that commits after the client timed out: the retry creates a second one; the next removes it', async () => {
    // The first create is held at a gate: the client gives up (its 2 s request timeout), the create is still pending.
    world.emulator.addFault({ operation: 'CreateBackend', gate: 'late-create' });
    const first = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(2_000), waitBudgetMs: 2_000 }, fastClock);
    expect(first.error?.code).toBe('network_error'); // transient: the event is retried
    expect(held('late-create')).toBe(1);
    expect(httpsBackends()).toHaveLength(0);
    // The retry finds no backend yet, creates one, re-lists, sees only its own: keeps it.
    const retry = await reconcileTarget(demoTarget(), {}, { gateway: world.gateway(), waitBudgetMs: 2_000 }, fastClock);
    expect(retry.status).toBe('applied');
    const kept = httpsBackends()[0] as { id: string; created_at: string };
    // The held create lands now, strictly later (a later millisecond) than the retry's: it is the newer one.
    await until('the clock to pass the retry create', () => Date.now() > Date.parse(kept.created_at));
    expect(world.emulator.releaseGate('late-create')).toBe(1);
    await until('the late create to land', () => httpsBackends().length === 2);
    const later = await reconcileTarget(
      demoTarget(),
      {},
      { gateway: world.gateway(), waitBudgetMs: 2_000, duplicateGraceMs: 0 },
      fastClock,
    );
    expect(later.error).toBeUndefined();
    expect(later.done.map((a) => a.kind)).toEqual(['DeleteDuplicateBackend']);
    expect(httpsBackends().map((b) => b.id)).toEqual([kept.id]);
  });

  it('two racers, the newer one fails its re-list: its retry removes its duplicate', async () => {
    // Both read "missing": their ListBackends are held until both have asked.
    world.emulator.addFault({ operation: 'ListBackends', gate: 'first-read', count: 2 });
    // Both creates are held; released one at a time, so the first released is the older backend.
    world.emulator.addFault({ operation: 'CreateBackend', gate: 'create', count: 2 });
    // A request timeout far above anything here: no client gives up while the test holds its request.
    const racers = [0, 1].map(() => reconcileTarget(demoTarget(), {}, { gateway: world.gateway(60_000), waitBudgetMs: 2_000 }, fastClock));
    const settled: ReconcileResult[] = [];
    for (const racer of racers) void racer.then((r) => settled.push(r));
    await until('both first reads held', () => held('first-read') === 2);
    world.emulator.releaseGate('first-read');
    await until('both creates held', () => held('create') === 2);
    // A: created first, re-lists (sees only its own), waits until applied: done before B's create lands.
    world.emulator.releaseGate('create', 1);
    await until('the first racer to finish', () => settled.length === 1);
    const a = settled[0] as ReconcileResult;
    expect(a.error).toBeUndefined();
    expect(a.done.map((x) => x.kind)).toEqual(['CreateBackend']);
    // B: its create lands (newer), and its re-list fails with a 503.
    world.emulator.addFault({ operation: 'ListBackends', status: 503, body: { message: 'service unavailable' } });
    await until(
      'the clock to pass the first create',
      () => Date.now() > Date.parse((httpsBackends()[0] as { created_at: string }).created_at),
    );
    world.emulator.releaseGate('create', 1);
    const [first, second] = await Promise.all(racers);
    const b = [first, second].find((r) => r !== a) as ReconcileResult;
    expect(b.error?.transient).toBe(true); // B is retried...
    expect(httpsBackends()).toHaveLength(2);
    const retryOfB = await reconcileTarget(
      demoTarget(),
      {},
      { gateway: world.gateway(), waitBudgetMs: 2_000, duplicateGraceMs: 0 },
      fastClock,
    );
    expect(retryOfB.error).toBeUndefined();
    // ...and the retry removes the backend B created; A's stays.
    expect(retryOfB.done.map((x) => x.kind)).toEqual(['DeleteDuplicateBackend']);
    expect(httpsBackends()).toHaveLength(1);
    expect(httpsBackends()[0]?.pool).toEqual(DEMO_CONTROL_PLANE_IPS);
  });
});
