import type { LbSyncError } from '../errors/lbsync-error';

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

/** The n-th retry's ceiling: base * 2^n, at most the cap. */
export function backoffCeilingMs(attempt: number, policy: BackoffPolicy): number {
  return Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
}

/** The least the n-th delay can be, whatever the draw: half its ceiling (see backoffDelayMs). */
export function leastBackoffMs(attempt: number, policy: BackoffPolicy): number {
  return Math.ceil(backoffCeilingMs(attempt, policy) / 2);
}

/**
 * Exponential backoff with equal jitter, on top of a floor (a 429's wait: see retryFloorMs below). The delay is half
 * of min(cap, base * 2^attempt) for sure, plus the other half drawn uniformly.
 * - The sure half spreads the retries over the retry horizon, so a run of tiny draws cannot spend them in seconds.
 * - The drawn half stops callers refused together from coming back together.
 * - The draw is added to the floor, not compared with it, so those callers do not all return when the floor ends.
 */
export function backoffDelayMs(attempt: number, policy: BackoffPolicy, floorMs = 0, random: () => number = Math.random): number {
  const ceiling = backoffCeilingMs(attempt, policy);
  const sure = leastBackoffMs(attempt, policy);
  // A draw outside [0, 1) would leave the bounds the retry horizon is sized on.
  const drawn = random();
  const draw = Number.isFinite(drawn) ? Math.min(Math.max(drawn, 0), 1 - Number.EPSILON) : 0;
  return Math.max(0, floorMs) + sure + Math.floor(draw * (ceiling - sure));
}

/**
 * The least wait before retrying a 429 whose answer gives no reset time. The recordings show the gateway's real 429
 * gives none (no reset_seconds, no Retry-After), so this floor keeps a retry from hitting the limit again.
 */
export const RATE_LIMIT_FLOOR_MS = 1_000;

/** The least wait before retrying after this error: a 429's own reset time, else the 1 s floor; 0 for others. */
export function retryFloorMs(error: Pick<LbSyncError, 'code' | 'retryAfterMs'>): number {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  return error.code === 'rate_limited' ? RATE_LIMIT_FLOOR_MS : 0;
}
