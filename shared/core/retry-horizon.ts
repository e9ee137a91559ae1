// The retry budget is time, not a count. A transient failure is retried until LBSYNC_RETRY_HORIZON_MS have passed
// since the event's first attempt (firstAttemptAt, which every retry carries). Each delay is the backoff's draw
// (backoff.ts), cut so the next attempt falls no later than the horizon's end. A draw is at least half its ceiling,
// so the attempts spread over the horizon whatever the draws. The last attempt is made at the horizon, and an event
// still failing then is dead-lettered. Only a server's rate-limit reset hint may push an attempt past the horizon.
// Such a hint is honoured up to 15 minutes, the longest delay SQS allows.
//
// LBSYNC_MAX_ATTEMPTS is only a safety cap. Its default is the most attempts this schedule makes within the horizon
// (every draw at its least, no time spent reconciling), plus a margin for invocations whose clocks disagree.
//
// We never schedule an event outside these bounds, so such an event did not come from us. A notBefore further out
// than any retry would keep it circulating (held, then re-enqueued) until that date. A firstAttemptAt in the future
// would stretch the horizon. The reconcile refuses both (invalid_event).
import type { LbSyncError } from '../errors/lbsync-error';
import { validationError } from '../errors/lbsync-error';
import { type BackoffPolicy, backoffDelayMs, leastBackoffMs } from './backoff';

/** The longest server reset hint a retry waits for. */
export const MAX_SERVER_HINT_MS = 900_000;
/** How far apart the clocks of two invocations may be. */
export const CLOCK_SKEW_MS = 5_000;
/** Extra attempts the safety cap allows above the schedule's own count, for invocations whose clocks disagree. */
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
 * The delay before the next attempt: the backoff's draw above the floor, cut at the horizon's end. It is never below
 * the floor, because a rate limit must be waited out even past the horizon.
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
 * The most attempts the schedule can make within the horizon. It assumes every draw at its least and no time spent
 * reconciling (anything else only lengthens the delays), with the last attempt at the horizon's end. The safety cap is
 * this plus SKEW_ATTEMPTS.
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

/** Time since the first attempt. An event with no firstAttemptAt is on its first attempt, which began at `startedAt`. */
export function elapsedSinceFirstAttempt(firstAttemptAt: string | undefined, startedAt: Date, now: Date): number {
  const first = firstAttemptAt === undefined ? startedAt.getTime() : Date.parse(firstAttemptAt);
  return now.getTime() - first;
}

/** The furthest out a retry is scheduled: a floor of up to 15 minutes plus a draw below the cap, cut at the horizon. */
export function retryReachMs(policy: HorizonPolicy): number {
  return Math.max(MAX_SERVER_HINT_MS, Math.min(policy.capMs + MAX_SERVER_HINT_MS, policy.horizonMs));
}

/** Refuses a notBefore further out than any retry is scheduled, and a firstAttemptAt in the future: we set neither. */
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
