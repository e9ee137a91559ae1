import { backoffDelayMs } from './backoff';
import type { DeadLetterReason } from './dead-letter';
import type { LbSyncError } from './errors';
import type { ReconcileResult } from './reconcile/reconcile-target';
import { MAX_SERVER_HINT_MS } from './retry-horizon';
import type { LbSyncEvent } from './schemas/event';

export type Disposition =
  | { kind: 'done'; outcome: 'applied' | 'noop' }
  | { kind: 'retry'; delayMs: number; next: LbSyncEvent; error: LbSyncError }
  | { kind: 'dead_letter'; reason: DeadLetterReason; error: LbSyncError };

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
  // Never past the retry horizon (the draw stops at the cap, a server's hint at 15 min): the reconcile refuses later notBefores.
  const delayMs = backoffDelayMs(event.attempt, policy, Math.min(error.retryAfterMs ?? 0, MAX_SERVER_HINT_MS), random);
  return {
    kind: 'retry',
    delayMs,
    error,
    next: { ...event, attempt, notBefore: new Date(now.getTime() + delayMs).toISOString() },
  };
}
