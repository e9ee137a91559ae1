// No retry this system schedules is further out than the retry cap (LBSYNC_RETRY_CAP_MS; the
// disposition clips every delay to it). An event whose notBefore lies beyond it was not made by us,
// and would otherwise circulate, held and re-enqueued, until that date: it is refused instead.
import type { LbSyncError } from './errors';
import { validationError } from './errors';

/** Clocks of two invocations may differ a little; no more is tolerated. */
export const CLOCK_SKEW_MS = 5_000;

export function notBeforeBeyondCap(notBefore: string | undefined, now: Date, capMs: number): LbSyncError | undefined {
  if (notBefore === undefined) return undefined;
  const aheadMs = Date.parse(notBefore) - now.getTime();
  if (!(aheadMs > capMs + CLOCK_SKEW_MS)) return undefined;
  return validationError('invalid_event', 'event', [
    {
      path: 'event.notBefore',
      message: `is ${Math.round(aheadMs / 1000)} s ahead, further than any retry is scheduled (LBSYNC_RETRY_CAP_MS, ${capMs} ms)`,
      received: JSON.stringify(notBefore),
      fix: 'notBefore is set by the system only; send the event again without it (lbsync dlq redrive does)',
    },
  ]);
}
