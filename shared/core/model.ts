import type { BackendSpec } from '../schemas/target';

export const TRANSIENT_LB_STATUSES = ['pending', 'migrating', 'to_create', 'creating', 'to_delete', 'deleting', 'unknown'] as const;
export const BROKEN_LB_STATUSES = ['stopped', 'error', 'locked'] as const;

export function inTransientState(lb: Pick<ObservedLb, 'status'>): boolean {
  return (TRANSIENT_LB_STATUSES as readonly string[]).includes(lb.status);
}

export function isBroken(lb: Pick<ObservedLb, 'status'>): boolean {
  return (BROKEN_LB_STATUSES as readonly string[]).includes(lb.status);
}

/** "Applied": the LB ready and every one of its instances ready again (docs/architecture.md, "Facts we rely on"). */
export function isApplied(lb: Pick<ObservedLb, 'status' | 'instanceStatuses'>): boolean {
  return lb.status === 'ready' && lb.instanceStatuses.every((status) => status === 'ready');
}

/** The load balancer as read from the API. */
export interface ObservedLb {
  id: string;
  name: string;
  zone: string;
  status: string;
  instanceStatuses: string[];
}

/** An HTTP(S) health check's request and expected answer, as the API stores it (or as it is written). */
export interface ObservedHttpCheck {
  uri: string;
  method?: string;
  code?: number;
  hostHeader?: string;
  /** https only. */
  sni?: string;
}

/** The full health check as the API stores it (or as a write sends it), durations in integer ms. */
export interface ObservedHealthCheck {
  /** tcp, http, https, or another kind of the API's (mysql, pgsql, ldap, redis), whose config is kept as it is. */
  type: string;
  port: number;
  checkDelayMs?: number;
  checkTimeoutMs?: number;
  checkMaxRetries: number;
  checkSendProxy: boolean;
  transientCheckDelayMs?: number;
  /** Type http or https: its request and expected answer. */
  http?: ObservedHttpCheck;
  /** Another kind's config (mysqlConfig, ...), passed back untouched on a full PUT while the type stays. */
  passthrough: Record<string, unknown>;
}

/**
 * The backend fields a target may name (shared/schemas/target.ts, backendOptionFields), as the API stores them:
 * durations in integer ms, a null answer (not set) absent.
 */
export interface BackendOptions {
  onMarkedDownAction?: string;
  timeoutServerMs?: number;
  timeoutConnectMs?: number;
  timeoutTunnelMs?: number;
  maxRetries?: number;
  redispatchAttemptCount?: number;
  maxConnections?: number;
  timeoutQueueMs?: number;
}

/** A backend as read from the API. */
export interface ObservedBackend extends BackendOptions {
  id: string;
  name: string;
  createdAt?: string;
  forwardProtocol: string;
  forwardPort: number;
  forwardPortAlgorithm: string;
  stickySessions: string;
  stickySessionsCookieName: string;
  proxyProtocol: string;
  healthCheck?: ObservedHealthCheck;
  pool: string[];
  /** The LB the answer says the backend belongs to (ListBackends embeds it). */
  lbId?: string;
  /** Fields this tool does not manage (failover host, SSL bridging...), sent back as they are on a full PUT. */
  passthrough: Record<string, unknown>;
}

/** A frontend as ListFrontends described it: the backend it sends traffic to, and every LB the answer names for it. */
export interface ObservedFrontend {
  id: string;
  backendId?: string;
  /** The frontend's own LB and its backend's, as the answer embeds them. */
  lbIds: string[];
}

/** One of the LB's attachments to a private network (ListLbPrivateNetworks), as the answer described it. */
export interface ObservedLbAttachment {
  privateNetworkId: string;
  /** ready | pending | error | unknown (the SDK's PrivateNetworkStatus). */
  status: string;
  /** The LB the answer embeds in the attachment. */
  lbId?: string;
}

/** Several backends carry one managed name: which one is used, and the rest with what we know of them. */
export interface DuplicateBackends {
  name: string;
  kept: ObservedBackend;
  others: ObservedBackend[];
  /** Ids of the backends some frontend of the LB sends traffic to. */
  inUse: ReadonlySet<string>;
}

/** Something an API answered that the request did not ask for: left out of every pool, and why (core/discovery-check.ts). */
export interface LeftOutAnswer {
  /** What it is, as an operator finds it: `server nodes-fr-par-1-0 (<id>)`, `IPAM address 10.0.0.9/22`... */
  what: string;
  why: string;
}

/** The backends of a target as read: one per managed name, and the duplicates of any name carried twice. */
export interface ObservedBackends {
  byName: Map<string, ObservedBackend>;
  duplicates: DuplicateBackends[];
}

/** The order every reconcile agrees on: oldest first (created_at, then id). */
export function olderFirst(a: ObservedBackend, b: ObservedBackend): number {
  const byDate = (a.createdAt ?? '').localeCompare(b.createdAt ?? '');
  return byDate !== 0 ? byDate : a.id.localeCompare(b.id);
}

/** A server as the Instance API described it: what it said is kept, so that discovery checks the answer itself. */
export interface ObservedServer {
  id: string;
  name: string;
  state: string;
  tags: string[];
  zone: string;
  projectId: string;
  publicIpv4: string[];
  /**
   * The public IPv4 addresses IPAM has for this server (`public_ips[].ipam_id` set: routed IPs). These are
   * the zonal IPAM IPv4 addresses kOps' GetServerIP reads (IPAM ListIPs resource_id=<server>, zonal, IPv4).
   */
  routedIpv4: string[];
  /**
   * The routed public IPv6 addresses (`public_ips[]` of family `inet6`): each the server's own SLAAC address in the
   * /64 of its routed IPv6, not the prefix (docs/architecture.md, "The Instance and IPAM APIs").
   */
  publicIpv6: string[];
  /**
   * The `state` the answer gave each public IP of publicIpv4 and publicIpv6 (`attached`, `detached`, `pending`, ...;
   * `none` when it gave none): only an attached address is a candidate (core/desired.ts).
   */
  ipStates: Record<string, string>;
  /** The server's private NICs and the private network each is on. */
  privateNics: { id: string; privateNetworkId: string }[];
}

/**
 * One backend server as one of the LB's instances checks it (ListBackendStats). `status` is the last health check:
 * passed | failed | unknown | neutral | condpass; `serverState` the LB's own view: running | starting | stopping | stopped.
 */
export interface ObservedMemberHealth {
  ip: string;
  status: string;
  serverState: string;
  instanceId: string;
  /** The backend the report is of, as the answer says (every recorded item carries it). */
  backendId?: string;
}

/** What a target wants for one backend: its spec and the pool computed from the servers. */
export interface DesiredBackend {
  spec: BackendSpec;
  pool: string[];
}

/** One field a write would change, and why (shown by `lbsync plan`). */
export type FieldChange = { field: string; from: unknown; to: unknown; reason: string };

export type Action =
  | {
      kind: 'CreateBackend';
      backend: string;
      spec: BackendSpec;
      /** The optional fields the target names: the only ones sent (the API fills the others). */
      options: BackendOptions;
      healthCheck: ObservedHealthCheck;
      pool: string[];
    }
  | {
      kind: 'UpdateBackend';
      backend: string;
      backendId: string;
      spec: BackendSpec;
      /** The optional fields the full PUT sends: the target's where it names them, the LB's own elsewhere. */
      options: BackendOptions;
      passthrough: Record<string, unknown>;
      changes: FieldChange[];
    }
  | { kind: 'UpdateHealthCheck'; backend: string; backendId: string; healthCheck: ObservedHealthCheck; changes: FieldChange[] }
  | {
      kind: 'SetBackendServers';
      backend: string;
      backendId: string;
      pool: string[];
      added: string[];
      removed: string[];
      /**
       * Written as its changes only (AddBackendServers, then RemoveBackendServers), never as the whole pool, and why:
       * - `leaving_servers`: the pool has leaving servers (shared/core/leaving.ts). A whole pool read just before
       *   kOps deregistered one of them would put it back;
       * - `discovery_suspect`: this reconcile distrusts its own read (core/rollout.ts). A whole pool built on it
       *   could put back what another writer (kOps' apply, a concurrent reconcile) removed since.
       */
      changesOnly?: ChangesOnlyReason;
    }
  | { kind: 'DeleteDuplicateBackend'; backend: string; backendId: string; keptId: string };

export type ActionKind = Action['kind'];

export type ChangesOnlyReason = 'leaving_servers' | 'discovery_suspect';
