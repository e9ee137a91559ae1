/** The emulator's operations, shared by the in-process handle and the HTTP control API. */
import type { EmulatorBehaviours } from './behaviours';
import { CallLog } from './call-log';
import { FaultQueue } from './faults';
import { EmulatorState } from './state';
import type { CallRecord, EmulatorSeed, FaultSpec, LbStatus, PoolWrite, SeedServer } from './types';
import type { ServerRecord } from './model';
import { healthOfPool, type ForcedHealth, type HealthCheckStatus, type MemberHealth } from './health';
import { renderBackend, renderLb } from './wire/lb';
import { renderServer } from './wire/instance';
import { renderIpamIp } from './wire/ipam';

export class EmulatorControls {
  readonly state: EmulatorState;
  readonly callLog = new CallLog();
  readonly faultQueue = new FaultQueue();

  constructor(behaviours: Partial<EmulatorBehaviours>, seed: EmulatorSeed | undefined) {
    this.state = new EmulatorState(behaviours);
    if (seed) this.state.loadSeed(seed);
  }

  behaviours(): EmulatorBehaviours {
    return { ...this.state.behaviours, multiCloudLbTypes: [...this.state.behaviours.multiCloudLbTypes] };
  }

  setBehaviours(partial: Partial<EmulatorBehaviours>): EmulatorBehaviours {
    this.state.setBehaviours(partial);
    return this.behaviours();
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

  /** Makes the LB report this status for this address (in every backend), for forMs or until cleared. */
  forceHealth(ip: string, status: HealthCheckStatus, forMs?: number): void {
    this.state.health.force(ip, status, Date.now(), forMs);
  }

  /** Lets the servers decide again for one address, or for all. */
  clearForcedHealth(ip?: string): void {
    this.state.health.unforce(ip);
  }

  /** Every backend's members as ListBackendStats reports them now, and the forced addresses. */
  backendHealth(): { backends: { lbId: string; backendId: string; name: string; members: MemberHealth[] }[]; forced: ForcedHealth[] } {
    const now = Date.now();
    return {
      backends: [...this.state.backends.values()].map((b) => ({
        lbId: b.lbId,
        backendId: b.id,
        name: b.settings.name,
        members: healthOfPool(this.state, b, b.pool, now),
      })),
      forced: this.state.health.forcedList(now),
    };
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
