/** What the rolling-update scenarios hold scw-lb-sync to, beside kOps alone (bench/support/rolling-update-world.ts). */
import { expect } from 'vitest';
import type { RollingUpdatePlay } from '../../bench/support/rolling-update-world';
import { LBSYNC_USER_AGENT_MARKER } from '../../shared/outbound/user-agent';

/** The scenarios' clock: 150 times faster than the real one. */
export const ROLLING_SCALE = 150;

/**
 * `terminatedSlackS`: under --cloudonly a terminated server stays in the pool from kOps' terminate to kOps' own apply
 * (its WaitForServer, then CreateServer...), sooner than Audit Trail lists the terminate: kOps' own waits decide
 * that figure in both runs, and the stack beside kOps slows them a little, 150 times over.
 */
export function expectNeverWorse(alone: RollingUpdatePlay, withLbsync: RollingUpdatePlay, terminatedSlackS = 0): void {
  const a = alone.figures;
  const b = withLbsync.figures;
  expect(b.deregisteredInPoolS).toBeLessThanOrEqual(a.deregisteredInPoolS);
  expect(b.terminatedInPoolS).toBeLessThanOrEqual(a.terminatedInPoolS + terminatedSlackS);
  expect(b.nonControlPlaneInPoolS).toBeLessThan(a.nonControlPlaneInPoolS);
  expect(b.belowTwoPassingS).toBeLessThanOrEqual(a.belowTwoPassingS);
  expect(a.finalPoolRight).toBe(false);
  expect(b.finalPoolRight).toBe(true);
}

/** No write of scw-lb-sync ever added an address kOps had deregistered, or one whose server kOps terminated. */
export function expectNoLeavingAdded(play: RollingUpdatePlay): void {
  const deregistered = new Set(play.kops.steps.flatMap((s) => (s.step === 'deregistered' ? [s.ip] : [])));
  const replaced = new Set(play.kops.replaced.map((r) => r.oldIp));
  for (const w of play.history.filter((h) => (h.userAgent ?? '').includes(LBSYNC_USER_AGENT_MARKER))) {
    const added = w.pool.filter((ip) => !w.poolBefore.includes(ip));
    for (const ip of added) {
      expect(deregistered.has(ip), `#${w.seq} added ${ip}, deregistered by kOps`).toBe(false);
      expect(replaced.has(ip), `#${w.seq} added ${ip}, replaced by kOps`).toBe(false);
    }
  }
}
