import type { ScalewayGateway } from '../adapters/scaleway';
import { kopsMessage, wrapApiFailure } from '../api-errors';
import { LbSyncError } from '../errors';
import type { ObservedLb } from '../model';
import { isApplied } from './observe';

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 1_000;

/**
 * Polls GetLb until the LB and all its instances are ready again, within budgetMs.
 * Our own bounded backoff, not the SDK's 5-minute waiter: an exhausted budget is a transient result.
 */
export async function waitUntilApplied(
  gateway: ScalewayGateway,
  zone: string,
  lbId: string,
  budgetMs: number,
  sleep: Sleep = realSleep,
  now: () => number = Date.now,
): Promise<ObservedLb> {
  const deadline = now() + budgetMs;
  let delay = FIRST_POLL_MS;
  let last: ObservedLb | undefined;
  for (;;) {
    try {
      last = await gateway.getLb(zone, lbId);
      if (isApplied(last)) return last;
    } catch (error) {
      const wrapped = wrapApiFailure(kopsMessage.waitLb(lbId), error, 'lb_not_found');
      if (!wrapped.transient) throw wrapped;
    }
    const remaining = deadline - now();
    if (remaining <= 0) break;
    await sleep(Math.min(delay, remaining));
    delay = Math.min(MAX_POLL_MS, Math.round(delay * 1.3));
  }
  const state = last ? `status ${last.status}, instances ${last.instanceStatuses.join('/') || 'none'}` : 'no answer';
  throw new LbSyncError('apply_timeout', `${kopsMessage.waitLb(lbId)}: not ready after ${budgetMs} ms (${state})`);
}
