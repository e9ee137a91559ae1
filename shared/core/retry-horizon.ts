// The retry budget is time, not a count: a transient failure is retried until LBSYNC_RETRY_HORIZON_MS have passed
// since the event's first attempt (firstAttemptAt, carried by every retry). Each delay is the backoff's draw
// (backoff.ts: at least half its ceiling, so the attempts spread over the horizon whatever the draws) clipped so the
// next attempt falls no later than the horizon's end: the last attempt is made at the horizon, and an event still
// failing then is dead-lettered. Only a server's rate-limit reset hint (honoured up to 15 minutes, the longest delay
// SQS itself holds a message) may push an attempt past it.
//
// LBSYNC_MAX_ATTEMPTS is only a safety cap: by default the most attempts this law makes within the horizon (every
// draw at its least, no time spent reconciling), plus a margin for clocks of two invocations that disagree.
//
// What lies beyond the law was not scheduled by us: a notBefore further out than any retry would otherwise circulate,
// held and re-enqueued, until that date; a firstAttemptAt in the future would stretch the horizon. The reconcile
// refuses both (invalid_event).
import type { LbSyncError } from '../errors/lbsync-error';
import { validationError } from '../errors/lbsync-error';
import { type BackoffPolicy, backoffDelayMs, leastBackoffMs } from './backoff';

/** The longest server reset hint a retry waits for. */
export const MAX_SERVER_HINT_MS = 900_000;
/** Clocks of two invocations may differ a little; no more is tolerated. */
export const CLOCK_SKEW_MS = 5_000;
/** Attempts the safety cap keeps above the law's own count, for invocations whose clocks disagree. */
export const SKEW_ATTEMPTS = 2;
/** The event schema's bound on `attempt`: no horizon may need more attempts than that. */
export const MAX_ATTEMPTS_LIMIT = 1000;

export interface HorizonPolicy extends BackoffPolicy {
  /** LBSYNC_RETRY_HORIZON_MS: how long after the first attempt a transient failure is still retried. */
  horizonMs: number;
}

export interface RetryPolicy extends HorizonPolicy {
  /** LBSYNC_MAX_ATTEMPTS: a safety cap, at least attemptsWithinHorizon(policy). */
  maxAttempts: number;
}

/**
 * The delay before the next attempt, given how long ago the first one was: the backoff's draw above the floor,
 * clipped to the horizon's end (never below the floor: a rate limit is waited out even past the horizon).
 */
export function retryDelayMs(
  attempt: number,
  policy: HorizonPolicy,
  elapsedMs: number,
  floorMs = 0,
  random: () => number = Math.random,
): number {
  const drawn = backoffDelayMs(attempt, policy, floorMs, random);
  return Math.min(drawn, Math.max(floorMs, policy.horizonMs - elapsedMs));
}

/**
 * The most attempts the law makes within the horizon: every draw at its least, no time spent reconciling (both only
 * lengthen the delays), the last attempt at the horizon's end. The safety cap is this plus SKEW_ATTEMPTS.
 */
export function attemptsWithinHorizon(policy: HorizonPolicy): number {
  let elapsed = 0;
  let attempts = 1;
  while (elapsed < policy.horizonMs) {
    elapsed += Math.min(leastBackoffMs(attempts - 1, policy), policy.horizonMs - elapsed);
    attempts += 1;
    if (attempts > MAX_ATTEMPTS_LIMIT + SKEW_ATTEMPTS) break;
  }
  return attempts;
}

/** The default LBSYNC_MAX_ATTEMPTS: sized from the horizon, never binding before it. */
export function defaultMaxAttempts(policy: HorizonPolicy): number {
  return attemptsWithinHorizon(policy) + SKEW_ATTEMPTS;
}

/** Time since the first attempt; the first attempt itself (no firstAttemptAt yet) started at `startedAt`. */
export function elapsedSinceFirstAttempt(firstAttemptAt: string | undefined, startedAt: Date, now: Date): number {
  const first = firstAttemptAt === undefined ? startedAt.getTime() : Date.parse(firstAttemptAt);
  return now.getTime() - first;
}

/** How far out a retry is ever scheduled: a draw below the cap above a floor up to 15 minutes, clipped to the horizon. */
export function retryReachMs(policy: HorizonPolicy): number {
  return Math.max(MAX_SERVER_HINT_MS, Math.min(policy.capMs + MAX_SERVER_HINT_MS, policy.horizonMs));
}

/** A notBefore further out than any retry is scheduled, or a firstAttemptAt in the future: not ours. */
export function systemFieldsBeyondHorizon(
  event: { notBefore?: string; firstAttemptAt?: string },
  now: Date,
  policy: HorizonPolicy,
): LbSyncError | undefined {
  const fix = 'these fields are set by the system only; send the event again without them (lbsync dlq redrive does)';
  if (event.notBefore !== undefined) {
    const aheadMs = Date.parse(event.notBefore) - now.getTime();
    const reachMs = retryReachMs(policy);
    if (aheadMs > reachMs + CLOCK_SKEW_MS) {
      return validationError('invalid_event', 'event', [
        {
          path: 'event.notBefore',
          message: `is ${Math.round(aheadMs / 1000)} s ahead, further than any retry is scheduled (${Math.round(reachMs / 1000)} s: a backoff draw below LBSYNC_RETRY_CAP_MS above a server's reset hint of up to 15 minutes, within LBSYNC_RETRY_HORIZON_MS unless such a hint asks for more)`,
          received: JSON.stringify(event.notBefore),
          fix,
        },
      ]);
    }
  }
  if (event.firstAttemptAt !== undefined) {
    const aheadMs = Date.parse(event.firstAttemptAt) - now.getTime();
    if (aheadMs > CLOCK_SKEW_MS) {
      return validationError('invalid_event', 'event', [
        {
          path: 'event.firstAttemptAt',
          message: `is ${Math.round(aheadMs / 1000)} s in the future; it is the time of the event's first attempt, which has passed`,
          received: JSON.stringify(event.firstAttemptAt),
          fix,
        },
      ]);
    }
  }
  return undefined;
}
