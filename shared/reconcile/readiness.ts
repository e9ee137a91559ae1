import { tryGateway } from '../adapters/api-failure';
import type { ScalewayGateway } from '../adapters/scaleway';
import { retryFloorMs } from '../core/backoff';
import { assertAskedLb } from '../core/discovery-check';
import { identityOf } from '../core/lb-identity';
import type { ObservedLb } from '../core/model';
import { inTransientState, isApplied, isBroken } from '../core/model';
import { kopsMessage } from '../errors/kops-messages';
import { LbSyncError } from '../errors/lbsync-error';
import type { Clock, Deadline } from '../platform/deadline';
import { NO_DEADLINE } from '../platform/deadline';

/** The LB being waited for: its id to poll, its name for kOps' message. */
type LbRef = Pick<ObservedLb, 'id' | 'name'>;

const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 1_000;

/** What a wait needs from its invocation: the clock, and the deadline (the CLI has none, so nothing is cut). */
export interface Waiting {
  clock: Clock;
  deadline?: Deadline;
}

/**
 * Polls GetLb until `done(lb)`, within budgetMs, with our own bounded backoff instead of the SDK's 5-minute waiter.
 * budgetMs is already cut to the invocation's deadline, and polling stops when its signal aborts. Polling goes on
 * through transient API failures, waiting at least a 429's floor (retryFloorMs). Other failures are thrown, as is
 * the error `giveUp` returns for an LB that will never be done. Returns the last LB seen.
 */
async function pollLb(
  gateway: ScalewayGateway,
  zone: string,
  lb: LbRef,
  budgetMs: number,
  done: (lb: ObservedLb) => boolean,
  { clock, deadline: invocation = NO_DEADLINE }: Waiting,
  giveUp: (lb: ObservedLb) => LbSyncError | undefined = () => undefined,
): Promise<{ lb?: ObservedLb; reached: boolean }> {
  const deadline = clock.now() + budgetMs;
  let delay = FIRST_POLL_MS;
  let last: ObservedLb | undefined;
  for (;;) {
    let floor = 0;
    const answer = await tryGateway({
      message: kopsMessage.waitLb(lb.name),
      notFound: 'lb_not_found',
      lb: identityOf(lb),
      run: () => gateway.getLb(zone, lb.id),
    });
    // The next write goes to the LB polled here, so an answer about another LB must never be taken for it.
    if (!('error' in answer)) assertAskedLb(answer.value, { zone, id: lb.id }, kopsMessage.waitLb(lb.name));
    if ('error' in answer) {
      if (!answer.error.transient) throw answer.error;
      floor = retryFloorMs(answer.error);
    } else {
      last = answer.value;
      if (done(last)) return { lb: last, reached: true };
      const hopeless = giveUp(last);
      if (hopeless) throw hopeless;
    }
    const remaining = deadline - clock.now();
    // Stop if a 429's floor does not fit in the budget: an earlier call would only be refused again.
    if (remaining <= 0 || floor > remaining || invocation.signal.aborted) return { ...(last && { lb: last }), reached: false };
    await clock.sleep(Math.min(Math.max(delay, floor), remaining));
    delay = Math.min(MAX_POLL_MS, Math.round(delay * 1.3));
  }
}

/** While waiting for a write to apply: an LB that turned locked, stopped or in error will not get there. */
function brokenWhileWaiting(target: LbRef): (lb: ObservedLb) => LbSyncError | undefined {
  return (lb) =>
    isBroken(lb)
      ? new LbSyncError('lb_not_ready', `${kopsMessage.waitLb(target.name)}: load-balancer is ${lb.status}`, { lb: identityOf(target) })
      : undefined;
}

/**
 * After a write, waits until the LB and all its instances report ready again, within the budget (cut to the
 * deadline). Running out of budget is a transient error.
 */
export async function waitUntilApplied(
  gateway: ScalewayGateway,
  zone: string,
  target: LbRef,
  budget: number,
  waiting: Waiting,
): Promise<ObservedLb> {
  const budgetMs = (waiting.deadline ?? NO_DEADLINE).clip(budget);
  const { lb, reached } = await pollLb(gateway, zone, target, budgetMs, isApplied, waiting, brokenWhileWaiting(target));
  if (reached && lb) return lb;
  const state = lb ? `status ${lb.status}, instances ${lb.instanceStatuses.join('/') || 'none'}` : 'no answer';
  throw new LbSyncError('apply_timeout', `${kopsMessage.waitLb(target.name)}: not ready after ${budgetMs} ms (${state})`, {
    lb: identityOf(target),
  });
}

/**
 * Before writing to an LB in a transient state, waits a little in this invocation (cut to the deadline). Most such
 * states last seconds, and a re-enqueue with backoff would add a random delay on top. Returns the LB as last seen.
 */
export async function waitWhileTransient(
  gateway: ScalewayGateway,
  zone: string,
  lb: ObservedLb,
  budget: number,
  waiting: Waiting,
): Promise<ObservedLb> {
  const budgetMs = (waiting.deadline ?? NO_DEADLINE).clip(budget);
  if (!inTransientState(lb) || budgetMs <= 0) return lb;
  const polled = await pollLb(gateway, zone, lb, budgetMs, (seen) => !inTransientState(seen), waiting);
  return polled.lb ?? lb;
}
