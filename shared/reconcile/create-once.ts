import type { ScalewayGateway } from '../adapters/scaleway';
import type { Action, ObservedBackend, ObservedLb } from '../core/model';
import { olderFirst } from '../core/model';
import { kopsMessage } from '../errors/kops-messages';
import { listOwnBackends } from './observe';

/**
 * CreateBackend that leaves one backend even when reconciles of one target race.
 * The API has no create-if-absent, so each racer may create one. After creating, every racer
 * re-lists the backends of that name and applies the same rule: the oldest (created_at, then id)
 * stays, and a racer whose own backend is not the oldest deletes it. All racers see the same
 * list order, so exactly one backend remains whatever the interleaving. Backends we did not
 * create are never deleted. The re-list follows the rule of every listing of the LB (observe.ts): if it
 * names another LB, it is lb_answer_mismatch, and our backend stays as created.
 */
export async function createBackendOnce(
  gateway: ScalewayGateway,
  zone: string,
  lb: Pick<ObservedLb, 'id' | 'name'>,
  action: Extract<Action, { kind: 'CreateBackend' }>,
): Promise<{ kept: ObservedBackend; removedOwnDuplicate: boolean }> {
  const created = await gateway.createBackend(zone, lb.id, action);
  const relisting = `${kopsMessage.createBackend(lb.name)}: re-listing its back-ends after creating ${created.id}`;
  const sameName = (await listOwnBackends(gateway, zone, lb, relisting)).filter((b) => b.name === action.backend).sort(olderFirst);
  const oldest = sameName[0] ?? created;
  if (oldest.id === created.id) return { kept: created, removedOwnDuplicate: false };
  await gateway.deleteBackendIfExists(zone, created.id); // another reconcile may have removed it already
  return { kept: oldest, removedOwnDuplicate: true };
}
