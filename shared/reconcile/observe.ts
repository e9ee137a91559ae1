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

/** The target's LB as found, and what the answer carried that was not it (named in a discovery_filter_mismatch). */
export interface FoundLb {
  lb: ObservedLb;
  leftOut: LeftOutAnswer[];
}

/**
 * Finds the target's LB by id (GetLb) or by exact name across all pages (ListLbs?name=), then checks the answer on
 * our side (discovery-check.ts): an LB of another id or zone is never the one written to.
 */
export async function findLb(gateway: ScalewayGateway, target: Target): Promise<FoundLb> {
  const ref = target.loadBalancer;
  // A target with several LBs finds each through its own view (atLb): its zone is that LB's.
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
    // A list answers "none" with an empty page, never a 404: a 404 here is no verdict on the LB.
    notFound: 'unknown_api_error',
    lb,
    run: () => gateway.findLbsByName(target.zone, ref.name),
  });
  const { admitted: matches, leftOut } = admitLbs(listed, { zone: target.zone, name: ref.name });
  if (matches.length === 0) {
    const named = leftOut.length > 0 ? ` (the API answered ${leftOut.map((r) => `${r.what}, which ${r.why}`).join('; ')})` : '';
    throw new LbSyncError(
      'lb_not_found',
      `${kopsMessage.findLb(label)}: no load-balancer named "${ref.name}" in ${target.zone}${named}`,
      { lb },
    );
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
 * One rule for every listing of the LB's own resources (its backends, frontends, private-network attachments): an
 * item that names another LB makes the whole answer lb_answer_mismatch, as a GetLb answering another id does. Such
 * an answer is no word about this LB: leaving that item out and using the rest would have the reconcile create a
 * backend the frontend does not use, or take another LB's for ours.
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

/** The LB's backends (all pages), checked by the one rule of its listings; `message` tells the step that reads them. */
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
 * Only when a name is carried twice are the frontends read (one more call): the backend a frontend
 * uses is the one to keep (else the oldest), so traffic is never moved off it.
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

/** Reading the backends, frontends included, is told in kOps' listing words (with the LB id, as its Find does). */
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
 * ipam-private: the LB must be attached to the private network the pool's addresses are on, `ready`
 * (ListLbPrivateNetworks, one call): else private_network_not_attached / private_network_attaching, nothing written.
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
