import type { ScalewayGateway } from '../adapters/scaleway';
import { kopsMessage, wrapApiFailure } from '../api-errors';
import { LbSyncError } from '../errors';
import type { ObservedLb } from '../model';
import { TRANSIENT_LB_STATUSES } from '../model';
import { identityOf, isApplied } from './observe';

/** The LB being waited for: its id to poll, its name for kOps' message. */
type LbRef = Pick<ObservedLb, 'id' | 'name'>;

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 1_000;

export interface Clock {
  sleep: Sleep;
  now: () => number;
}

/**
 * Polls GetLb until `done(lb)`, within budgetMs, with our own bounded backoff (not the SDK's 5-minute
 * waiter). Transient API failures are polled through; others are thrown. Returns the last LB seen.
 */
async function pollLb(
  gateway: ScalewayGateway,
  zone: string,
  lb: LbRef,
  budgetMs: number,
  done: (lb: ObservedLb) => boolean,
  clock: Clock,
): Promise<{ lb?: ObservedLb; reached: boolean }> {
  const deadline = clock.now() + budgetMs;
  let delay = FIRST_POLL_MS;
  let last: ObservedLb | undefined;
  for (;;) {
    try {
      last = await gateway.getLb(zone, lb.id);
      if (done(last)) return { lb: last, reached: true };
    } catch (error) {
      const wrapped = wrapApiFailure(kopsMessage.waitLb(lb.name), error, 'lb_not_found', identityOf(lb));
      if (!wrapped.transient) throw wrapped;
    }
    const remaining = deadline - clock.now();
    if (remaining <= 0) return { ...(last && { lb: last }), reached: false };
    await clock.sleep(Math.min(delay, remaining));
    delay = Math.min(MAX_POLL_MS, Math.round(delay * 1.3));
  }
}

/** After a write: until the LB and all its instances report ready again. An exhausted budget is transient. */
export async function waitUntilApplied(gateway: ScalewayGateway, zone: string, target: LbRef, budgetMs: number, clock: Clock): Promise<ObservedLb> {
  const { lb, reached } = await pollLb(gateway, zone, target, budgetMs, isApplied, clock);
  if (reached && lb) return lb;
  const state = lb ? `status ${lb.status}, instances ${lb.instanceStatuses.join('/') || 'none'}` : 'no answer';
  throw new LbSyncError('apply_timeout', `${kopsMessage.waitLb(target.name)}: not ready after ${budgetMs} ms (${state})`, { lb: identityOf(target) });
}

export function inTransientState(lb: ObservedLb): boolean {
  return (TRANSIENT_LB_STATUSES as readonly string[]).includes(lb.status);
}

/**
 * Before writing to an LB in a transient state: a short wait in this invocation, since most such states
 * last seconds and a re-enqueue with backoff would add a random delay on top. Returns the LB as last seen.
 */
export async function waitWhileTransient(gateway: ScalewayGateway, zone: string, lb: ObservedLb, budgetMs: number, clock: Clock): Promise<ObservedLb> {
  if (!inTransientState(lb) || budgetMs <= 0) return lb;
  const polled = await pollLb(gateway, zone, lb, budgetMs, (seen) => !inTransientState(seen), clock);
  return polled.lb ?? lb;
}
