import type { ScalewayGateway } from '../adapters/scaleway';
import { kopsMessage, wrapApiFailure } from '../api-errors';
import { LbSyncError } from '../errors';
import type { ObservedBackend, ObservedLb } from '../model';
import { BROKEN_LB_STATUSES, TRANSIENT_LB_STATUSES } from '../model';
import type { Target } from '../schemas/target';

export function lbLabel(target: Target): string {
  return 'id' in target.loadBalancer ? target.loadBalancer.id : target.loadBalancer.name;
}

/** Finds the target's LB by id (GetLb) or by exact name across all pages (ListLbs?name=). */
export async function findLb(gateway: ScalewayGateway, target: Target): Promise<ObservedLb> {
  const ref = target.loadBalancer;
  const label = lbLabel(target);
  if ('id' in ref) {
    try {
      return await gateway.getLb(target.zone, ref.id);
    } catch (error) {
      throw wrapApiFailure(kopsMessage.findLb(label), error, 'lb_not_found');
    }
  }
  let matches: ObservedLb[];
  try {
    matches = await gateway.findLbsByName(target.zone, ref.name);
  } catch (error) {
    throw wrapApiFailure(kopsMessage.findLb(label), error, 'lb_not_found');
  }
  if (matches.length === 0) {
    throw new LbSyncError('lb_not_found', `${kopsMessage.findLb(label)}: no load-balancer named "${ref.name}" in ${target.zone}`);
  }
  if (matches.length > 1) {
    const ids = matches.map((lb) => lb.id).join(', ');
    throw new LbSyncError('lb_ambiguous', `${kopsMessage.findLb(label)}: ${matches.length} load-balancers are named "${ref.name}" (${ids})`);
  }
  return matches[0] as ObservedLb;
}

/** Writes are made only while lb.status is ready; transient states wait, broken ones need a human. */
export function assertWritable(lb: ObservedLb): void {
  if ((TRANSIENT_LB_STATUSES as readonly string[]).includes(lb.status)) {
    throw new LbSyncError('lb_transient_state', `${kopsMessage.waitLb(lb.id)}: load-balancer is ${lb.status}`);
  }
  if ((BROKEN_LB_STATUSES as readonly string[]).includes(lb.status)) {
    throw new LbSyncError('lb_not_ready', `${kopsMessage.waitLb(lb.id)}: load-balancer is ${lb.status}`);
  }
}

export function isApplied(lb: ObservedLb): boolean {
  return lb.status === 'ready' && lb.instanceStatuses.every((status) => status === 'ready');
}

export interface ObservedBackends {
  byName: Map<string, ObservedBackend>;
  /** Names that more than one backend carries: the oldest is used, the others are reported. */
  duplicates: { name: string; kept: string; others: string[] }[];
}

/** The order every reconcile agrees on: oldest first (created_at, then id). */
export function olderFirst(a: ObservedBackend, b: ObservedBackend): number {
  const byDate = (a.createdAt ?? '').localeCompare(b.createdAt ?? '');
  return byDate !== 0 ? byDate : a.id.localeCompare(b.id);
}

/** Lists the LB's backends (all pages, one call for every backend of the target) and picks by exact name. */
export async function observeBackends(gateway: ScalewayGateway, target: Target, lb: ObservedLb): Promise<ObservedBackends> {
  let all: ObservedBackend[];
  try {
    all = await gateway.listBackends(target.zone, lb.id);
  } catch (error) {
    throw wrapApiFailure(kopsMessage.listBackends(lb.id), error, 'lb_not_found');
  }
  const wanted = new Set(target.backends.map((b) => b.name));
  const byName = new Map<string, ObservedBackend>();
  const duplicates: ObservedBackends['duplicates'] = [];
  for (const name of wanted) {
    const same = all.filter((b) => b.name === name).sort(olderFirst);
    const [oldest, ...others] = same;
    if (!oldest) continue;
    byName.set(name, oldest);
    if (others.length > 0) duplicates.push({ name, kept: oldest.id, others: others.map((b) => b.id) });
  }
  return { byName, duplicates };
}
