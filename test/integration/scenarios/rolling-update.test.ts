/**
 * Rolling-update safety end to end: one event through the real path (local queue, reconcile handler, real SDK ->
 * emulator) with the emulator's health checks following the servers, judged by the emulator's pool history
 * (each write's pool before and after, and the LB's health check of every address at that moment).
 * Health timing is set so nothing races a clock: a delay of an hour ("not yet"), or 0 ("now"), changed between
 * deliveries.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { judgeShrink } from '../../../chaos/invariants';
import type { PoolWrite } from '../../../emulator';
import { sendEvent } from '../../support/deliveries';
import {
  CONTROL_PLANE_ROLE_TAG,
  DEMO_CLUSTER_TAG,
  DEMO_CONTROL_PLANE_IDS,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  demoTarget,
  convergedDemoSeed,
} from '../../support/world';
import { useScenarioStack } from '../../support/scenario-stack';

const HOUR = 3_600_000;
const [, CP1_ID, CP2_ID] = DEMO_CONTROL_PLANE_IDS as [string, string, string];
const [CP0_IP, CP1_IP, CP2_IP] = DEMO_CONTROL_PLANE_IPS as [string, string, string];
const NEW_0 = '51.15.100.31';
const NEW_1 = '51.15.100.32';

const stack = useScenarioStack({ instancePendingMs: 20 });

/** The demo cluster with its backend in sync: three control planes, all passing their health checks. */
beforeEach(() => {
  stack.emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0 });
  stack.emulator.loadSeed(convergedDemoSeed());
  stack.emulator.clearForcedHealth();
  stack.emulator.resetHistory();
  stack.emulator.resetCalls();
});
afterEach(() => stack.emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0 }));

const writes = (): PoolWrite[] => stack.emulator.history().filter((w) => w.backendName === 'lb-backend-https');
const pools = () => writes().map((w) => [...w.pool].sort());
const passing = (w: PoolWrite) => w.pool.filter((ip) => w.health[ip] === 'passed');

function replace(oldId: string, name: string, ip: string): void {
  stack.emulator.replaceServer(oldId, { name, zone: 'fr-par-1', publicIps: [ip], tags: [DEMO_CLUSTER_TAG, CONTROL_PLANE_ROLE_TAG] });
}

/** Every write in the history: no unsafe shrink, and never a pool without a passing member. */
function expectSafeHistory(maxUnavailable = 1): void {
  for (const w of writes()) {
    expect(judgeShrink(w, maxUnavailable), `#${w.seq} ${w.operation}`).toBeUndefined();
    expect(passing(w).length, `#${w.seq} ${w.operation} [${w.pool.join(', ')}] ${JSON.stringify(w.health)}`).toBeGreaterThan(0);
  }
}

describe('a kOps-style replacement (old server deleted, new one booted)', () => {
  it('the old member failing its check already: one write, added and removed together, one health read', async () => {
    replace(DEMO_CP0_ID, 'control-plane-fr-par-1-0b', NEW_0);
    const run = await sendEvent(stack.events, stack.emulator, demoTarget());
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied', actions: ['SetBackendServers'] });
    expect(run.answers).toHaveLength(1);
    expect(pools()).toEqual([[CP1_IP, CP2_IP, NEW_0]]);
    expect(writes()[0]?.health[CP0_IP]).toBe('failed');
    const ops = stack.emulator.calls().map((c) => c.operation);
    expect(ops.filter((op) => op === 'ListBackendStats')).toHaveLength(1);
    expect(ops.filter((op) => op !== 'GetLb' && op !== 'ListBackendStats').sort()).toEqual([
      'ListBackends',
      'ListLbs',
      'ListServers',
      'SetBackendServers',
    ]);
    expectSafeHistory();
  });

  it('the old member still passing, the new one not yet: the new one is added first, the old one removed once the new one passes', async () => {
    // The deleted server's check has not failed yet; the new server's API does not answer yet.
    stack.emulator.setBehaviours({ healthPassAfterMs: HOUR, healthFailAfterMs: HOUR });
    replace(DEMO_CP0_ID, 'control-plane-fr-par-1-0b', NEW_0);
    const run = await sendEvent(stack.events, stack.emulator, demoTarget());

    expect(await run.next()).toMatchObject({
      outcome: 'retry_scheduled',
      actions: ['SetBackendServers'],
      error: { code: 'removal_deferred' },
    });
    expect(pools()).toEqual([[CP0_IP, CP1_IP, CP2_IP, NEW_0]]);
    expect(writes()[0]?.health[NEW_0]).toBe('unknown');
    // Still not passing: nothing written, waiting again.
    expect(await run.next()).toMatchObject({ outcome: 'retry_scheduled', actions: [], error: { code: 'removal_deferred' } });
    expect(writes()).toHaveLength(1);

    stack.emulator.setBehaviours({ healthPassAfterMs: 0 }); // the new control plane answers its health check
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied', actions: ['SetBackendServers'] });
    expect(pools()).toEqual([
      [CP0_IP, CP1_IP, CP2_IP, NEW_0],
      [CP1_IP, CP2_IP, NEW_0],
    ]);
    const [added, removed] = writes();
    expect(added?.poolBefore.sort()).toEqual([...DEMO_CONTROL_PLANE_IPS]);
    expect(removed?.health[NEW_0]).toBe('passed'); // make-before-break: the new member passed when the old one left
    expect(removed?.health[CP0_IP]).toBe('passed');
    expectSafeHistory();
    expect(await run.deadLetters()).toEqual([]);
  });
});

describe('2 of 3 healthy control planes lose their role tag (still running)', () => {
  const untag = (id: string, name: string, ip: string) =>
    stack.emulator.upsertServer({ id, name, zone: 'fr-par-1', publicIps: [ip], tags: [DEMO_CLUSTER_TAG] });
  beforeEach(() => {
    untag(CP1_ID, 'control-plane-fr-par-1-1', CP1_IP);
    untag(CP2_ID, 'control-plane-fr-par-1-2', CP2_IP);
  });

  it('discovery is suspect: not one write, retried until the retry horizon passes, then dead-lettered with the reason', async () => {
    const run = await sendEvent(stack.events, stack.emulator, demoTarget(), { LBSYNC_RETRY_HORIZON_MS: '200' });
    const final = await run.untilFinal();
    expect(final).toMatchObject({ outcome: 'dead_lettered', reason: 'retries_exhausted', error: { code: 'discovery_suspect' } });
    expect(final?.error?.message).toMatch(
      /^updating back-end server IPs for load-balancer api\.demo\.k8s\.local: backend lb-backend-https keeps 51\.15\.100\.12, 51\.15\.100\.13 for now: discovery found 1 of the 3 members still serving/,
    );
    const retries = run.answers.slice(0, -1);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries.map((a) => [a.outcome, a.error?.code])).toEqual(Array(retries.length).fill(['retry_scheduled', 'discovery_suspect']));
    expect(writes()).toEqual([]);
    expect((await run.deadLetters()).map((r) => [r.eventId, r.reason])).toEqual([[run.eventId, 'retries_exhausted']]);
  });

  it('with trustPartialDiscovery: one serving member per write (maxUnavailable 1): the first write keeps 2 of the 3', async () => {
    const run = await sendEvent(stack.events, stack.emulator, demoTarget({ trustPartialDiscovery: true }));
    expect(await run.next()).toMatchObject({ outcome: 'retry_scheduled', error: { code: 'removal_deferred' } });
    expect(pools()).toEqual([[CP0_IP, CP2_IP]]);
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied' });
    expect(pools()).toEqual([[CP0_IP, CP2_IP], [CP0_IP]]);
    expectSafeHistory(1);
  });
});

describe('two control planes deleted at once', () => {
  it('their checks failing: both removed and both new ones added, in one write', async () => {
    replace(DEMO_CP0_ID, 'control-plane-fr-par-1-0b', NEW_0);
    replace(CP1_ID, 'control-plane-fr-par-1-1b', NEW_1);
    const run = await sendEvent(stack.events, stack.emulator, demoTarget());
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied' });
    expect(pools()).toEqual([[CP2_IP, NEW_0, NEW_1]]);
    expect(writes()[0]?.health).toMatchObject({ [CP0_IP]: 'failed', [CP1_IP]: 'failed' });
    expectSafeHistory();
  });

  it('their checks not failed yet: suspect, the new ones are added and the old ones stay until their checks fail', async () => {
    stack.emulator.setBehaviours({ healthFailAfterMs: HOUR });
    replace(DEMO_CP0_ID, 'control-plane-fr-par-1-0b', NEW_0);
    replace(CP1_ID, 'control-plane-fr-par-1-1b', NEW_1);
    const run = await sendEvent(stack.events, stack.emulator, demoTarget());
    expect(await run.next()).toMatchObject({ outcome: 'retry_scheduled', error: { code: 'discovery_suspect' } });
    expect(pools()).toEqual([[CP0_IP, CP1_IP, CP2_IP, NEW_0, NEW_1]]);
    stack.emulator.setBehaviours({ healthFailAfterMs: 0 }); // the LB notices they are gone
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied' });
    expect(pools()).toEqual([
      [CP0_IP, CP1_IP, CP2_IP, NEW_0, NEW_1],
      [CP2_IP, NEW_0, NEW_1],
    ]);
    expectSafeHistory();
  });
});

describe('a health failure forced on one address (control API)', () => {
  it('a desired member failing its check holds back the removal of a serving one', async () => {
    stack.emulator.upsertServer({
      id: CP1_ID,
      name: 'control-plane-fr-par-1-1',
      zone: 'fr-par-1',
      publicIps: [CP1_IP],
      tags: [DEMO_CLUSTER_TAG],
    });
    stack.emulator.forceHealth(CP2_IP, 'failed');
    const run = await sendEvent(stack.events, stack.emulator, demoTarget());
    expect(await run.next()).toMatchObject({ outcome: 'retry_scheduled', actions: [], error: { code: 'removal_deferred' } });
    expect(writes()).toEqual([]);
    stack.emulator.clearForcedHealth(CP2_IP);
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied' });
    expect(pools()).toEqual([[CP0_IP, CP2_IP]]);
    expectSafeHistory();
  });
});
