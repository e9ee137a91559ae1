/**
 * The whole rolling update, measured against kOps alone: `kops update cluster` then `kops rolling-update` of the demo
 * cluster's three control planes (emulator/kops/, kOps' own calls), once with kOps alone and once beside scw-lb-sync
 * (the local stack: watcher, sweep, the boot hook's event), on a clock scaled down 150 times. The figures come from
 * the emulator (its pools, the LB's health, the servers' states, kOps' RemoveBackendServers in the pool history):
 * bench/support/rolling-update-world.ts. The timing bound on the workers is the bench's (section 13): a busy machine
 * stretches a reconcile 150 times over here. --cloudonly: kops-rolling-update-cloudonly.test.ts (its own process: the
 * functions read their environment once per process).
 */
import { describe, expect, it } from 'vitest';
import { KOPS_USER_AGENT } from '../../../emulator';
import { playRollingUpdate } from '../../../bench/support/rolling-update-world';
import { expectNeverWorse, expectNoLeavingAdded, ROLLING_SCALE as SCALE } from '../../support/rolling-update-judges';

describe("kOps' rolling update of three control planes, kOps alone vs kOps + scw-lb-sync", () => {
  it('default (deregistration, drain): never worse on any figure, no deregistered or terminated server in a pool, workers gone', async () => {
    const alone = await playRollingUpdate({ withLbsync: false, scale: SCALE });
    const withLbsync = await playRollingUpdate({ withLbsync: true, scale: SCALE });
    // kOps did what kOps does: three replacements, each deregistered first, its apply writing the workers in.
    for (const play of [alone, withLbsync]) {
      expect(play.kops.replaced).toHaveLength(3);
      expect(play.kops.steps.filter((s) => s.step === 'deregistered')).toHaveLength(3);
      expect(play.history.some((w) => w.userAgent === KOPS_USER_AGENT && w.operation === 'SetBackendServers')).toBe(true);
    }
    expect(alone.figures).toMatchObject({ deregisteredInPoolS: 0, terminatedInPoolS: 0, lbsyncWrites: 0 });
    expect(withLbsync.figures).toMatchObject({ deregisteredInPoolS: 0, terminatedInPoolS: 0 });
    expect(withLbsync.figures.lbsyncWrites).toBeGreaterThan(0);
    expectNeverWorse(alone, withLbsync);
    expectNoLeavingAdded(withLbsync);
    expect(withLbsync.workersGoneAfterApplyS).not.toBeNull();
    expect(withLbsync.workersGoneAfterApplyS as number).toBeLessThan(alone.workersGoneAfterApplyS as number);
    expect(Object.values(withLbsync.finalPools)).toEqual([withLbsync.kops.replaced.map((r) => r.successorIp).sort()]);
  }, 120_000);
});
