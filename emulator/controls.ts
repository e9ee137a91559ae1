/** The emulator's operations, shared by the in-process handle and the HTTP control API. */
import { CallLog } from './call-log';
import { FaultQueue } from './faults';
import { Gates } from './gates';
import { EmulatorState } from './state';
import type { CallRecord, EmulatorSeed, FaultSpec, LbStatus, PoolWrite, SeedServer } from './types';
import type { ServerRecord } from './model';
import { renderBackend, renderLb } from './wire/lb';
import { renderServer } from './wire/instance';
import { renderIpamIp } from './wire/ipam';

export class EmulatorControls {
  readonly state: EmulatorState;
  readonly callLog = new CallLog();
  readonly faultQueue = new FaultQueue();
  readonly gates = new Gates();

  constructor(instancePendingMs: number, seed: EmulatorSeed | undefined) {
    this.state = new EmulatorState(instancePendingMs);
    if (seed) this.state.loadSeed(seed);
  }

  calls(): CallRecord[] {
    return this.callLog.calls();
  }

  resetCalls(): void {
    this.callLog.resetCalls();
  }

  history(): PoolWrite[] {
    return this.callLog.history();
  }

  resetHistory(): void {
    this.callLog.resetHistory();
  }

  addFault(fault: FaultSpec): void {
    this.faultQueue.add(fault);
  }

  clearFaults(): void {
    this.faultQueue.clear();
  }

  faults(): FaultSpec[] {
    return this.faultQueue.list();
  }

  heldAtGates(): Record<string, number> {
    return this.gates.held();
  }

  releaseGate(name: string, count?: number): number {
    return this.gates.release(name, count);
  }

  setLbStatus(lbId: string, status: LbStatus, forMs?: number): void {
    this.state.setLbStatus(lbId, status, forMs);
  }

  replaceServer(oldServerId: string, newServer: SeedServer): ServerRecord {
    return this.state.replaceServer(oldServerId, newServer);
  }

  upsertServer(server: SeedServer): ServerRecord {
    return this.state.upsertServer(server);
  }

  removeServer(serverId: string): void {
    this.state.removeServer(serverId);
  }

  loadSeed(seed: EmulatorSeed): void {
    this.state.loadSeed(seed);
  }

  /** Everything the emulator holds, in API shapes: LBs with their backends, servers, IPAM IPs. */
  dumpState(): Record<string, unknown> {
    const { state } = this;
    const now = Date.now();
    return {
      projectId: state.owner.projectId,
      organizationId: state.owner.organizationId,
      lbs: [...state.lbs.values()].map((lb) => ({
        ...renderLb(state, lb, now),
        backends: state.backendsOf(lb.id).map((backend) => {
          const { lb: _embedded, ...rest } = renderBackend(state, backend, now);
          return rest;
        }),
        frontends: state.frontendsOf(lb.id).map((f) => ({ id: f.id, name: f.name, inbound_port: f.inboundPort, backend_id: f.backendId })),
      })),
      servers: [...state.servers.values()].map((server) => renderServer(state, server)),
      ips: [...state.ips.values()].map(renderIpamIp),
    };
  }
}
