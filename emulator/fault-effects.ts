/** What a fault's `before` does to the world when its request arrives (see FaultSpec.before). */
import { randomUUID } from 'node:crypto';
import type { BackendRecord, LbRecord } from './records';
import type { EmulatorState } from './state';
import type { FaultWorldChange } from './contract';

const UUID = '[0-9a-fA-F-]{36}';

function targetsOf(state: EmulatorState, path: string): { lb?: LbRecord; backend?: BackendRecord } {
  const backendId = new RegExp(`/backends/(${UUID})`).exec(path)?.[1];
  const backend = backendId ? state.backends.get(backendId) : undefined;
  const lbId = new RegExp(`/lbs/(${UUID})`).exec(path)?.[1] ?? backend?.lbId;
  const lb = lbId ? state.lbs.get(lbId) : undefined;
  return { ...(lb && { lb }), ...(backend && { backend }) };
}

/** Applies the change; throws (a control error) when the request's path names no LB or backend to change. */
export function applyWorldChange(state: EmulatorState, path: string, change: FaultWorldChange): void {
  const { lb, backend } = targetsOf(state, path);
  if (change.lbStatus !== undefined) {
    if (!lb) throw new Error(`fault "before.lbStatus": ${path} names no known LB`);
    state.setLbStatus(lb.id, change.lbStatus, change.lbStatusForMs);
  }
  if (change.attachFrontend !== undefined) {
    if (!backend) throw new Error(`fault "before.attachFrontend": ${path} names no known backend`);
    const id = randomUUID();
    state.frontends.set(id, {
      id,
      lbId: backend.lbId,
      name: change.attachFrontend.name,
      inboundPort: change.attachFrontend.inbound_port,
      backendId: backend.id,
      createdAt: new Date().toISOString(),
    });
  }
}
