// The time an invocation reads and waits on: the real clock in production, a virtual one in tests (a sleep advances
// it), so every wait and every deadline can be checked to the millisecond.

export type Sleep = (ms: number) => Promise<void>;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep: Sleep;
}

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const realClock: Clock = { now: () => Date.now(), sleep: realSleep };
