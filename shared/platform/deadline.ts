// One invocation's time. The platform kills a function at its timeout, even mid-write or mid-hand-off. So an
// invocation knows when it must stop working (start + timeout - margin), and every wait in it is cut to the time
// left: the hold of an early event, the wait for an LB in a transient state, the wait for a write to apply, each API
// request. Past the deadline the event is re-enqueued, within the margin.

export type Sleep = (ms: number) => Promise<void>;

/** The time an invocation reads and waits on: the real clock, or in tests a virtual one that a sleep advances. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep: Sleep;
}

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const realClock: Clock = { now: () => Date.now(), sleep: realSleep };

export interface Deadline {
  /** Milliseconds left before the invocation must hand the event on (0 when past). */
  remainingMs(): number;
  /** A budget clipped to what is left. */
  clip(budgetMs: number): number;
  /**
   * Aborted with a TimeoutError once the deadline has passed. On the real clock a timer aborts it. A virtual clock
   * moves only when slept on, so there it aborts the first time the deadline is read past its end (every wait reads it).
   */
  readonly signal: AbortSignal;
}

/** Node's longest timer: a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function timeoutError(): Error {
  const error = new Error('the invocation reached its deadline');
  error.name = 'TimeoutError';
  return error;
}

export function invocationDeadline(startedAtMs: number, functionTimeoutMs: number, marginMs: number, clock: Clock): Deadline {
  const stopAt = startedAtMs + functionTimeoutMs - marginMs;
  const stopped = new AbortController();
  // On the real clock a timer fires the deadline too. AbortSignal.timeout's timer never keeps the process alive.
  const signal =
    clock === realClock
      ? AbortSignal.any([stopped.signal, AbortSignal.timeout(Math.min(MAX_TIMER_MS, Math.max(0, stopAt - clock.now())))])
      : stopped.signal;
  const remainingMs = () => {
    const left = Math.max(0, stopAt - clock.now());
    if (left === 0 && !stopped.signal.aborted) stopped.abort(timeoutError());
    return left;
  };
  return { remainingMs, clip: (budgetMs) => Math.max(0, Math.min(budgetMs, remainingMs())), signal };
}

/** For callers with no platform timeout (the CLI, tests): nothing is clipped, and the signal never aborts. */
export const NO_DEADLINE: Deadline = {
  remainingMs: () => Number.POSITIVE_INFINITY,
  clip: (budgetMs) => budgetMs,
  signal: new AbortController().signal,
};
