/**
 * The emulator's contract with its users: the seed it takes, its options, its LB statuses, and what its call log,
 * pool history and faults speak.
 */
import type { EmulatorBehaviours } from './behaviours';
import type { ApiDenial } from './permissions';

export type LbStatus =
  | 'unknown'
  | 'ready'
  | 'pending'
  | 'stopped'
  | 'error'
  | 'locked'
  | 'migrating'
  | 'to_create'
  | 'creating'
  | 'to_delete'
  | 'deleting';

export const LB_STATUSES: readonly LbStatus[] = [
  'unknown',
  'ready',
  'pending',
  'stopped',
  'error',
  'locked',
  'migrating',
  'to_create',
  'creating',
  'to_delete',
  'deleting',
];

export const TRANSIENT_LB_STATUSES: readonly LbStatus[] = ['pending', 'migrating', 'to_create', 'creating', 'to_delete', 'deleting'];

/**
 * A backend in a seed uses the API's own wire shape (snake_case). Durations may be given
 * the way the API accepts them (integer ms, or "0.5s"-style strings for
 * transient_check_delay / timeout_queue); missing fields take the API's create defaults.
 */
export interface SeedBackend {
  id?: string;
  name: string;
  forward_protocol?: 'tcp' | 'http';
  forward_port: number;
  forward_port_algorithm?: 'roundrobin' | 'leastconn' | 'first';
  sticky_sessions?: 'none' | 'cookie' | 'table';
  sticky_sessions_cookie_name?: string;
  proxy_protocol?: string;
  on_marked_down_action?: string;
  pool?: string[];
  health_check?: Record<string, unknown>;
  created_at?: string;
  updated_at?: string;
  [field: string]: unknown;
}

/** A frontend in a seed: `backend` names a backend of the same LB by name or id. */
export interface SeedFrontend {
  id?: string;
  name: string;
  inbound_port: number;
  backend: string;
}

/** The LB's attachment to a private network (ListLbPrivateNetworks), as the recording lb-with-private-networks-ipam-ids shows it. */
export interface SeedLbPrivateNetwork {
  privateNetworkId: string;
  /** `ready` (default), `pending` (recorded right after the attach), `error` or `unknown`. */
  status?: 'ready' | 'pending' | 'error' | 'unknown';
  /** IPAM ids of the LB's addresses on the network (the attach request's `ipam_ids`); one new id when absent. */
  ipamIds?: string[];
  createdAt?: string;
}

export interface SeedLb {
  id?: string;
  name: string;
  zone: string;
  /** Its project: the seed's own when absent; another must be listed under the seed's `organizations`. */
  projectId?: string;
  status?: LbStatus;
  tags?: string[];
  ipAddress?: string;
  description?: string;
  /** Commercial type, e.g. "lb-s" (default). */
  type?: string;
  createdAt?: string;
  sslCompatibilityLevel?: string;
  /** The LB's instances show `pending` for this long after the seed loads, as right after a backend write. */
  instancesPendingMs?: number;
  backends?: SeedBackend[];
  frontends?: SeedFrontend[];
  /** Private networks the LB is attached to (none by default). */
  privateNetworks?: SeedLbPrivateNetwork[];
}

export interface SeedPrivateNic {
  id?: string;
  privateNetworkId?: string;
  macAddress?: string;
  /** IPAM addresses of this NIC in CIDR form, e.g. "10.0.0.2/22". */
  ipamAddresses: string[];
}

export interface SeedServer {
  id?: string;
  name: string;
  zone: string;
  /** Its project: the seed's own when absent (a replacement keeps its predecessor's); another must be listed under `organizations`. */
  projectId?: string;
  tags: string[];
  state?: string;
  /** Routed public IPs (IPv4 or IPv6, without prefix length). */
  publicIps?: string[];
  /** The id of each of publicIps, in the same order (a routed IP's id is also its IPAM id); new ids when absent. */
  publicIpIds?: string[];
  /** Its MAC address (its routed IPv6's SLAAC address and gateway derive from it); a new `de:00:00:...` one when absent. */
  macAddress?: string;
  /** A routed IPv6 more, made up: a new /64 and the server's SLAAC address in it (emulator/ipv6.ts), after publicIps. */
  routedIpv6?: boolean;
  privateNics?: SeedPrivateNic[];
  commercialType?: string;
  createdAt?: string;
  /** Ports a health check finds open while the server runs (default: every port); e.g. a kOps worker listens on neither 443 nor 3988. */
  listensOn?: number[];
}

/** An IPAM address not owned by a seeded server (e.g. a reserved IP); a superset of the brief's format. */
export interface SeedIpamIp {
  id?: string;
  address: string;
  region?: string;
  zone?: string | null;
  projectId?: string;
  privateNetworkId?: string;
  subnetId?: string;
  tags?: string[];
  resource?: { type: string; id: string; macAddress?: string | null; name?: string | null } | null;
  createdAt?: string;
}

/** An organization, its projects and the API keys it holds (emulator/tenancy.ts). */
export interface SeedOrganization {
  id: string;
  projects: string[];
  /** Keys answered for this organization's resources only, each by its secret key (what X-Auth-Token carries). */
  apiKeys?: { secretKey: string }[];
}

export interface EmulatorSeed {
  projectId?: string;
  organizationId?: string;
  /** Organizations and their projects (the seed's own included, to give it keys); without them any key sees everything. */
  organizations?: SeedOrganization[];
  lbs?: SeedLb[];
  servers?: SeedServer[];
  ips?: SeedIpamIp[];
}

export interface EmulatorOptions {
  port?: number;
  host?: string;
  seed?: EmulatorSeed;
  /** Shorthand for `behaviours.instancePendingMs` (default: the recorded 400 ms). */
  instancePendingMs?: number;
  /** The emulator's switches (emulator/behaviours.ts, docs/emulator.md); unnamed ones keep their defaults. */
  behaviours?: Partial<EmulatorBehaviours>;
  latencyMs?: number;
  requireAuth?: boolean;
  /** API keys (by secret key) answered 403 permissions_denied on one API each (emulator/permissions.ts). */
  denyApis?: ApiDenial[];
  /** Audit Trail: how long after a mutation its event becomes listable (ASSUMED; default 30000). */
  auditTrailDelayMs?: number;
  /** The SQS endpoint Messaging's sqs-info answers (default Scaleway's, as recorded): a local queue in tests. */
  sqsEndpointUrl?: string;
}

export interface CallRecord {
  seq: number;
  at: number;
  operation: string;
  method: string;
  path: string;
  query: string;
  /** HTTP status answered; 0 while in flight, or when the emulator hung up or reset the connection. */
  status: number;
  write: boolean;
  durationMs: number;
  /** The request's User-Agent (scw-lb-sync sends `scw-lb-sync/<version> event/<id>` while reconciling an event). */
  userAgent?: string;
  /** A GetLb answered 200: the LB it showed (its id, status and instances' statuses), so a wait's end is evidence. */
  lb?: ShownLb;
}

/** An LB as an answer showed it: enough to tell whether a write was applied (the LB and every instance `ready`). */
export interface ShownLb {
  id: string;
  status: string;
  instances: string[];
}

export interface PoolWrite {
  at: number;
  seq: number;
  operation: string;
  backendId: string;
  backendName: string;
  lbId: string;
  /** Pool after the write; for DeleteBackend, the pool the backend had when it was deleted. */
  pool: string[];
  /** Pool before the write (empty for CreateBackend). */
  poolBefore: string[];
  /**
   * What the write changed in the backend, compared as it stood just before the write was applied: `created`,
   * `deleted`, `pool` (as a set of addresses), or the names of the settings and `health_check.<field>`s it changed.
   * Empty: the backend is as it was (a needless write, unless another write changed it since its writer read it).
   */
  changed: string[];
  /**
   * The LB's last health check of every address in poolBefore and pool, at the write (emulator/health.ts):
   * removed addresses as they were just before it, the others just after (an address just added: `unknown`
   * unless `healthPassAfterMs` is 0).
   */
  health: Record<string, string>;
  /** The Instance state of the server holding each of those addresses at the write (`none`: no server has it). */
  serverStates: Record<string, string>;
  deleted?: boolean;
  /** The writer's User-Agent (scw-lb-sync's own, kOps', the console's...): who wrote this pool. */
  userAgent?: string;
  /** DeleteBackend under the `cascade` setting: the frontends deleted with the backend. */
  frontendsDeleted?: string[];
}

export interface FaultSpec {
  /** Only requests of this operation (the call log's name: `SetBackendServers`, `ListServers`...); any when absent. */
  operation?: string;
  /** Only requests whose path contains this text (an LB or backend id, a zone); any when absent. */
  pathIncludes?: string;
  /** Answer with this HTTP status instead of handling the request. */
  status?: number;
  /** The answer's JSON body with `status`; absent: the SDK's error body for 401, 403, 412, 500, 503, none for a 429 (as the gateway), else `{message}`. */
  body?: unknown;
  /** How many matching requests this fault applies to; default 1; Infinity or -1 = always. */
  count?: number;
  /** Wait this long before the answer (the fault's, or the route's when no `status` is given). */
  latencyMs?: number;
  /** Never answer: the connection stays open until the client gives up. */
  hang?: boolean;
  /** Reset the connection without an answer. */
  reset?: boolean;
  /** Headers of the answer with `status` (a 429 without a body gets the gateway's `X-Envoy-Ratelimited: true`). */
  headers?: Record<string, string>;
  /**
   * A change to the world made when a matching request arrives, before it is handled (the request then meets
   * the changed world): races made deterministic, e.g. the LB turning `pending` just as a write arrives.
   * The LB is the one the request's path names (directly, or through its backend).
   */
  before?: FaultWorldChange;
  /** Hold each matching request until this gate is released (emulator/gates.ts); then the rest applies. */
  gate?: string;
}

export interface FaultWorldChange {
  /** The LB turns this status (`pending`, `migrating`, `locked`, ...). */
  lbStatus?: LbStatus;
  /** With lbStatus: the LB goes back to ready after this many ms (default: stays). */
  lbStatusForMs?: number;
  /** Attaches a new frontend to the backend the request's path names. */
  attachFrontend?: { name: string; inbound_port: number };
}
