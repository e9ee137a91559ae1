/**
 * A Scaleway LB + Instance + IPAM + Audit Trail API on loopback, for the local stack, tests and benchmarks.
 * The real Scaleway SDK talks to it with `apiURL` set to `handle.url`.
 */
import type { EmulatorBehaviours } from './behaviours';
import { EmulatorOperations, type ServerActionName } from './operations';
import { PermissionRules } from './permissions';
import { listen } from './server';
import type { EmulatorState } from './state';
import type { WireAuditEvent } from './wire/audit-trail';
import type { CallRecord, EmulatorOptions, EmulatorSeed, FaultSpec, LbStatus, PoolWrite, SeedServer } from './contract';

export type {
  CallRecord,
  EmulatorOptions,
  EmulatorSeed,
  FaultSpec,
  LbStatus,
  PoolWrite,
  SeedBackend,
  SeedFrontend,
  SeedIpamIp,
  SeedLb,
  SeedLbPrivateNetwork,
  SeedPrivateNic,
  SeedServer,
  ShownLb,
} from './contract';
export { DEMO_HEALTH_TIMING } from './behaviours';
export { LB_STATUSES, TRANSIENT_LB_STATUSES } from './contract';
export type { FaultWorldChange } from './contract';
export { faultBodies, type FaultAnswer } from './errors';
export {
  BEHAVIOUR_CHOICES,
  DEFAULT_BEHAVIOURS,
  RECORDED_INSTANCE_PENDING_MS,
  type EmulatorBehaviours,
  type SwitchName,
} from './behaviours';
export { EMULATED_APIS, parseDenial, type ApiDenial, type EmulatedApi } from './permissions';
export type { EmulatorState } from './state';
export { HEALTH_CHECK_STATUSES, type HealthCheckStatus, type MemberHealth, type ForcedHealth } from './health';
import type { ForcedHealth, HealthCheckStatus, MemberHealth } from './health';
import type { AccountsWorld } from './accounts';
export { DEFAULT_AUDIT_DELAY_MS, OPERATOR_ACTOR, principalIdOf } from './audit-trail';
export { SERVER_ACTIONS, type ServerActionName } from './operations';
export type { WireAuditEvent } from './wire/audit-trail';
export {
  KOPS_TIMINGS,
  KopsSession,
  kopsRollingUpdate,
  scaledKopsTimings,
  type KopsRollingUpdateOptions,
  type KopsRun,
  type KopsStep,
  type KopsTimings,
} from './kops/rolling-update';
export { KOPS_USER_AGENT, KOPS_VERSION } from './kops/go-sdk';

/** The emulator's Audit Trail (emulator/audit-trail.ts): its events and the delay before they are listable. */
export interface AuditTrailHandle {
  delayMs(): number;
  setDelayMs(ms: number): void;
  /** Every recorded event in API shape, listable yet or not, oldest first. */
  events(): WireAuditEvent[];
  /** Adds events as given (other projects or zones, old ones, many); missing keys get defaults. */
  inject(events: Partial<WireAuditEvent>[]): void;
  clear(): void;
}

export interface EmulatorHandle {
  url: string;
  port: number;
  stop(): Promise<void>;
  state: EmulatorState;
  calls(): CallRecord[];
  resetCalls(): void;
  history(): PoolWrite[];
  resetHistory(): void;
  addFault(fault: FaultSpec): void;
  clearFaults(): void;
  /** How many requests each gate fault holds now. */
  heldAtGates(): Record<string, number>;
  /** Lets the oldest `count` requests held at this gate through (all by default); returns how many went. */
  releaseGate(name: string, count?: number): number;
  setLbStatus(lbId: string, status: LbStatus, forMs?: number): void;
  /**
   * A server replaced in one step, as the control API does it: ServerAction terminate on the old one, CreateServer and
   * poweron for the new one, all instant. kOps' own rolling update, call by call, is `kopsRollingUpdate`.
   */
  replaceServer(oldServerId: string, newServer: SeedServer): void;
  /** Adds or changes a server. Audit Trail records a creation or a re-tag; a change of state alone is the platform's. */
  upsertServer(server: SeedServer): void;
  /** Removes a server by an API call: ServerAction terminate, or DeleteServer when it is stopped. */
  removeServer(serverId: string): void;
  /** A ServerAction through the API (recorded in Audit Trail), done at once. Throws on an unknown server. */
  serverAction(serverId: string, action: ServerActionName): void;
  /** Replaces the whole state; the call log and pool history are kept. */
  loadSeed(seed: EmulatorSeed): void;
  /** LBs (with backends), servers and IPAM IPs in API shapes, as served by GET /_emulator/state. */
  dumpState(): Record<string, unknown>;
  /** The current switches (docs/emulator.md). */
  behaviours(): EmulatorBehaviours;
  /** Changes the named switches; the others keep their setting. Throws on an unknown name or value. */
  setBehaviours(partial: Partial<EmulatorBehaviours>): EmulatorBehaviours;
  /** ListBackendStats reports this status for this address (every backend) for forMs, or until cleared. */
  forceHealth(ip: string, status: HealthCheckStatus, forMs?: number): void;
  /** The servers decide an address's health again (all addresses when none is named). */
  clearForcedHealth(ip?: string): void;
  /** Every backend's members as ListBackendStats reports them now, and the forced addresses. */
  backendHealth(): { backends: { lbId: string; backendId: string; name: string; members: MemberHealth[] }[]; forced: ForcedHealth[] };
  auditTrail: AuditTrailHandle;
  /** IAM applications, policies, API keys and Queues credentials, as `lbsync bootstrap` made them. */
  accounts: AccountsWorld;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const operations = new EmulatorOperations(
    { ...options.behaviours, ...(options.instancePendingMs !== undefined && { instancePendingMs: options.instancePendingMs }) },
    options.seed,
    options.auditTrailDelayMs,
  );
  if (options.sqsEndpointUrl) operations.accounts.sqsEndpointUrl = options.sqsEndpointUrl;
  const server = await listen(operations, {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    latencyMs: options.latencyMs ?? 0,
    requireAuth: options.requireAuth ?? true,
    permissions: new PermissionRules(options.denyApis),
  });
  return {
    url: server.url,
    port: server.port,
    stop: server.stop,
    state: operations.state,
    calls: () => operations.calls(),
    resetCalls: () => operations.resetCalls(),
    history: () => operations.history(),
    resetHistory: () => operations.resetHistory(),
    addFault: (fault) => operations.addFault(fault),
    clearFaults: () => operations.clearFaults(),
    heldAtGates: () => operations.heldAtGates(),
    releaseGate: (name, count) => operations.releaseGate(name, count),
    setLbStatus: (lbId, status, forMs) => operations.setLbStatus(lbId, status, forMs),
    replaceServer: (oldServerId, newServer) => void operations.replaceServer(oldServerId, newServer),
    upsertServer: (server_) => void operations.upsertServer(server_),
    removeServer: (serverId) => operations.removeServer(serverId),
    serverAction: (serverId, action) => operations.serverAction(serverId, action),
    loadSeed: (seed) => operations.loadSeed(seed),
    dumpState: () => operations.dumpState(),
    behaviours: () => operations.behaviours(),
    setBehaviours: (partial) => operations.setBehaviours(partial),
    forceHealth: (ip, status, forMs) => operations.forceHealth(ip, status, forMs),
    clearForcedHealth: (ip) => operations.clearForcedHealth(ip),
    backendHealth: () => operations.backendHealth(),
    accounts: operations.accounts,
    auditTrail: {
      delayMs: () => operations.auditTrail.delayMs,
      setDelayMs: (ms) => operations.setAuditTrailDelay(ms),
      events: () => operations.auditTrail.all().map((e) => e.wire),
      inject: (events) => operations.injectAuditEvents(events),
      clear: () => operations.auditTrail.clear(),
    },
  };
}
