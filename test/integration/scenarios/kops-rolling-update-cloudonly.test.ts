/**
 * `kops rolling-update --cloudonly` (no drain, no deregistration, no validation: kOps terminates control planes that
 * are still in the pool), kOps alone vs kOps + scw-lb-sync, as kops-rolling-update.test.ts plays the default one.
 */
import { describe, expect, it } from 'vitest';
import { playRollingUpdate } from '../../../bench/support/rolling-update-world';
import { expectNeverWorse, expectNoLeavingAdded, ROLLING_SCALE as SCALE } from '../../support/rolling-update-judges';

describe("kOps' rolling update --cloudonly, kOps alone vs kOps + scw-lb-sync", () => {
  it('--cloudonly (no deregistration, no drain): no terminated server is put back, and the workers go', async () => {
    const alone = await playRollingUpdate({ withLbsync: false, scale: SCALE, cloudOnly: true });
    const withLbsync = await playRollingUpdate({ withLbsync: true, scale: SCALE, cloudOnly: true });
    expect(alone.kops.steps.filter((s) => s.step === 'deregistered')).toEqual([]);
    // kOps alone: the terminated server serves nothing until kOps' own apply rewrites the pool.
    expect(alone.figures.terminatedInPoolS).toBeGreaterThan(0);
    expectNeverWorse(alone, withLbsync, alone.figures.terminatedInPoolS);
    expectNoLeavingAdded(withLbsync);
  }, 120_000);
});
