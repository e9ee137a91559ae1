// How a load balancer is named in messages: by what the target gives before it is found, by both its id and
// its name once it is (kOps' messages carry one, the other travels beside it as `lb`).
import type { LbIdentity } from '../errors/lbsync-error';
import type { Target } from '../schemas/target';
import type { ObservedLb } from './model';

/** The target's reference to its LB: the id when it names one, else the name. */
export function lbLabel(target: Target): string {
  return 'id' in target.loadBalancer ? target.loadBalancer.id : target.loadBalancer.name;
}

/** What the target says about its LB, before it is found. */
export function targetLbIdentity(target: Target): LbIdentity {
  return 'id' in target.loadBalancer ? { id: target.loadBalancer.id } : { name: target.loadBalancer.name };
}

export function identityOf(lb: Pick<ObservedLb, 'id' | 'name'>): LbIdentity {
  return { id: lb.id, name: lb.name };
}
