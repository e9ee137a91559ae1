// Waiting on the LB (shared/reconcile/readiness.ts) with the real SDK against the emulator and an injected clock
// (a sleep advances it, and is where the test changes the LB's state), so every wait below is exact: the polling's
// own backoff, the budget, a 429's floor, an LB that breaks while waited for.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { faultBodies } from '../../../emulator';
import type { ObservedLb } from '../../../shared/core/model';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import type { Clock } from '../../../shared/platform/deadline';
import { waitUntilApplied, waitWhileTransient } from '../../../shared/reconcile/readiness';
import type { World } from '../../support/world';
import { DEMO_LB_ID, demoSeed, startWorld } from '../../support/world';

let world: World;
const LB = { id: DEMO_LB_ID, name: 'api.demo.k8s.local' };
const getLbCalls = () => world.emulator.calls().filter((c) => c.operation === 'GetLb').length;

/** A clock that only moves when slept on; `onSleep(n)` runs at the n-th sleep (1-based), before it returns. */
function fakeClock(onSleep: (n: number) => void = () => undefined): Clock & { slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
      onSleep(slept.length);
    },
  };
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
  world = await startWorld({ instancePendingMs: 0 });
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => {
  world.emulator.loadSeed(demoSeed());
  world.emulator.clearFaults();
  world.emulator.resetCalls();
});

describe('waitUntilApplied', () => {
  it('polls GetLb until the LB and its instances are ready, backing off from 250 ms by 1.3', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'pending');
    const clock = fakeClock((n) => n === 3 && world.emulator.setLbStatus(DEMO_LB_ID, 'ready'));
    const lb = await waitUntilApplied(world.gateway(), 'fr-par-1', LB, 15_000, { clock });
    expect(lb).toMatchObject({ id: DEMO_LB_ID, status: 'ready' });
    expect(clock.slept).toEqual([250, 325, 423]);
    expect(getLbCalls()).toBe(4);
  });

  it('the polls grow to at most 1 s, and an exhausted budget is apply_timeout (transient), with what was seen last', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    const clock = fakeClock();
    const error = await thrown(waitUntilApplied(world.gateway(), 'fr-par-1', LB, 5_000, { clock }));
    expect(error).toMatchObject({ code: 'apply_timeout', errorClass: 'transient', lb: LB });
    expect(error.message).toBe('waiting for load-balancer api.demo.k8s.local: not ready after 5000 ms (status migrating, instances ready)');
    expect(Math.max(...clock.slept)).toBe(1_000);
    expect(clock.slept.reduce((a, b) => a + b, 0)).toBe(5_000);
  });

  it('instances still pending are not applied, though the LB itself is ready', async () => {
    const seed = demoSeed();
    world.emulator.loadSeed({ ...seed, lbs: seed.lbs?.map((lb) => ({ ...lb, instancesPendingMs: 3_600_000 })) });
    const error = await thrown(waitUntilApplied(world.gateway(), 'fr-par-1', LB, 1_000, { clock: fakeClock() }));
    expect(error.message).toMatch(/\(status ready, instances pending\)$/);
  });

  it('an LB that turns locked while waited for will not get there: lb_not_ready at once', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'locked');
    const clock = fakeClock();
    const error = await thrown(waitUntilApplied(world.gateway(), 'fr-par-1', LB, 15_000, { clock }));
    expect(error).toMatchObject({
      code: 'lb_not_ready',
      errorClass: 'permanent',
      message: 'waiting for load-balancer api.demo.k8s.local: load-balancer is locked',
    });
    expect(clock.slept).toEqual([]);
    expect(getLbCalls()).toBe(1);
  });

  it("a 429 (the gateway's: no reset time) is polled through, the next poll no sooner than its 1 s floor", async () => {
    world.emulator.addFault({ operation: 'GetLb', ...faultBodies.rateLimited(), count: 1 });
    const clock = fakeClock();
    const lb = await waitUntilApplied(world.gateway(), 'fr-par-1', LB, 15_000, { clock });
    expect(lb.status).toBe('ready');
    expect(clock.slept).toEqual([1_000]);
    expect(getLbCalls()).toBe(2);
  });

  it('a 429 whose floor the budget cannot hold ends the wait at once: a sooner call would only be refused again', async () => {
    world.emulator.addFault({ operation: 'GetLb', ...faultBodies.rateLimited(), count: 1 });
    const clock = fakeClock();
    const error = await thrown(waitUntilApplied(world.gateway(), 'fr-par-1', LB, 500, { clock }));
    expect(error).toMatchObject({
      code: 'apply_timeout',
      message: 'waiting for load-balancer api.demo.k8s.local: not ready after 500 ms (no answer)',
    });
    expect(clock.slept).toEqual([]);
  });

  it('a missing LB (404) is not polled through: lb_not_found', async () => {
    const error = await thrown(
      waitUntilApplied(world.gateway(), 'fr-par-1', { id: '00000000-0000-4000-8000-00000000dead', name: 'api.gone' }, 15_000, {
        clock: fakeClock(),
      }),
    );
    expect(error).toMatchObject({ code: 'lb_not_found', errorClass: 'permanent' });
    expect(error.message).toMatch(/^waiting for load-balancer api\.gone: /);
  });
});

describe('waitWhileTransient', () => {
  const seen = (status: string): ObservedLb => ({ ...LB, zone: 'fr-par-1', status, instanceStatuses: ['ready'] });

  it('an LB in a transient state is waited for; the LB is returned as it was seen once it left that state', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    const clock = fakeClock((n) => n === 2 && world.emulator.setLbStatus(DEMO_LB_ID, 'ready'));
    const lb = await waitWhileTransient(world.gateway(), 'fr-par-1', seen('migrating'), 5_000, { clock });
    expect(lb.status).toBe('ready');
    expect(clock.slept).toEqual([250, 325]);
  });

  it('past the budget, the LB is returned still transient (the caller then refuses to write)', async () => {
    world.emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    const lb = await waitWhileTransient(world.gateway(), 'fr-par-1', seen('migrating'), 600, { clock: fakeClock() });
    expect(lb.status).toBe('migrating');
  });

  it('a ready LB, or no budget, costs no call', async () => {
    expect(await waitWhileTransient(world.gateway(), 'fr-par-1', seen('ready'), 5_000, { clock: fakeClock() })).toEqual(seen('ready'));
    expect(await waitWhileTransient(world.gateway(), 'fr-par-1', seen('migrating'), 0, { clock: fakeClock() })).toEqual(seen('migrating'));
    expect(world.emulator.calls()).toEqual([]);
  });
});
