// How far out a retry is ever scheduled: the backoff's draw never exceeds the retry cap
// (LBSYNC_RETRY_CAP_MS), and it is added to a floor (a server's rate-limit reset hint) honoured up to
// 15 minutes (the longest delay SQS itself holds a message). An event whose notBefore lies beyond that
// horizon was not scheduled by us, and would otherwise circulate, held and re-enqueued, until that date:
// the reconcile refuses it instead.
import type { LbSyncError } from '../errors/lbsync-error';
import { validationError } from '../errors/lbsync-error';

/** The longest server reset hint a retry waits for. */
export const MAX_SERVER_HINT_MS = 900_000;
/** Clocks of two invocations may differ a little; no more is tolerated. */
export const CLOCK_SKEW_MS = 5_000;

export function retryHorizonMs(capMs: number): number {
  return capMs + MAX_SERVER_HINT_MS;
}

export function notBeforeBeyondHorizon(notBefore: string | undefined, now: Date, capMs: number): LbSyncError | undefined {
  if (notBefore === undefined) return undefined;
  const aheadMs = Date.parse(notBefore) - now.getTime();
  const horizonMs = retryHorizonMs(capMs);
  if (!(aheadMs > horizonMs + CLOCK_SKEW_MS)) return undefined;
  return validationError('invalid_event', 'event', [
    {
      path: 'event.notBefore',
      message: `is ${Math.round(aheadMs / 1000)} s ahead, further than any retry is scheduled (${Math.round(horizonMs / 1000)} s: LBSYNC_RETRY_CAP_MS above a server's reset hint of up to 15 minutes)`,
      received: JSON.stringify(notBefore),
      fix: 'notBefore is set by the system only; send the event again without it (lbsync dlq redrive does)',
    },
  ]);
}
