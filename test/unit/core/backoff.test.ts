import { describe, expect, it } from 'vitest';
import { backoffDelayMs, leastBackoffMs } from '../../../shared/core/backoff';

describe('backoffDelayMs', () => {
  const policy = { baseMs: 1000, capMs: 30_000 };
  it('grows exponentially up to the cap (the upper bound: a draw of ~1)', () => {
    expect([0, 1, 2, 3, 10].map((a) => backoffDelayMs(a, policy, 0, () => 0.999999))).toEqual([999, 1999, 3999, 7999, 29999]);
  });
  it('half of the ceiling is sure, the other half drawn (equal jitter): a draw of 0 still waits half', () => {
    expect([0, 1, 2, 3, 10].map((a) => backoffDelayMs(a, policy, 0, () => 0))).toEqual([500, 1000, 2000, 4000, 15_000]);
    expect([0, 1, 2, 3, 10].map((a) => leastBackoffMs(a, policy))).toEqual([500, 1000, 2000, 4000, 15_000]);
    expect(backoffDelayMs(5, policy, 0, () => 0.5)).toBe(15_000 + 7_500);
  });
  it("adds the backoff above a floor such as a 429's reset_seconds", () => {
    expect(backoffDelayMs(0, policy, 7000, () => 0)).toBe(7500);
    expect(backoffDelayMs(0, policy, 7000, () => 0.5)).toBe(7750);
    expect(backoffDelayMs(3, policy, 1000, () => 0.999999)).toBe(1000 + 7999);
  });
  it('a huge attempt number stays at the cap (no overflow to Infinity or NaN); a negative floor counts as none', () => {
    expect(backoffDelayMs(1_000, policy, 0, () => 0.999999)).toBe(29_999);
    expect(backoffDelayMs(0, policy, -5_000, () => 0)).toBe(500);
  });
  it('a draw outside [0, 1) stays within the bounds', () => {
    expect(backoffDelayMs(2, policy, 0, () => -3)).toBe(2000);
    expect(backoffDelayMs(2, policy, 0, () => 7)).toBe(3999);
    expect(backoffDelayMs(2, policy, 0, () => Number.NaN)).toBeGreaterThanOrEqual(2000);
  });
  it('callers refused together come back spread out, not all on the floor', () => {
    let seed = 1;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return (seed - 1) / 2147483646;
    };
    const delays = Array.from({ length: 200 }, () => backoffDelayMs(3, policy, 1000, random));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(1000 + 4000);
    expect(Math.max(...delays)).toBeLessThan(1000 + 8000);
    expect(new Set(delays).size).toBeGreaterThan(150);
  });
});
