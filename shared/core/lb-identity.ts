// How a load balancer is named in messages: by what the target gives before it is found, and by both its id and
// its name once it is (kOps' messages carry one; the error gives the other beside it as `lb`). And which LBs a target
// has: its `loadBalancer` in its zone, or each of its `loadBalancers` in its own zone.
import type { LbIdentity } from '../errors/lbsync-error';
import type { Target } from '../schemas/target';
import type { ObservedLb } from './model';

/** One LB of a target as the target names it: by exact name or by id, and its zone. */
export type LbPlace = ({ name: string } | { id: string }) & { zone: Target['zone'] };

type NamesLbs = Pick<Target, 'zone' | 'loadBalancer' | 'loadBalancers'>;

/** The target's LBs, in its order: its `loadBalancer` (in the target's zone), or each of its `loadBalancers`. */
export function targetLbs(target: NamesLbs): LbPlace[] {
  if (target.loadBalancers) return target.loadBalancers.map((lb) => ({ ...lb }));
  return target.loadBalancer ? [{ ...target.loadBalancer, zone: target.zone }] : [];
}

/** A target with several LBs: its answers, logs and views show each (a one-LB target keeps its one-LB shape). */
export function hasSeveralLbs(target: NamesLbs): boolean {
  return targetLbs(target).length > 1;
}

/**
 * The target as the steps for one of its LBs see it: that LB as its `loadBalancer`, in the LB's zone (every step that
 * calls the LB API reads `zone` and `loadBalancer`). Discovery never uses this view, because the servers are in the
 * target's zone.
 */
export function atLb(target: Target, place: LbPlace): Target {
  const { loadBalancers: _all, ...rest } = target;
  return { ...rest, zone: place.zone, loadBalancer: 'id' in place ? { id: place.id } : { name: place.name } };
}

/** Whether two entries name the same LB the same way (same zone, same name or id). */
export function samePlace(a: LbPlace | undefined, b: LbPlace | undefined): boolean {
  if (!a || !b || a.zone !== b.zone) return false;
  return 'id' in a ? 'id' in b && a.id === b.id : 'name' in b && a.name === b.name;
}

/** How messages name an LB of a target with several: `api.prod (fr-par-2)`. */
export function placeLabel(place: LbPlace): string {
  return `${'id' in place ? place.id : place.name} (${place.zone})`;
}

/** The target's reference to its LB: the id when it names one, else the name (the first LB of several). */
export function lbLabel(target: NamesLbs): string {
  const [first] = targetLbs(target);
  if (!first) return '';
  return 'id' in first ? first.id : first.name;
}

/** What the target says about its LB, before it is found; undefined for a target with several (no one LB is meant). */
export function targetLbIdentity(target: NamesLbs): LbIdentity | undefined {
  const lbs = targetLbs(target);
  const [only] = lbs;
  if (!only || lbs.length > 1) return undefined;
  return 'id' in only ? { id: only.id } : { name: only.name };
}

export function identityOf(lb: Pick<ObservedLb, 'id' | 'name'>): LbIdentity {
  return { id: lb.id, name: lb.name };
}
