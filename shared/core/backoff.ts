export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

/**
 * Exponential backoff with full jitter: a uniform draw in [0, min(cap, base * 2^attempt)], added to a floor
 * (a 429's wait: see retryFloorMs in disposition.ts). Adding rather than taking the larger of the two keeps
 * callers that were refused together from all coming back on the floor at once.
 */
export function backoffDelayMs(attempt: number, policy: BackoffPolicy, floorMs = 0, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  const draw = Math.floor(random() * ceiling);
  return Math.max(0, floorMs) + draw;
}
