import { describe, expect, it } from 'vitest';
import { invocationDeadline, NO_DEADLINE, realClock } from '../../../shared/platform/deadline';

/** A virtual clock: it moves only when told. */
function clockAt(start: number) {
  let t = start;
  const set = (at: number) => {
    t = at;
  };
  return { clock: { now: () => t, sleep: async () => {} }, set };
}

describe('invocationDeadline', () => {
  it('clips budgets to what is left, never below zero', () => {
    const { clock, set } = clockAt(1_000);
    const deadline = invocationDeadline(1_000, 30_000, 5_000, clock);
    expect(deadline.remainingMs()).toBe(25_000);
    expect(deadline.clip(10_000)).toBe(10_000);
    set(20_000);
    expect(deadline.clip(10_000)).toBe(6_000);
    set(40_000);
    expect(deadline.remainingMs()).toBe(0);
    expect(deadline.clip(10_000)).toBe(0);
  });
  it('its signal aborts, with a TimeoutError, once a virtual clock is read past the deadline', () => {
    const { clock, set } = clockAt(1_000);
    const deadline = invocationDeadline(1_000, 30_000, 5_000, clock);
    set(25_999);
    deadline.remainingMs();
    expect(deadline.signal.aborted).toBe(false);
    set(26_000);
    deadline.remainingMs();
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as Error).name).toBe('TimeoutError');
  });
  it('on the real clock its signal aborts by itself at the deadline', async () => {
    const deadline = invocationDeadline(Date.now(), 60, 10, realClock);
    expect(deadline.signal.aborted).toBe(false);
    await new Promise((resolve) => deadline.signal.addEventListener('abort', resolve));
    expect(deadline.signal.aborted).toBe(true);
  });
  it('without a platform timeout (the CLI, tests) nothing is clipped, and nothing aborts', () => {
    expect(NO_DEADLINE.clip(123_456)).toBe(123_456);
    expect(NO_DEADLINE.remainingMs()).toBe(Number.POSITIVE_INFINITY);
    expect(NO_DEADLINE.signal.aborted).toBe(false);
  });
});
