/**
 * The rollout's reading of LB instances that disagree (shared/core/rollout.ts: a member is passing only when every
 * instance says `passed`, failing only when every instance says `failed`, else unsettled), end to end: one event
 * through the real path (local queue, reconcile handler, real SDK -> emulator) under the emulator's switch
 * `lbInstanceReports`, judged by the pool history. Under `two_disagreeing` the LB's second instance is one change
 * behind the first, for as long as the switch is set; the test sets it back to `two` (they agree) between
 * deliveries, so nothing races a clock.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judgeShrink } from '../../../chaos/invariants';
import type { PoolWrite } from '../../../emulator';
import { sendEvent } from '../../support/deliveries';
import {
  CONTROL_PLANE_ROLE_TAG,
  DEMO_CLUSTER_TAG,
  DEMO_CONTROL_PLANE_IDS,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  demoBackend,
  demoSeedWith,
  demoTarget,
} from '../../support/world';
import { useScenarioStack } from '../../support/scenario-stack';

const [, CP1_ID, CP2_ID] = DEMO_CONTROL_PLANE_IDS as [string, string, string];
const [CP0_IP, CP1_IP, CP2_IP] = DEMO_CONTROL_PLANE_IPS as [string, string, string];
const NEW_IP = '51.15.100.31';

const stack = useScenarioStack({ instancePendingMs: 20 });

/** The demo cluster in sync: three control planes, passing on every instance since the seed. */
beforeEach(() => {
  stack.emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0, lbInstanceReports: 'two_disagreeing' });
  stack.emulator.loadSeed(demoSeedWith({ backends: [demoBackend()] }));
  stack.emulator.resetHistory();
});

const writes = (): PoolWrite[] => stack.emulator.history().filter((w) => w.backendName === 'lb-backend-https');
const pools = () => writes().map((w) => [...w.pool].sort());

describe('instances that disagree: unsettled', () => {
  it('a new member passing on one instance only is not ready: the serving member it replaces waits until both agree', async () => {
    // CP2 loses its role tag (still running, still passing); a new control plane comes up.
    stack.emulator.upsertServer({
      id: CP2_ID,
      name: 'control-plane-fr-par-1-2',
      zone: 'fr-par-1',
      publicIps: [CP2_IP],
      tags: [DEMO_CLUSTER_TAG],
    });
    stack.emulator.upsertServer({
      name: 'control-plane-fr-par-1-3',
      zone: 'fr-par-1',
      publicIps: [NEW_IP],
      tags: [DEMO_CLUSTER_TAG, CONTROL_PLANE_ROLE_TAG],
    });
    const run = await sendEvent(stack.events, stack.emulator, demoTarget());

    expect(await run.next()).toMatchObject({ outcome: 'retry_scheduled', error: { code: 'removal_deferred' } });
    expect(pools()).toEqual([[CP0_IP, CP1_IP, CP2_IP, NEW_IP]]); // additions first
    // The LB has checked the new member: passed on the first instance, not yet on the second.
    const second = await run.next();
    expect(second).toMatchObject({ outcome: 'retry_scheduled', actions: [], error: { code: 'removal_deferred' } });
    expect(second?.error?.message).toContain(`make-before-break: waiting until ${NEW_IP} passes`);
    expect(writes()).toHaveLength(1);

    stack.emulator.setBehaviours({ lbInstanceReports: 'two' }); // the second instance catches up
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied', actions: ['SetBackendServers'] });
    expect(pools()).toEqual([
      [CP0_IP, CP1_IP, CP2_IP, NEW_IP],
      [CP0_IP, CP1_IP, NEW_IP],
    ]);
    expect(writes()[1]?.health[NEW_IP]).toBe('passed');
    for (const w of writes()) expect(judgeShrink(w, 1), `#${w.seq}`).toBeUndefined();
  });

  it('a gone member failing on one instance only may still serve: with maxUnavailable 0 it stays until both fail it', async () => {
    stack.emulator.removeServer(DEMO_CP0_ID); // terminated, no replacement: the pool shrinks to CP1 and CP2
    const run = await sendEvent(stack.events, stack.emulator, demoTarget({ maxUnavailable: 0 }));

    const first = await run.next();
    expect(first).toMatchObject({ outcome: 'retry_scheduled', actions: [], error: { code: 'removal_deferred' } });
    expect(first?.error?.message).toContain('maxUnavailable 0');
    expect(writes()).toEqual([]);

    stack.emulator.setBehaviours({ lbInstanceReports: 'two' }); // both instances now fail it
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied', actions: ['SetBackendServers'] });
    expect(pools()).toEqual([[CP1_IP, CP2_IP]]);
    expect(writes()[0]?.health[CP0_IP]).toBe('failed');
  });

  it.each([
    { reports: 'two', what: 'fail on both instances: both leave in one write', expected: [[CP2_IP]] },
    {
      reports: 'two_disagreeing',
      what: 'fail on one instance only: counted as serving, one leaves per write (maxUnavailable 1)',
      expected: [[CP1_IP, CP2_IP], [CP2_IP]],
    },
  ] as const)('two gone members that $what', async ({ reports, expected }) => {
    stack.emulator.setBehaviours({ lbInstanceReports: reports });
    stack.emulator.removeServer(DEMO_CP0_ID);
    stack.emulator.removeServer(CP1_ID);
    // Two of three gone at once look like a partial listing; this target trusts discovery.
    const run = await sendEvent(stack.events, stack.emulator, demoTarget({ maxUnavailable: 1, trustPartialDiscovery: true }));
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied' });
    expect(pools()).toEqual(expected);
    if (reports === 'two_disagreeing') expect(writes()[0]?.health).toMatchObject({ [CP0_IP]: 'failed/passed', [CP1_IP]: 'failed/passed' });
    for (const w of writes()) expect(judgeShrink(w, 1), `#${w.seq}`).toBeUndefined();
  });
});
