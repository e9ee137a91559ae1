import type { Action } from './model';

/** One line per action, as the reconcile logs its plan and `lbsync doctor` shows what a reconcile would write. */
export function describeAction(action: Action): string {
  switch (action.kind) {
    case 'CreateBackend':
      return `CreateBackend ${action.backend} pool=[${action.pool.join(', ')}]`;
    case 'DeleteDuplicateBackend':
      return `DeleteDuplicateBackend ${action.backend} ${action.backendId} (keeping ${action.keptId})`;
    case 'SetBackendServers':
      return `SetBackendServers ${action.backend} +[${action.added.join(', ')}] -[${action.removed.join(', ')}]${action.changesOnly ? ' (as AddBackendServers/RemoveBackendServers: the pool holds leaving servers)' : ''}`;
    case 'UpdateBackend':
    case 'UpdateHealthCheck':
      return `${action.kind} ${action.backend} ${action.changes.map((c) => `${c.field}: ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}`).join(', ')}`;
  }
}
