// What a dry run read, and where it stopped when a read failed: a view of a target shows a backend's state
// (in sync, drift) only when every read its plan needs answered, and otherwise the failure. Pure; used by
// `lbsync plan` (plan-view.ts), for any view built from a ReconcileResult.
import { kopsMessage } from '../shared/errors/kops-messages';
import type { ReconcileResult } from '../shared/reconcile/reconcile-target';

export interface PlanCoverage {
  /** Every read the plan needs answered: the planned actions are the whole plan, so "in sync" means it. */
  complete: boolean;
  /** What the run had read when it stopped (a read still in flight then counts as not read). */
  read: { lb: boolean; backends: boolean; servers: boolean };
  /** When not complete: the step the run stopped at, in words, with the error's code. */
  stoppedAt?: { step: string; code: string };
}

/** The step a reconcile stopped at, from what it had read and the error it stopped with. */
function stepStoppedAt(result: ReconcileResult, read: PlanCoverage['read']): string {
  if (!read.lb) return 'the load balancer could not be read';
  if (!read.backends) return 'the backends could not be read';
  if (!read.servers) return 'the servers could not be read, so the desired pool is unknown';
  if (result.error?.code === 'no_servers') return 'no server with an address matches the tags, so the pool is left as it is';
  if (result.lb && result.error?.message.startsWith(kopsMessage.backendHealth(result.lb.name)))
    return "the LB's health checks could not be read, so the removals could not be judged";
  return 'the plan could not be completed';
}

/** How far a dry run (`reconcileTarget` with dryRun) got. */
export function planCoverage(result: ReconcileResult): PlanCoverage {
  const read = { lb: result.lb !== undefined, backends: result.observedBackends !== undefined, servers: result.pool !== undefined };
  if (result.status !== 'failed' || !result.error) return { complete: true, read };
  return { complete: false, read, stoppedAt: { step: stepStoppedAt(result, read), code: result.error.code } };
}
