// What a reconcile would write, as doctor's plan line: the reconciler's own dry run, told.
import { describeLeaving } from '../../shared/core/leaving';
import { describeRollout } from '../../shared/core/rollout-text';
import type { ReconcileResult } from '../../shared/reconcile/reconcile-target';
import { describePlanned } from '../../shared/reconcile/reconcile-lines';
import { type Check, failedWith, ok } from './check';
import { KeyRefused } from './key-refused';

/** The plan line of a dry run's result; a refused key stops the key's checks instead. */
export function planCheck(name: string, result: ReconcileResult): Check {
  const planParts = result.lbs ?? [result];
  if (result.error) {
    if (result.error.code === 'authentication_denied') throw new KeyRefused(result.error);
    return failedWith(name, result.error);
  }
  if (result.planned.length === 0 && !planParts.some((r) => r.rollouts?.some((b) => b.rollout.deferred.length > 0))) {
    const notes = [...planParts.flatMap((r) => describeLeaving(r.leaving ?? [])), ...result.warnings];
    return ok(name, `in sync: a reconcile would write nothing${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`);
  }
  const writes =
    result.planned.length > 0 ? `a reconcile would write: ${describePlanned(result).join('; ')}` : 'a reconcile would write nothing now';
  const staged = planParts.flatMap((r) => [...describeLeaving(r.leaving ?? []), ...(r.rollouts ?? []).flatMap(describeRollout)]);
  return ok(name, `${writes}${staged.length > 0 ? `; ${staged.join('; ')}` : ''} (see \`lbsync plan\`)`);
}
