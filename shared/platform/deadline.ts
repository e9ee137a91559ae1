// One invocation's time: the platform kills a function at its timeout, mid-write or mid-hand-off. So an
// invocation knows when it must stop working (start + timeout - margin) and every wait in it (the hold of
// an early event, the wait for an LB in a transient state, the wait for a write to apply, each API
// request) is clipped to what is left; past it the event is re-enqueued, within the margin.

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
   * Aborted once the deadline has passed, with a TimeoutError: on the real clock by a timer, on a virtual one as soon
   * as the deadline is read past it (a virtual clock moves only when slept on, and every wait reads the deadline).
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
  // The real clock's deadline also fires by itself (an unref'd timer: it never keeps the process alive).
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
