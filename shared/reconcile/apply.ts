import type { GatewayStep } from '../adapters/api-failure';
import { classifyApiFailure, invalidArgumentNames, tryGateway } from '../adapters/api-failure';
import type { ScalewayGateway } from '../adapters/scaleway';
import { identityOf } from '../core/lb-identity';
import type { Action, ObservedLb } from '../core/model';
import { addressesSent, refusedIpv6Members } from '../core/pool-refusal';
import { kopsMessage } from '../errors/kops-messages';
import { LbSyncError } from '../errors/lbsync-error';
import { createBackendOnce } from './create-once';

export interface ApplyOutcome {
  done: Action[];
  notes: string[];
  error?: LbSyncError;
}

/** What a step's run returns when it decided not to act after all (the action is not reported as done). */
const LEFT_ALONE = Symbol('left alone');

/** A write's step, with its message in kOps' wording. Every write names the LB by its name, as kOps' RenderScw does. */
type Step = Omit<GatewayStep<unknown>, 'lb'>;

function stepFor(gateway: ScalewayGateway, zone: string, lb: ObservedLb, action: Action, notes: string[]): Step {
  switch (action.kind) {
    case 'CreateBackend':
      return {
        message: kopsMessage.createBackend(lb.name),
        notFound: 'lb_not_found',
        run: async () => {
          const { kept, removedOwnDuplicate } = await createBackendOnce(gateway, zone, lb, action);
          if (removedOwnDuplicate)
            notes.push(
              `backend "${action.backend}" was created concurrently by another reconcile; kept the oldest (${kept.id}) and removed ours`,
            );
        },
      };
    case 'UpdateBackend':
      return { message: kopsMessage.updateBackend(lb.name), notFound: 'backend_not_found', run: () => gateway.updateBackend(zone, action) };
    case 'UpdateHealthCheck':
      return {
        message: kopsMessage.updateHealthCheck(lb.name),
        notFound: 'backend_not_found',
        run: () => gateway.updateHealthCheck(zone, action),
      };
    case 'DeleteDuplicateBackend':
      return {
        message: kopsMessage.deleteBackend(lb.name),
        notFound: 'backend_not_found',
        // Gone already (another reconcile removed it): that is what we wanted. Refused with a 412 because a frontend
        // started using it since we looked: then it is no longer a duplicate to remove.
        run: () =>
          gateway.deleteBackendIfExists(zone, action.backendId).catch((error: unknown) => {
            if (classifyApiFailure(error, 'backend_not_found').code !== 'precondition_failed') throw error;
            notes.push(
              `left duplicate backend ${action.backendId} of "${action.backend}" alone: the API refused to delete it (${(error as Error)?.message ?? '412'})`,
            );
            return LEFT_ALONE;
          }),
      };
    case 'SetBackendServers':
      return {
        message: kopsMessage.setServers(lb.name),
        notFound: 'backend_not_found',
        run: action.changesOnly
          ? async () => {
              // Make before break: add before removing.
              if (action.added.length > 0) await gateway.addBackendServers(zone, action.backendId, action.added);
              if (action.removed.length > 0) await gateway.removeBackendServers(zone, action.backendId, action.removed);
            }
          : () => gateway.setBackendServers(zone, action.backendId, action.pool),
      };
  }
}

/** Names a pool write the LB API refused for its IPv6 members as such (core/pool-refusal.ts); other failures pass unchanged. */
function toldAsIpv6Refusal(error: LbSyncError, action: Action): LbSyncError {
  const refused = refusedIpv6Members(addressesSent(action), invalidArgumentNames(error));
  if (refused.length === 0) return error;
  return new LbSyncError('ipv6_pool_refused', `${error.message}; the load balancer API refused the IPv6 member(s) ${refused.join(', ')}`, {
    cause: error.cause,
    ...(error.status !== undefined && { status: error.status }),
    ...(error.lb && { lb: error.lb }),
  });
}

/** Performs the actions in order and stops at the first failure, reporting what was done. */
export async function applyActions(
  gateway: ScalewayGateway,
  zone: string,
  lb: ObservedLb,
  actions: readonly Action[],
): Promise<ApplyOutcome> {
  const done: Action[] = [];
  const notes: string[] = [];
  for (const action of actions) {
    const answer = await tryGateway({ ...stepFor(gateway, zone, lb, action, notes), lb: identityOf(lb) });
    if ('error' in answer) return { done, notes, error: toldAsIpv6Refusal(answer.error, action) };
    if (answer.value !== LEFT_ALONE) done.push(action);
  }
  return { done, notes };
}
