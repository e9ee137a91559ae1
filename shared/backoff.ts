export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

/**
 * Exponential backoff with full jitter: a uniform draw in [0, min(cap, base * 2^attempt)].
 * A server-given floor (429 reset_seconds) is honoured on top of the draw.
 */
export function backoffDelayMs(attempt: number, policy: BackoffPolicy, floorMs = 0, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  const draw = Math.floor(random() * ceiling);
  return Math.max(floorMs, draw);
}
