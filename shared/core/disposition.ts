// Decides what becomes of one queue message. Every requeue decision is made here, in one pure function. The
// reconcile handler (shared/handlers/reconcile-message.ts) only carries it out: it sleeps, sends, dead-letters and
// answers as told.
//
// - An early event (notBefore in the future) is held in this invocation if the wait fits under LBSYNC_MAX_HOLD_MS
//   and the invocation's deadline. If the wait is longer, the event is held as long as fits, then sent back
//   unchanged. Scaleway Queues have no DelaySeconds, so a message cannot wait on the queue itself.
// - A failed reconcile is retried with backoff. The retry is a copy with attempt + 1, firstAttemptAt, and notBefore
//   set to the retry time (in native mode, DelaySeconds too). Retries stop when LBSYNC_RETRY_HORIZON_MS have passed
//   since the first attempt (retry-horizon.ts). A permanent failure, or one still failing then, is dead-lettered.
import { LbSyncError } from '../errors/lbsync-error';
import type { LbSyncEvent } from '../schemas/event';
import type { RetryPolicy } from './retry-horizon';
import { retryFloorMs } from './backoff';
import { elapsedSinceFirstAttempt, MAX_SERVER_HINT_MS, retryDelayMs, systemFieldsBeyondHorizon } from './retry-horizon';
import { delaySecondsUntil } from './sweep-schedule';

export type { RetryPolicy } from './retry-horizon';

export const DEAD_LETTER_REASONS = [
  'invalid_event',
  'unknown_target',
  'permanent_error',
  'retries_exhausted',
  'untrusted_server_ips',
] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** Reconcile the event in this invocation, once holdMs have passed (0: at once). */
export interface Hold {
  kind: 'hold';
  holdMs: number;
}

/**
 * Send the event back to the reconcile queue after holding it holdMs here. With `next`, it is a retry with the error
 * that caused it; without, the message goes back as it came (an early event). delayMs is how long after the send it
 * is due; delaySeconds is the queue's own delay, in native mode only.
 */
export interface Requeue {
  kind: 'requeue';
  holdMs: number;
  delayMs: number;
  delaySeconds?: number;
  next?: LbSyncEvent;
  error?: LbSyncError;
}

export interface Done {
  kind: 'done';
  /** A dry run always answers dry_run, never noop: it wrote nothing, whatever its plan. */
  outcome: 'applied' | 'noop' | 'dry_run';
}

export interface DeadLetter {
  kind: 'dead_letter';
  reason: DeadLetterReason;
  error: LbSyncError;
}

export type Disposition = Hold | Requeue | Done | DeadLetter;

export interface DispositionPolicy {
  retry: RetryPolicy;
  /** hold (Scaleway: no DelaySeconds) or native (a queue that has DelaySeconds). */
  delayMode: 'hold' | 'native';
  /** Longest an early event is held inside one invocation before it is sent back instead. */
  maxHoldMs: number;
}

/** What the reconcile of one event came to, as far as its disposition goes. */
export interface ReconcileVerdict {
  status: 'applied' | 'noop' | 'planned' | 'failed';
  /** Nothing could be written (a dry run, or a shadow deployment): its answer is dry_run. Default: the event's dryRun. */
  dryRun?: boolean;
  error?: LbSyncError;
}

/** The body is not a valid event (decodeEvent's error). */
export interface Undecodable {
  stage: 'undecodable';
  error: LbSyncError;
}

/** Decoded, before the reconcile: is it one we scheduled, for a known target, and due? */
export interface Received {
  stage: 'received';
  event: LbSyncEvent;
  targetKnown: boolean;
  now: Date;
  /** Time left before the invocation's deadline: an early event is never held past it. */
  remainingMs: number;
}

export interface Reconciled {
  stage: 'reconciled';
  event: LbSyncEvent;
  result: ReconcileVerdict;
  now: Date;
  /** When this attempt began (default: now). It counts as the first attempt's time if the event has no firstAttemptAt yet. */
  startedAt?: Date;
}

export type DispositionInput = Undecodable | Received | Reconciled;

/** Done, hold, requeue or dead-letter. Pure: the clock, the time left and the jitter's draw are inputs. */
export function decideDisposition(input: Undecodable, policy: DispositionPolicy): DeadLetter;
export function decideDisposition(input: Received, policy: DispositionPolicy): Hold | Requeue | DeadLetter;
export function decideDisposition(input: Reconciled, policy: DispositionPolicy, random?: () => number): Done | Requeue | DeadLetter;
export function decideDisposition(input: DispositionInput, policy: DispositionPolicy, random?: () => number): Disposition;
export function decideDisposition(input: DispositionInput, policy: DispositionPolicy, random: () => number = Math.random): Disposition {
  switch (input.stage) {
    case 'undecodable':
      return { kind: 'dead_letter', reason: 'invalid_event', error: input.error };
    case 'received':
      return onReceipt(input, policy);
    case 'reconciled':
      return afterReconcile(input, policy, random);
  }
}

function onReceipt({ event, targetKnown, now, remainingMs }: Received, policy: DispositionPolicy): Hold | Requeue | DeadLetter {
  const tooFar = systemFieldsBeyondHorizon(event, now, policy.retry);
  if (tooFar) return { kind: 'dead_letter', reason: 'invalid_event', error: tooFar };
  if (!targetKnown) {
    return {
      kind: 'dead_letter',
      reason: 'unknown_target',
      error: new LbSyncError('unknown_target', `no target named "${event.target}" in the configuration`),
    };
  }
  const waitMs = event.notBefore ? Date.parse(event.notBefore) - now.getTime() : 0;
  if (!(waitMs > 0)) return { kind: 'hold', holdMs: 0 };
  const holdMs = Math.max(0, Math.min(waitMs, policy.maxHoldMs, remainingMs));
  if (holdMs >= waitMs) return { kind: 'hold', holdMs };
  return { kind: 'requeue', holdMs, delayMs: waitMs - holdMs };
}

function afterReconcile(
  { event, result, now, startedAt = now }: Reconciled,
  policy: DispositionPolicy,
  random: () => number,
): Done | Requeue | DeadLetter {
  const { error } = result;
  const dryRun = result.dryRun ?? event.dryRun === true;
  if (!error) return { kind: 'done', outcome: dryRun ? 'dry_run' : result.status === 'applied' ? 'applied' : 'noop' };
  if (error.errorClass === 'permanent') return { kind: 'dead_letter', reason: 'permanent_error', error };
  // Transient, or not_found: the backend vanished mid-way, and the next attempt re-reads and creates it.
  const attempt = event.attempt + 1;
  const elapsedMs = elapsedSinceFirstAttempt(event.firstAttemptAt, startedAt, now);
  if (elapsedMs >= policy.retry.horizonMs || attempt >= policy.retry.maxAttempts) {
    // An address the event asserted that discovery never confirmed gets its own reason: a human should look.
    return { kind: 'dead_letter', reason: error.code === 'untrusted_server_ips' ? 'untrusted_server_ips' : 'retries_exhausted', error };
  }
  // Due by the horizon's end, unless a server's reset hint (honoured up to 15 min) asks for later. The check on
  // receipt allows for that hint, so the retry is not taken for an event we did not schedule.
  const delayMs = retryDelayMs(event.attempt, policy.retry, elapsedMs, Math.min(retryFloorMs(error), MAX_SERVER_HINT_MS), random);
  const dueAt = now.getTime() + delayMs;
  const firstAttemptAt = event.firstAttemptAt ?? startedAt.toISOString();
  return {
    kind: 'requeue',
    holdMs: 0,
    delayMs,
    ...(policy.delayMode === 'native' && { delaySeconds: delaySecondsUntil(dueAt, now.getTime()) }),
    next: { ...event, attempt, firstAttemptAt, notBefore: new Date(dueAt).toISOString() },
    error,
  };
}
