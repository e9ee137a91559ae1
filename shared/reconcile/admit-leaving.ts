import type { ScalewayGateway } from '../adapters/scaleway';
import type { DiscoveredPool } from '../core/desired';
import type { BackendLeaving, LeavingMember } from '../core/leaving';
import { decideLeaving } from '../core/leaving';
import type { DesiredBackend, ObservedBackend, ObservedLb, LeftOutAnswer } from '../core/model';
import { normalisePool } from '../core/pool';
import { memberHealth } from '../core/rollout';
import type { Target } from '../schemas/target';
import { readBackendHealth } from './stage-removals';

export interface DesiredWithLeaving {
  desired: DesiredBackend[];
  /** Every leaving server, per backend, and what its pool does with it. */
  leaving: LeavingMember[];
  /** Health reports in the answers that were about another backend (named in discovery_filter_mismatch). */
  leftOut: LeftOutAnswer[];
}

/**
 * Each backend's desired pool: discovery's servers, plus the leaving servers already in it, plus (rarely) leaving
 * servers it needs because no other member would pass (shared/core/leaving.ts). The backend's health is read
 * (ListBackendStats, once) only when it decides the answer. That is when a leaving server is out of the pool and
 * others could serve, as between kOps deregistering a control plane and terminating it.
 */
export async function desiredWithLeaving(
  gateway: ScalewayGateway,
  target: Target,
  lb: Pick<ObservedLb, 'id' | 'name'>,
  pool: DiscoveredPool,
  observed: ReadonlyMap<string, ObservedBackend>,
): Promise<DesiredWithLeaving> {
  const desired: DesiredBackend[] = [];
  const leaving: LeavingMember[] = [];
  const leftOut: LeftOutAnswer[] = [];
  for (const spec of target.backends) {
    const backend = observed.get(spec.name);
    const input = { backend: spec.name, joining: pool.ips, marked: pool.marked, current: backend?.pool };
    let decision = decideLeaving(input);
    if (decision === 'needs_health' && backend) {
      const read = await readBackendHealth(gateway, target, lb, backend.id);
      leftOut.push(...read.leftOut);
      decision = decideLeaving({ ...input, health: memberHealth(read.reports) }) as BackendLeaving;
    }
    const decided = decision as BackendLeaving;
    desired.push({ spec, pool: normalisePool(decided.pool) });
    // A backend that is absent and never created (kops-controller in "auto") has no members, so there is nothing to tell.
    if (backend || spec.createIfMissing) leaving.push(...decided.leaving);
  }
  return { desired, leaving, leftOut };
}
