import { backoffDelayMs } from './backoff';
import type { DeadLetterReason } from '../errors/dead-letter';
import type { LbSyncError } from '../errors/lbsync-error';
import type { ReconcileResult } from '../reconcile/reconcile-target';
import { MAX_SERVER_HINT_MS } from './retry-horizon';
import type { LbSyncEvent } from '../schemas/event';

export type Disposition =
  | { kind: 'done'; outcome: 'applied' | 'noop' }
  | { kind: 'retry'; delayMs: number; next: LbSyncEvent; error: LbSyncError }
  | { kind: 'dead_letter'; reason: DeadLetterReason; error: LbSyncError };

/**
 * The least wait before a 429 is retried when the answer gives no reset time. The gateway's real 429 gives none
 * (no reset_seconds, no Retry-After: recorded), so this floor is what keeps a retry from hitting the limit again.
 */
export const RATE_LIMIT_FLOOR_MS = 1_000;

/** The least wait before retrying after this error: a 429's own reset time, else the 1 s floor; 0 for others. */
export function retryFloorMs(error: Pick<LbSyncError, 'code' | 'retryAfterMs'>): number {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  return error.code === 'rate_limited' ? RATE_LIMIT_FLOOR_MS : 0;
}

export interface RetryPolicy {
  baseMs: number;
  capMs: number;
  maxAttempts: number;
}

/** What to do with a reconcile's result: done, re-enqueue with backoff, or dead-letter. Pure. */
export function dispose(event: LbSyncEvent, result: ReconcileResult, policy: RetryPolicy, now: Date, random: () => number = Math.random): Disposition {
  if (!result.error) return { kind: 'done', outcome: result.status === 'applied' ? 'applied' : 'noop' };
  const error = result.error;
  if (error.errorClass === 'permanent') return { kind: 'dead_letter', reason: 'permanent_error', error };
  // transient, or not_found (the backend vanished mid-way: the next attempt re-reads and creates it)
  const attempt = event.attempt + 1;
  if (attempt >= policy.maxAttempts) {
    // An address the event asserted that discovery never confirmed gets its own reason: a human should look.
    return { kind: 'dead_letter', reason: error.code === 'untrusted_server_ips' ? 'untrusted_server_ips' : 'retries_exhausted', error };
  }
  // Never past the retry horizon (the draw stops at the cap, above a floor honoured up to 15 min): the reconcile refuses later notBefores.
  const delayMs = backoffDelayMs(event.attempt, policy, Math.min(retryFloorMs(error), MAX_SERVER_HINT_MS), random);
  return {
    kind: 'retry',
    delayMs,
    error,
    next: { ...event, attempt, notBefore: new Date(now.getTime() + delayMs).toISOString() },
  };
}
