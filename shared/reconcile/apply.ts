import type { ScalewayGateway } from '../adapters/scaleway';
import type { NotFoundMeaning } from '../api-errors';
import { kopsMessage, wrapApiFailure } from '../api-errors';
import type { LbSyncError } from '../errors';
import type { Action, ObservedLb } from '../model';
import { createBackendOnce } from './create-once';
import { identityOf } from './observe';

export interface ApplyOutcome {
  done: Action[];
  notes: string[];
  error?: LbSyncError;
}

interface Step {
  /** kOps' wording; every write names the LB by its name, as kOps' RenderScw does. */
  message: string;
  notFound: NotFoundMeaning;
  run: () => Promise<unknown>;
}

function stepFor(gateway: ScalewayGateway, zone: string, lb: ObservedLb, action: Action, notes: string[]): Step {
  switch (action.kind) {
    case 'CreateBackend':
      return {
        message: kopsMessage.createBackend(lb.name),
        notFound: 'lb_not_found',
        run: async () => {
          const { kept, removedOwnDuplicate } = await createBackendOnce(gateway, zone, lb.id, action);
          if (removedOwnDuplicate) notes.push(`backend "${action.backend}" was created concurrently by another reconcile; kept the oldest (${kept.id}) and removed ours`);
        },
      };
    case 'UpdateBackend':
      return { message: kopsMessage.updateBackend(lb.name), notFound: 'backend_not_found', run: () => gateway.updateBackend(zone, action) };
    case 'UpdateHealthCheck':
      return { message: kopsMessage.updateHealthCheck(lb.name), notFound: 'backend_not_found', run: () => gateway.updateHealthCheck(zone, action) };
    case 'DeleteDuplicateBackend':
      return {
        message: kopsMessage.deleteBackend(lb.name),
        notFound: 'backend_not_found',
        // Gone already (another reconcile removed it): that is what we wanted.
        run: () => gateway.deleteBackend(zone, action.backendId).catch((error: { status?: number }) => {
          if (error?.status !== 404) throw error;
        }),
      };
    case 'SetBackendServers':
      return {
        message: kopsMessage.setServers(lb.name),
        notFound: 'backend_not_found',
        run: () => gateway.setBackendServers(zone, action.backendId, action.pool),
      };
  }
}

/** Performs the actions in order and stops at the first failure, reporting what was done. */
export async function applyActions(gateway: ScalewayGateway, zone: string, lb: ObservedLb, actions: readonly Action[]): Promise<ApplyOutcome> {
  const done: Action[] = [];
  const notes: string[] = [];
  for (const action of actions) {
    const step = stepFor(gateway, zone, lb, action, notes);
    try {
      await step.run();
    } catch (error) {
      return { done, notes, error: wrapApiFailure(step.message, error, step.notFound, identityOf(lb)) };
    }
    done.push(action);
  }
  return { done, notes };
}
