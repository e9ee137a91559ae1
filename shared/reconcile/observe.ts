import type { GatewayStep } from '../adapters/api-failure';
import { callGateway } from '../adapters/api-failure';
import type { ScalewayGateway } from '../adapters/scaleway';
import { identityOf, lbLabel, targetLbIdentity } from '../core/lb-identity';
import { admitLbs, assertAskedLb, otherLbItems } from '../core/discovery-check';
import type { DuplicateBackends, ObservedBackend, ObservedBackends, ObservedLb, LeftOutAnswer } from '../core/model';
import { inTransientState, isBroken, olderFirst } from '../core/model';
import { attachmentProblem } from '../core/private-network';
import { kopsMessage } from '../errors/kops-messages';
import { LbSyncError } from '../errors/lbsync-error';
import type { Target } from '../schemas/target';

/** The target's LB as found, and the other LBs the answer carried (named in a discovery_filter_mismatch). */
export interface FoundLb {
  lb: ObservedLb;
  leftOut: LeftOutAnswer[];
}

/**
 * Finds the target's LB by id (GetLb) or by exact name across all pages (ListLbs?name=). We then check the answer
 * on our side (discovery-check.ts), so we never write to an LB of another id or zone.
 */
export async function findLb(gateway: ScalewayGateway, target: Target): Promise<FoundLb> {
  const ref = target.loadBalancer;
  // A target with several LBs finds each through its own view (atLb), which carries that LB's zone.
  if (!ref || target.loadBalancers) throw new Error(`findLb takes one LB: target ${target.name} names several (see atLb)`);
  const label = lbLabel(target);
  const lb = targetLbIdentity(target);
  if ('id' in ref) {
    const answered = await callGateway({
      message: kopsMessage.findLb(label),
      notFound: 'lb_not_found',
      lb,
      run: () => gateway.getLb(target.zone, ref.id),
    });
    return { lb: assertAskedLb(answered, { zone: target.zone, id: ref.id }, kopsMessage.findLb(label)), leftOut: [] };
  }
  const listed = await callGateway({
    message: kopsMessage.findLb(label),
    // A list says "none" with an empty page, never a 404. So a 404 here says nothing about the LB.
    notFound: 'unknown_api_error',
    lb,
    run: () => gateway.findLbsByName(target.zone, ref.name),
  });
  const { admitted: matches, leftOut } = admitLbs(listed, { zone: target.zone, name: ref.name });
  if (matches.length === 0) {
    const named = leftOut.length > 0 ? ` (the API answered ${leftOut.map((r) => `${r.what}, which ${r.why}`).join('; ')})` : '';
    throw new LbSyncError('lb_not_found', `${kopsMessage.findLb(label)}: no load-balancer named "${ref.name}" in ${target.zone}${named}`, {
      lb,
    });
  }
  if (matches.length > 1) {
    const ids = matches.map((found) => found.id).join(', ');
    throw new LbSyncError(
      'lb_ambiguous',
      `${kopsMessage.findLb(label)}: ${matches.length} load-balancers are named "${ref.name}" (${ids})`,
      { lb },
    );
  }
  return { lb: matches[0] as ObservedLb, leftOut };
}

/** Writes are made only while lb.status is ready; transient states wait, broken ones need a human. */
export function assertWritable(lb: ObservedLb): void {
  if (inTransientState(lb)) {
    throw new LbSyncError('lb_transient_state', `${kopsMessage.waitLb(lb.name)}: load-balancer is ${lb.status}`, { lb: identityOf(lb) });
  }
  if (isBroken(lb)) {
    throw new LbSyncError('lb_not_ready', `${kopsMessage.waitLb(lb.name)}: load-balancer is ${lb.status}`, { lb: identityOf(lb) });
  }
}

/**
 * One rule for every listing of the LB's own resources (backends, frontends, private-network attachments). If one
 * item names another LB, the whole answer is lb_answer_mismatch, as when GetLb answers with another id. We cannot
 * trust the rest of such an answer either. Using it without that item could make the reconcile create a backend the
 * frontend does not use, or take another LB's backend for ours.
 */
export function assertOwnListing<T>(
  items: readonly T[],
  lbIdsOf: (item: T) => readonly (string | undefined)[],
  what: (item: T) => string,
  lb: Pick<ObservedLb, 'id' | 'name'>,
  message: string,
): T[] {
  const others = otherLbItems(items, lbIdsOf, lb.id, what);
  if (others.length === 0) return [...items];
  throw new LbSyncError(
    'lb_answer_mismatch',
    `${message}: the API answered ${others.map((o) => `${o.what}, which ${o.why}`).join('; ')}: the answer is not used, and nothing is written from it`,
    { lb: identityOf(lb) },
  );
}

/** The LB's backends (all pages), checked by the rule for its listings. `message` names the step that reads them. */
export async function listOwnBackends(
  gateway: ScalewayGateway,
  zone: string,
  lb: Pick<ObservedLb, 'id' | 'name'>,
  message = kopsMessage.listBackends(lb.id),
): Promise<ObservedBackend[]> {
  const listed = await callGateway({ ...listingBackendsOf(lb, () => gateway.listBackends(zone, lb.id)), message });
  return assertOwnListing(
    listed,
    (backend) => [backend.lbId],
    (backend) => `backend ${backend.name} (${backend.id})`,
    lb,
    message,
  );
}

/**
 * Lists the LB's backends (all pages, one call for every backend of the target) and picks by exact name.
 * The frontends are read (one more call) only when two backends share a name. The one a frontend uses is
 * kept (else the oldest), so traffic is never moved off it.
 */
export async function observeBackends(gateway: ScalewayGateway, target: Target, lb: ObservedLb): Promise<ObservedBackends> {
  const all = await listOwnBackends(gateway, target.zone, lb);
  const groups = target.backends
    .map((b) => ({ name: b.name, same: all.filter((o) => o.name === b.name).sort(olderFirst) }))
    .filter((g) => g.same.length > 0);
  const inUse = groups.some((g) => g.same.length > 1) ? await frontendBackendIds(gateway, target.zone, lb) : new Set<string>();
  const byName = new Map<string, ObservedBackend>();
  const duplicates: DuplicateBackends[] = [];
  for (const { name, same } of groups) {
    const kept = same.find((b) => inUse.has(b.id)) ?? (same[0] as ObservedBackend);
    byName.set(name, kept);
    const others = same.filter((b) => b.id !== kept.id);
    if (others.length > 0) duplicates.push({ name, kept, others, inUse });
  }
  return { byName, duplicates };
}

/** A failed read of the backends or frontends is named in kOps' listing words, with the LB id, as kOps' Find does. */
function listingBackendsOf<T>(lb: Pick<ObservedLb, 'id' | 'name'>, run: () => Promise<T>): GatewayStep<T> {
  return { message: kopsMessage.listBackends(lb.id), notFound: 'lb_not_found', lb: identityOf(lb), run };
}

async function frontendBackendIds(gateway: ScalewayGateway, zone: string, lb: ObservedLb): Promise<Set<string>> {
  const step = listingBackendsOf(lb, () => gateway.listFrontends(zone, lb.id));
  const frontends = assertOwnListing(
    await callGateway(step),
    (frontend) => frontend.lbIds,
    (frontend) => `frontend ${frontend.id}`,
    lb,
    step.message,
  );
  return new Set(frontends.flatMap((frontend) => (frontend.backendId ? [frontend.backendId] : [])));
}

/**
 * ipam-private: the LB must be attached, and `ready`, on the private network of the pool's addresses
 * (ListLbPrivateNetworks, one call). Otherwise nothing is written: private_network_not_attached or
 * private_network_attaching.
 */
export async function assertLbOnNetwork(gateway: ScalewayGateway, zone: string, lb: ObservedLb, privateNetworkId: string): Promise<void> {
  const message = kopsMessage.privateNetworks(lb.name);
  const listed = await callGateway({
    message,
    notFound: 'lb_not_found',
    lb: identityOf(lb),
    run: () => gateway.listLbPrivateNetworks(zone, lb.id),
  });
  const attachments = assertOwnListing(
    listed,
    (attachment) => [attachment.lbId],
    (attachment) => `attachment to private network ${attachment.privateNetworkId}`,
    lb,
    message,
  );
  const problem = attachmentProblem(attachments, privateNetworkId, lb, message);
  if (problem) throw problem;
}
