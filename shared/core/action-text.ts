import type { Action, ChangesOnlyReason } from './model';

const CHANGES_ONLY_WHY: Record<ChangesOnlyReason, string> = {
  leaving_servers: 'the pool holds leaving servers',
  discovery_suspect: 'discovery looks partial',
};

/** A field's value as a plan shows it: `(unset)` for none (a null answer), strings bare, the rest as JSON. */
export function fieldValueText(value: unknown): string {
  return value === undefined || value === null || value === '' ? '(unset)' : typeof value === 'string' ? value : JSON.stringify(value);
}

/** One line per action, as the reconcile logs its plan and `lbsync doctor` shows what a reconcile would write. */
export function describeAction(action: Action): string {
  switch (action.kind) {
    case 'CreateBackend':
      return `CreateBackend ${action.backend} pool=[${action.pool.join(', ')}]`;
    case 'DeleteDuplicateBackend':
      return `DeleteDuplicateBackend ${action.backend} ${action.backendId} (keeping ${action.keptId})`;
    case 'SetBackendServers':
      return `SetBackendServers ${action.backend} +[${action.added.join(', ')}] -[${action.removed.join(', ')}]${action.changesOnly ? ` (as AddBackendServers/RemoveBackendServers: ${CHANGES_ONLY_WHY[action.changesOnly]})` : ''}`;
    case 'UpdateBackend':
    case 'UpdateHealthCheck':
      return `${action.kind} ${action.backend} ${action.changes.map((c) => `${c.field}: ${fieldValueText(c.from)} -> ${fieldValueText(c.to)}`).join(', ')}`;
  }
}
