import { describe, expect, it } from 'vitest';
import { invocationDeadline, NO_DEADLINE } from '../../../shared/platform/deadline';

describe('invocationDeadline', () => {
  it('clips budgets to what is left, never below zero', () => {
    let t = 1_000;
    const deadline = invocationDeadline(1_000, 30_000, 5_000, () => t);
    expect(deadline.remainingMs()).toBe(25_000);
    expect(deadline.clip(10_000)).toBe(10_000);
    t = 20_000;
    expect(deadline.clip(10_000)).toBe(6_000);
    t = 40_000;
    expect(deadline.remainingMs()).toBe(0);
    expect(deadline.clip(10_000)).toBe(0);
  });
  it('without a platform timeout (the CLI, tests) nothing is clipped', () => {
    expect(NO_DEADLINE.clip(123_456)).toBe(123_456);
    expect(NO_DEADLINE.remainingMs()).toBe(Number.POSITIVE_INFINITY);
  });
});
