// One invocation's time: the platform kills a function at its timeout, mid-write or mid-hand-off. So an
// invocation knows when it must stop working (start + timeout - margin) and every wait in it (the hold of
// an early event, the wait for an LB in a transient state, the wait for a write to apply, each API
// request) is clipped to what is left; past it the event is re-enqueued, within the margin.

export interface Deadline {
  /** Milliseconds left before the invocation must hand the event on (0 when past). */
  remainingMs(): number;
  /** A budget clipped to what is left. */
  clip(budgetMs: number): number;
}

export function invocationDeadline(startedAtMs: number, functionTimeoutMs: number, marginMs: number, now: () => number): Deadline {
  const stopAt = startedAtMs + functionTimeoutMs - marginMs;
  const remainingMs = () => Math.max(0, stopAt - now());
  return { remainingMs, clip: (budgetMs) => Math.max(0, Math.min(budgetMs, remainingMs())) };
}

/** For callers with no platform timeout (the CLI, tests): nothing is clipped. */
export const NO_DEADLINE: Deadline = { remainingMs: () => Number.POSITIVE_INFINITY, clip: (budgetMs) => budgetMs };
