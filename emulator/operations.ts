/** The emulator's operations, shared by the in-process handle and the HTTP control API. */
import type { IncomingHttpHeaders } from 'node:http';
import {
  actorOf,
  AuditTrailLog,
  DEFAULT_AUDIT_DELAY_MS,
  recordBackendWrite,
  recordServerAction,
  recordServerChange,
  recordServerRemoved,
} from './audit-trail';
import type { EmulatorBehaviours } from './behaviours';
import { CallLog } from './call-log';
import { FaultQueue } from './faults';
import { AccountsWorld } from './accounts';
import { Gates } from './gates';
import { ServerLifecycle } from './server-lifecycle';
import { EmulatorState } from './state';
import type { CallRecord, EmulatorSeed, FaultSpec, LbStatus, PoolWrite, SeedServer } from './contract';
import type { ServerRecord } from './records';
import { healthOfPool, type ForcedHealth, type HealthCheckStatus, type MemberHealth } from './health';
import { renderBackend, renderLb } from './wire/lb';
import { renderServer } from './wire/instance';
import type { WireAuditEvent } from './wire/audit-trail';
import { renderIpamIp } from './wire/ipam';

/** The ServerActions the control API performs, and the state each leaves. */
export const SERVER_ACTIONS = ['poweron', 'poweroff', 'stop_in_place', 'reboot', 'terminate'] as const;
export type ServerActionName = (typeof SERVER_ACTIONS)[number];
const STATE_AFTER: Record<Exclude<ServerActionName, 'reboot' | 'terminate'>, string> = {
  poweron: 'running',
  poweroff: 'stopped',
  stop_in_place: 'stopped in place',
};

export class EmulatorOperations {
  readonly state: EmulatorState;
  readonly callLog = new CallLog();
  readonly faultQueue = new FaultQueue();
  readonly auditTrail: AuditTrailLog;
  readonly gates = new Gates();
  /** Servers created, re-tagged and powered through the Instance API's routes, with the recorded timings. */
  readonly serverLifecycle: ServerLifecycle;
  /** IAM and Messaging, for `lbsync bootstrap` (emulator/accounts.ts). */
  readonly accounts = new AccountsWorld();

  constructor(behaviours: Partial<EmulatorBehaviours>, seed: EmulatorSeed | undefined, auditTrailDelayMs = DEFAULT_AUDIT_DELAY_MS) {
    this.state = new EmulatorState(behaviours);
    this.auditTrail = new AuditTrailLog(auditTrailDelayMs);
    this.serverLifecycle = new ServerLifecycle(() => this.state, this.auditTrail);
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

  /** Arms every fault or, when one is refused, none. */
  addFaults(faults: readonly FaultSpec[]): void {
    for (const fault of faults) this.faultQueue.check(fault);
    for (const fault of faults) this.faultQueue.add(fault);
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

  // Server changes that are API calls are recorded in Audit Trail, as made by someone else's tooling
  // (emulator/audit-trail.ts); a change of state through upsertServer is the platform's and records nothing.

  /** A kOps rolling update: ServerAction terminate on the old server, then CreateServer and poweron for the new one. */
  replaceServer(oldServerId: string, newServer: SeedServer): ServerRecord {
    const old = this.state.servers.get(oldServerId);
    if (old) recordServerAction(this.auditTrail, old, 'terminate');
    const server = this.state.replaceServer(oldServerId, newServer);
    recordServerChange(this.auditTrail, undefined, server);
    return server;
  }

  upsertServer(server: SeedServer): ServerRecord {
    const before = server.id ? this.state.servers.get(server.id) : undefined;
    const after = this.state.upsertServer(server);
    recordServerChange(this.auditTrail, before, after);
    return after;
  }

  removeServer(serverId: string): void {
    const before = this.state.servers.get(serverId);
    if (before) recordServerRemoved(this.auditTrail, before);
    this.state.removeServer(serverId);
  }

  /** A ServerAction through the API: recorded, then done (at once: the emulator skips `starting` and `stopping`). */
  serverAction(serverId: string, action: ServerActionName): void {
    const server = this.state.servers.get(serverId);
    if (!server) throw new Error(`no server ${serverId}`);
    recordServerAction(this.auditTrail, server, action);
    if (action === 'terminate') this.state.removeServer(serverId);
    else if (action !== 'reboot') this.state.setServerState(serverId, STATE_AFTER[action]);
  }

  setAuditTrailDelay(ms: number): void {
    if (!Number.isInteger(ms) || ms < 0) throw new Error(`the Audit Trail delay must be a whole number of ms >= 0 (got ${String(ms)})`);
    this.auditTrail.delayMs = ms;
  }

  injectAuditEvents(events: Partial<WireAuditEvent>[]): void {
    for (const event of events) this.auditTrail.inject(event, this.state.owner);
  }

  /** A successful backend write through the LB routes: the pool history, and Audit Trail with the caller's identity. */
  notePoolWrite(
    call: CallRecord,
    write: Omit<PoolWrite, 'at' | 'seq' | 'operation'>,
    request: { body: unknown; headers: IncomingHttpHeaders; remoteAddress?: string },
  ): void {
    const actor = actorOf(request.headers, request.remoteAddress);
    this.callLog.notePoolWrite(call, { ...write, userAgent: actor.userAgent });
    const lb = this.state.lbs.get(write.lbId);
    if (!lb) return;
    recordBackendWrite(
      this.auditTrail,
      lb,
      { ...write, operation: call.operation },
      this.state.backends.get(write.backendId),
      request.body,
      actor,
    );
  }

  loadSeed(seed: EmulatorSeed): void {
    this.serverLifecycle.clear();
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
