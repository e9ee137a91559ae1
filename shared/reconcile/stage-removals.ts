import { callGateway } from '../adapters/api-failure';
import type { ScalewayGateway } from '../adapters/scaleway';
import type { DiscoveredPool } from '../core/desired';
import { identityOf } from '../core/lb-identity';
import { ownHealthReports } from '../core/discovery-check';
import type { Action, ObservedLb, ObservedMemberHealth, LeftOutAnswer } from '../core/model';
import { normalisePool, samePool } from '../core/pool';
import type { BackendRollout, DeferralCode, MemberHealthView } from '../core/rollout';
import { memberHealth, planRollout } from '../core/rollout';
import { kopsMessage } from '../errors/kops-messages';
import { LbSyncError } from '../errors/lbsync-error';
import type { Target } from '../schemas/target';

type SetPool = Extract<Action, { kind: 'SetBackendServers' }>;

export interface StagedActions {
  actions: Action[];
  rollouts: BackendRollout[];
  /** Why some removals wait (removal_deferred / discovery_suspect, transient): the caller retries. */
  deferral?: LbSyncError;
  /** Health reports in the answers that were about another backend (left out, named in discovery_filter_mismatch). */
  leftOut: LeftOutAnswer[];
}

const poolBefore = (action: SetPool): string[] =>
  normalisePool([...action.pool.filter((ip) => !action.added.includes(ip)), ...action.removed]);

/**
 * The thin I/O step around shared/core/rollout.ts. Before a pool write that removes members, it reads that backend's
 * health (ListBackendStats, one call) and cuts the write down to what is safe now. It skips the read when the write
 * only adds, or when every member to remove belongs to a server known to be stopped or stopping.
 */
export async function stageRemovals(
  gateway: ScalewayGateway,
  target: Target,
  lb: ObservedLb,
  actions: readonly Action[],
  pool: DiscoveredPool,
): Promise<StagedActions> {
  const leaving = new Map(pool.leaving.flatMap((s) => s.ips.map((ip) => [ip, `server ${s.server} is ${s.state}`] as const)));
  const staged: Action[] = [];
  const rollouts: BackendRollout[] = [];
  const reasons: string[] = [];
  const leftOut: LeftOutAnswer[] = [];
  let deferralCode: DeferralCode = 'removal_deferred';
  for (const action of actions) {
    if (action.kind !== 'SetBackendServers' || action.removed.length === 0) {
      staged.push(action);
      continue;
    }
    const current = poolBefore(action);
    const needsHealth = action.removed.some((ip) => !leaving.has(ip));
    const read = needsHealth ? await readBackendHealth(gateway, target, lb, action.backendId) : undefined;
    if (read) leftOut.push(...read.leftOut);
    const health = read ? memberHealth(read.reports) : new Map<string, MemberHealthView>();
    const rollout = planRollout({
      current,
      desired: action.pool,
      health,
      leaving,
      maxUnavailable: target.maxUnavailable,
      trustPartialDiscovery: target.trustPartialDiscovery,
    });
    rollouts.push({ backend: action.backend, rollout, health: Object.fromEntries(health) });
    if (rollout.deferral) {
      if (rollout.deferral.code === 'discovery_suspect') deferralCode = 'discovery_suspect';
      reasons.push(`backend ${action.backend} keeps ${rollout.deferred.map((d) => d.ip).join(', ')} for now: ${rollout.deferral.reason}`);
    }
    if (samePool(rollout.pool, current)) continue;
    // Do not write a whole pool from a read that discovery makes suspect. Writing only the changes cannot put back
    // what another writer removed since (kOps' apply, or a concurrent reconcile of the same target).
    const suspect = rollout.deferral?.code === 'discovery_suspect' ? { changesOnly: 'discovery_suspect' as const } : {};
    staged.push({ ...action, pool: rollout.pool, added: rollout.added, removed: rollout.removed.map((r) => r.ip), ...suspect });
  }
  const deferral =
    reasons.length > 0
      ? new LbSyncError(deferralCode, `${kopsMessage.setServers(lb.name)}: ${reasons.join('; ')}`, { lb: identityOf(lb) })
      : undefined;
  return { actions: staged, rollouts, leftOut, ...(deferral && { deferral }) };
}

/**
 * The LB's health checks of one backend's members (ListBackendStats, one call), with failures worded as kOps words
 * them. Only that backend's reports are kept (discovery-check.ts); the others are named in `leftOut`.
 */
export async function readBackendHealth(
  gateway: ScalewayGateway,
  target: Target,
  lb: Pick<ObservedLb, 'id' | 'name'>,
  backendId: string,
): Promise<{ reports: ObservedMemberHealth[]; leftOut: LeftOutAnswer[] }> {
  const answered = await callGateway({
    message: kopsMessage.backendHealth(lb.name),
    notFound: 'backend_not_found',
    lb: identityOf(lb),
    run: () => gateway.listBackendHealth(target.zone, lb.id, backendId),
  });
  const { own, leftOut } = ownHealthReports(answered, backendId);
  return { reports: own, leftOut };
}
