import { Instancev1 } from '@scaleway/sdk-instance';
import { Ipamv1 } from '@scaleway/sdk-ipam';
import { Lbv1 } from '@scaleway/sdk-lb';
import type { IpamIpView } from '../core/kops-rule';
import { regionOf } from '../core/locality';
import type {
  Action,
  BackendOptions,
  ObservedBackend,
  ObservedFrontend,
  ObservedHealthCheck,
  ObservedHttpCheck,
  ObservedLb,
  ObservedLbAttachment,
  ObservedMemberHealth,
  ObservedServer,
} from '../core/model';
import { normalisePool } from '../core/pool';
import { userAgentFor } from '../outbound/user-agent';
import { classifyApiFailure } from './api-failure';
import type { TransportTap } from './http-transport';
import { PAGE_SIZE, readPages } from './pages';
import { createSdkClient } from './sdk-client';
import { LbSyncError } from '../errors/lbsync-error';

type SdkBackend = Lbv1.Backend;
type SdkLb = Lbv1.Lb;
type SdkHealthCheck = Lbv1.HealthCheck;
type SdkServer = Instancev1.Server;
type Zone = `${string}-${string}-${number}`;
type Region = `${string}-${string}`;

export interface ScalewaySettings {
  accessKey: string;
  secretKey: string;
  projectId?: string;
  defaultZone?: string;
  apiUrl?: string;
  requestTimeoutMs?: number;
  /** Time left in the invocation: each request's timeout is clipped to it (none left: fails at once). */
  remainingMs?: () => number;
  /** The event these calls are made for: the User-Agent then ends in ` event/<id>` (see userAgentFor). */
  eventId?: string;
  /** This deployment's owner id (LBSYNC_OWNER_ID): the User-Agent names it, ` owner/<id>`. */
  ownerId?: string;
  /** Receives every exchange with the API, scrubbed (`lbsync doctor --record`). */
  recorder?: TransportTap;
}

export interface ApiCallCount {
  reads: number;
  writes: number;
  byOperation: Record<string, number>;
  /** The requests' time, all together, and the slowest one's (ms); absent where nothing timed them. */
  ms?: number;
  maxMs?: number;
}

/** Everything the reconciler needs from Scaleway, in domain types. Errors are the SDK's own. */
export interface ScalewayGateway {
  /** The targets' project (SCW_DEFAULT_PROJECT_ID, or the CLI profile's default project); unset: any project. */
  readonly projectId: string | undefined;
  findLbsByName(zone: string, name: string): Promise<ObservedLb[]>;
  getLb(zone: string, lbId: string): Promise<ObservedLb>;
  listBackends(zone: string, lbId: string): Promise<ObservedBackend[]>;
  /** The LB's frontends: the backend each sends traffic to, and every LB the answer names for it (its own, its backend's). */
  listFrontends(zone: string, lbId: string): Promise<ObservedFrontend[]>;
  /** The LB's attachments to private networks (ListLbPrivateNetworks), as the answer describes them. */
  listLbPrivateNetworks(zone: string, lbId: string): Promise<ObservedLbAttachment[]>;
  /** The LB's health checks of one backend's servers, one entry per server per LB instance (ListBackendStats). */
  listBackendHealth(zone: string, lbId: string, backendId: string): Promise<ObservedMemberHealth[]>;
  /** The servers ListServers answers for these tags, as it describes them: discovery checks them (core/discovery-check.ts). */
  listServersByTags(zone: string, tags: readonly string[]): Promise<ObservedServer[]>;
  /** IPAM's IPv4 addresses of these private NICs (one call for all), as IPAM describes them: discovery checks them. */
  listPrivateNicIps(region: string, nicIds: readonly string[]): Promise<IpamIpView[]>;
  /** IPAM's zonal IPv4 addresses of these servers, as kOps' GetServerIP asks for them (one call for all). */
  listZonalIpv4(zone: string, serverIds: readonly string[]): Promise<IpamIpView[]>;
  createBackend(zone: string, lbId: string, action: Extract<Action, { kind: 'CreateBackend' }>): Promise<ObservedBackend>;
  updateBackend(zone: string, action: Extract<Action, { kind: 'UpdateBackend' }>): Promise<void>;
  updateHealthCheck(zone: string, action: Extract<Action, { kind: 'UpdateHealthCheck' }>): Promise<void>;
  setBackendServers(zone: string, backendId: string, pool: readonly string[]): Promise<void>;
  /** AddBackendServers / RemoveBackendServers: only these addresses, whatever else is in the pool at that moment. */
  addBackendServers(zone: string, backendId: string, ips: readonly string[]): Promise<void>;
  removeBackendServers(zone: string, backendId: string, ips: readonly string[]): Promise<void>;
  /** Deletes the backend; one already gone (a 404) is not an error: `deleted` says which it was. */
  deleteBackendIfExists(zone: string, backendId: string): Promise<{ deleted: boolean }>;
  calls(): ApiCallCount;
}

const ID_SEGMENT = /\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const LOCALITY_SEGMENT = /\/(zones|regions)\/[a-z0-9-]+/g;

function operationKey(method: string, url: string): string {
  const path = new URL(url).pathname.replace(LOCALITY_SEGMENT, '/$1/{locality}').replace(ID_SEGMENT, '/{id}');
  return `${method} ${path}`;
}

/** Durations: integer ms on the wire (check_delay, timeouts); "0.5s"-style strings elsewhere. */
export function durationToMs(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.round(value);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text));
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (!match) return undefined;
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(match[1]) * factor);
}

function toObservedLb(lb: SdkLb): ObservedLb {
  return {
    id: lb.id,
    name: lb.name,
    zone: lb.zone,
    status: lb.status,
    instanceStatuses: (lb.instances ?? []).map((instance) => instance.status),
  };
}

/** The config key of each kind of health check (`tcp_config`, `http_config`, ...), as the SDK names it. */
const HEALTH_CHECK_CONFIGS = {
  tcp: 'tcpConfig',
  http: 'httpConfig',
  https: 'httpsConfig',
  mysql: 'mysqlConfig',
  pgsql: 'pgsqlConfig',
  ldap: 'ldapConfig',
  redis: 'redisConfig',
} as const satisfies Record<string, keyof SdkHealthCheck>;

function toObservedHttpCheck(config: Lbv1.HealthCheckHttpConfig | Lbv1.HealthCheckHttpsConfig): ObservedHttpCheck {
  return {
    uri: config.uri,
    ...(typeof config.method === 'string' && { method: config.method }),
    ...(typeof config.code === 'number' && { code: config.code }),
    ...(typeof config.hostHeader === 'string' && { hostHeader: config.hostHeader }),
    ...('sni' in config && typeof config.sni === 'string' && { sni: config.sni }),
  };
}

function toObservedHealthCheck(hc: SdkHealthCheck | undefined): ObservedHealthCheck | undefined {
  if (!hc) return undefined;
  const { port, checkDelay, checkTimeout, checkMaxRetries, checkSendProxy, transientCheckDelay } = hc;
  // The API answers one config, of the check's type. No config reads as TCP, the type a create without one gets.
  const [type, key] = Object.entries(HEALTH_CHECK_CONFIGS).find(([, k]) => hc[k] !== undefined && hc[k] !== null) ?? ['tcp', 'tcpConfig'];
  const checkDelayMs = durationToMs(checkDelay);
  const checkTimeoutMs = durationToMs(checkTimeout);
  const transientCheckDelayMs = durationToMs(transientCheckDelay);
  const http = type === 'http' || type === 'https' ? (hc[key] as Lbv1.HealthCheckHttpConfig | Lbv1.HealthCheckHttpsConfig) : undefined;
  return {
    type,
    port,
    ...(checkDelayMs !== undefined && { checkDelayMs }),
    ...(checkTimeoutMs !== undefined && { checkTimeoutMs }),
    checkMaxRetries,
    checkSendProxy,
    ...(transientCheckDelayMs !== undefined && { transientCheckDelayMs }),
    ...(http && { http: toObservedHttpCheck(http) }),
    passthrough: type in { tcp: 1, http: 1, https: 1 } ? {} : { [key]: hc[key] },
  };
}

/** The fields of section 4 as read: durations in ms (timeout_queue is a "4s"-style duration), a null answer absent. */
function toBackendOptions(backend: SdkBackend): BackendOptions {
  const ms = {
    timeoutServerMs: durationToMs(backend.timeoutServer),
    timeoutConnectMs: durationToMs(backend.timeoutConnect),
    timeoutTunnelMs: durationToMs(backend.timeoutTunnel),
    timeoutQueueMs: durationToMs(backend.timeoutQueue),
  };
  const counts = {
    maxRetries: backend.maxRetries,
    redispatchAttemptCount: backend.redispatchAttemptCount,
    maxConnections: backend.maxConnections,
  };
  return {
    ...(typeof backend.onMarkedDownAction === 'string' && { onMarkedDownAction: backend.onMarkedDownAction }),
    ...Object.fromEntries([...Object.entries(ms), ...Object.entries(counts)].filter(([, v]) => typeof v === 'number')),
  };
}

export function toObservedBackend(backend: SdkBackend): ObservedBackend {
  const {
    id,
    name,
    createdAt,
    forwardProtocol,
    forwardPort,
    forwardPortAlgorithm,
    stickySessions,
    stickySessionsCookieName,
    proxyProtocol,
    healthCheck,
    pool,
    lb,
    updatedAt: _updatedAt,
    onMarkedDownAction: _onMarkedDownAction,
    timeoutServer: _timeoutServer,
    timeoutConnect: _timeoutConnect,
    timeoutTunnel: _timeoutTunnel,
    maxRetries: _maxRetries,
    redispatchAttemptCount: _redispatchAttemptCount,
    maxConnections: _maxConnections,
    timeoutQueue: _timeoutQueue,
    ...passthrough
  } = backend;
  const observedHealthCheck = toObservedHealthCheck(healthCheck);
  return {
    id,
    name,
    ...(createdAt && { createdAt: createdAt.toISOString() }),
    forwardProtocol,
    forwardPort,
    forwardPortAlgorithm,
    stickySessions,
    stickySessionsCookieName: stickySessionsCookieName ?? '',
    proxyProtocol,
    ...toBackendOptions(backend),
    ...(observedHealthCheck && { healthCheck: observedHealthCheck }),
    pool: normalisePool(pool ?? []),
    ...(lb?.id && { lbId: lb.id }),
    passthrough: Object.fromEntries(Object.entries(passthrough).filter(([, v]) => v !== undefined && v !== null)),
  };
}

export function toObservedServer(server: SdkServer): ObservedServer {
  const publicIps = (server.publicIps ?? []).length > 0 ? (server.publicIps ?? []) : server.publicIp ? [server.publicIp] : [];
  const ipv4 = publicIps.filter((ip) => ip.family === 'inet');
  // A routed IPv6's entry has the server's SLAAC address (instance-server-ipv6 #11); the legacy `ipv6` field is not read.
  const ipv6 = publicIps.filter((ip) => ip.family === 'inet6');
  return {
    id: server.id,
    name: server.name,
    state: server.state,
    tags: [...(server.tags ?? [])],
    zone: server.zone,
    projectId: server.project,
    publicIpv4: ipv4.map((ip) => ip.address),
    publicIpv6: ipv6.map((ip) => ip.address),
    ipStates: Object.fromEntries([...ipv4, ...ipv6].map((ip) => [ip.address, ip.state || 'none'])),
    // A routed IP is an IPAM IP: the Instance API gives its IPAM id (recorded: lb-backend-basic, routed_ipv4
    // with ipam_id == id). A legacy NAT IP has none, and kOps' IPAM lookup would not find it either.
    routedIpv4: ipv4.filter((ip) => typeof ip.ipamId === 'string' && ip.ipamId !== '').map((ip) => ip.address),
    privateNics: (server.privateNics ?? []).map((nic) => ({ id: nic.id, privateNetworkId: nic.privateNetworkId })),
  };
}

export function toIpamIpView(ip: Ipamv1.IP): IpamIpView {
  return {
    address: ip.address,
    isIpv6: ip.isIpv6,
    ...(ip.source?.zonal && { zonal: ip.source.zonal }),
    ...(ip.resource?.id && { resourceId: ip.resource.id }),
    ...(ip.resource?.type && { resourceType: ip.resource.type }),
    ...(ip.createdAt && { createdAt: ip.createdAt.toISOString() }),
  };
}

// The SDK types durations as strings but the API takes integer milliseconds; send numbers.
const asWireMs = (ms: number) => ms as unknown as string;
// transient_check_delay and timeout_queue are protobuf Durations on the wire: "0.5s" (lb-backend-basic #30, #31).
const asWireDuration = (ms: number) => `${ms / 1000}s`;

function httpConfigRequest(http: ObservedHttpCheck | undefined): Lbv1.HealthCheckHttpConfig {
  return { uri: http?.uri ?? '', method: http?.method, code: http?.code, hostHeader: http?.hostHeader } as Lbv1.HealthCheckHttpConfig;
}

/**
 * The check's config by its type. A type we do not model is sent back as read (passthrough). The SDK sends the first
 * config it is given.
 */
function healthCheckConfig(hc: ObservedHealthCheck): Partial<SdkHealthCheck> {
  switch (hc.type) {
    case 'tcp':
      return { tcpConfig: {} };
    case 'http':
      return { httpConfig: httpConfigRequest(hc.http) };
    case 'https':
      return { httpsConfig: { ...httpConfigRequest(hc.http), sni: hc.http?.sni } as Lbv1.HealthCheckHttpsConfig };
    default:
      return hc.passthrough;
  }
}

function healthCheckRequest(hc: ObservedHealthCheck) {
  return {
    ...healthCheckConfig(hc),
    port: hc.port,
    checkMaxRetries: hc.checkMaxRetries,
    checkSendProxy: hc.checkSendProxy,
    ...(hc.checkDelayMs !== undefined && { checkDelay: asWireMs(hc.checkDelayMs) }),
    ...(hc.checkTimeoutMs !== undefined && { checkTimeout: asWireMs(hc.checkTimeoutMs) }),
    ...(hc.transientCheckDelayMs !== undefined && { transientCheckDelay: asWireDuration(hc.transientCheckDelayMs) }),
  };
}

/** The fields of section 4 a write sends, in the wire's units; one absent is left out of the request. */
function backendOptionsRequest(options: BackendOptions) {
  return {
    ...(options.onMarkedDownAction !== undefined && { onMarkedDownAction: options.onMarkedDownAction as Lbv1.OnMarkedDownAction }),
    ...(options.timeoutServerMs !== undefined && { timeoutServer: asWireMs(options.timeoutServerMs) }),
    ...(options.timeoutConnectMs !== undefined && { timeoutConnect: asWireMs(options.timeoutConnectMs) }),
    ...(options.timeoutTunnelMs !== undefined && { timeoutTunnel: asWireMs(options.timeoutTunnelMs) }),
    ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
    ...(options.redispatchAttemptCount !== undefined && { redispatchAttemptCount: options.redispatchAttemptCount }),
    ...(options.maxConnections !== undefined && { maxConnections: options.maxConnections }),
    ...(options.timeoutQueueMs !== undefined && { timeoutQueue: asWireDuration(options.timeoutQueueMs) }),
  };
}

/**
 * The gateway over the official SDK (LB, Instance, IPAM), one per invocation. Every request has a time limit (the
 * request timeout, cut to the time left in the invocation), is counted (calls()) and carries our User-Agent. A
 * failure is the SDK's own error, with the key scrubbed from its messages (sdk-http-client.ts); the steps report it
 * through callGateway (api-failure.ts).
 */
export function createScalewayGateway(settings: ScalewaySettings): ScalewayGateway {
  const count: ApiCallCount = { reads: 0, writes: 0, byOperation: {}, ms: 0, maxMs: 0 };
  const timeRequest = (_method: string, _url: string, ms: number) => {
    count.ms = (count.ms ?? 0) + ms;
    count.maxMs = Math.max(count.maxMs ?? 0, ms);
  };
  const countRequest = (method: string, url: string) => {
    if (method === 'GET') count.reads += 1;
    else count.writes += 1;
    const key = operationKey(method, url);
    count.byOperation[key] = (count.byOperation[key] ?? 0) + 1;
  };
  const client = createSdkClient({
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    apiUrl: settings.apiUrl,
    requestTimeoutMs: settings.requestTimeoutMs,
    defaults: { defaultProjectId: settings.projectId, defaultZone: settings.defaultZone as Zone | undefined },
    pageSize: PAGE_SIZE,
    // Audit Trail records it: the watcher ignores the writes that carry it (our own). The event id lets the
    // API's own logs (and the chaos run, through the emulator's call log) tie each call to its event.
    userAgent: userAgentFor(settings.eventId, settings.ownerId),
    http: {
      ...(settings.remainingMs && { remainingMs: settings.remainingMs }),
      onRequest: countRequest,
      onDone: timeRequest,
      ...(settings.recorder && { recorder: settings.recorder }),
    },
  });
  const lb = new Lbv1.ZonedAPI(client);
  const instance = new Instancev1.API(client);
  const ipam = new Ipamv1.API(client);
  const ipamIps = async (request: Omit<Ipamv1.ListIPsRequest, 'page' | 'pageSize'>) =>
    (await readPages('ListIPs', async (page, pageSize) => (await ipam.listIPs({ ...request, page, pageSize })).ips)).map(toIpamIpView);

  return {
    projectId: settings.projectId,
    async findLbsByName(zone, name) {
      const lbs = await readPages(
        'ListLbs',
        async (page, pageSize) => (await lb.listLbs({ zone: zone as Zone, name, page, pageSize })).lbs,
      );
      return lbs.filter((candidate) => candidate.name === name).map(toObservedLb);
    },
    async getLb(zone, lbId) {
      return toObservedLb(await lb.getLb({ zone: zone as Zone, lbId }));
    },
    async listBackends(zone, lbId) {
      const backends = await readPages(
        'ListBackends',
        async (page, pageSize) => (await lb.listBackends({ zone: zone as Zone, lbId, page, pageSize })).backends,
      );
      return backends.map(toObservedBackend);
    },
    async listFrontends(zone, lbId) {
      const frontends = await readPages(
        'ListFrontends',
        async (page, pageSize) => (await lb.listFrontends({ zone: zone as Zone, lbId, page, pageSize })).frontends,
      );
      return frontends.map((frontend) => ({
        id: frontend.id,
        ...(frontend.backend?.id && { backendId: frontend.backend.id }),
        lbIds: [frontend.lb?.id, frontend.backend?.lb?.id].filter((id): id is string => typeof id === 'string' && id !== ''),
      }));
    },
    async listLbPrivateNetworks(zone, lbId) {
      const attachments = await readPages(
        'ListLbPrivateNetworks',
        async (page, pageSize) => (await lb.listLbPrivateNetworks({ zone: zone as Zone, lbId, page, pageSize })).privateNetwork,
      );
      return attachments.map((attachment) => ({
        privateNetworkId: attachment.privateNetworkId,
        status: attachment.status,
        ...(attachment.lb?.id && { lbId: attachment.lb.id }),
      }));
    },
    async listBackendHealth(zone, lbId, backendId) {
      const stats = await readPages(
        'ListBackendStats',
        async (page, pageSize) => (await lb.listBackendStats({ zone: zone as Zone, lbId, backendId, page, pageSize })).backendServersStats,
      );
      return stats.map((s) => ({
        ip: s.ip,
        status: s.lastHealthCheckStatus,
        serverState: s.serverState,
        instanceId: s.instanceId,
        ...(s.backendId && { backendId: s.backendId }),
      }));
    },
    async listServersByTags(zone, tags) {
      const servers = await readPages(
        'ListServers',
        async (page, perPage) => (await instance.listServers({ zone: zone as Zone, tags: [...tags], page, perPage })).servers,
      );
      return servers.map(toObservedServer);
    },
    async listPrivateNicIps(region, nicIds) {
      if (nicIds.length === 0) return [];
      return ipamIps({ region: region as Region, resourceIds: [...nicIds], resourceType: 'instance_private_nic', isIpv6: false });
    },
    async listZonalIpv4(zone, serverIds) {
      return ipamIps({
        region: regionOf(zone) as Region,
        zonal: zone,
        isIpv6: false,
        ...(serverIds.length > 0 && { resourceIds: [...serverIds] }),
        orderBy: 'created_at_desc',
      });
    },
    async createBackend(zone, lbId, action) {
      const { spec, healthCheck, pool } = action;
      const created = await lb.createBackend({
        ...backendOptionsRequest(action.options),
        zone: zone as Zone,
        lbId,
        name: spec.name,
        forwardProtocol: spec.forwardProtocol,
        forwardPort: spec.forwardPort,
        forwardPortAlgorithm: spec.forwardPortAlgorithm,
        stickySessions: spec.stickySessions,
        stickySessionsCookieName: spec.stickySessionsCookieName ?? '',
        proxyProtocol: spec.proxyProtocol,
        healthCheck: healthCheckRequest(healthCheck),
        serverIp: [...pool],
      });
      return toObservedBackend(created);
    },
    async updateBackend(zone, action) {
      const { spec, passthrough } = action;
      await lb.updateBackend({
        ...(passthrough as Partial<Lbv1.ZonedApiUpdateBackendRequest>),
        ...backendOptionsRequest(action.options),
        zone: zone as Zone,
        backendId: action.backendId,
        name: spec.name,
        forwardProtocol: spec.forwardProtocol,
        forwardPort: spec.forwardPort,
        forwardPortAlgorithm: spec.forwardPortAlgorithm,
        stickySessions: spec.stickySessions,
        stickySessionsCookieName: spec.stickySessionsCookieName ?? (passthrough.stickySessionsCookieName as string | undefined) ?? '',
        proxyProtocol: spec.proxyProtocol,
      });
    },
    async updateHealthCheck(zone, action) {
      await lb.updateHealthCheck({ zone: zone as Zone, backendId: action.backendId, ...healthCheckRequest(action.healthCheck) });
    },
    async setBackendServers(zone, backendId, pool) {
      await lb.setBackendServers({ zone: zone as Zone, backendId, serverIp: [...pool] });
    },
    async addBackendServers(zone, backendId, ips) {
      await lb.addBackendServers({ zone: zone as Zone, backendId, serverIp: [...ips] });
    },
    async removeBackendServers(zone, backendId, ips) {
      await lb.removeBackendServers({ zone: zone as Zone, backendId, serverIp: [...ips] });
    },
    async deleteBackendIfExists(zone, backendId) {
      try {
        await lb.deleteBackend({ zone: zone as Zone, backendId });
        return { deleted: true };
      } catch (error) {
        if (classifyApiFailure(error, 'backend_not_found').code === 'backend_not_found') return { deleted: false };
        throw error;
      }
    },
    calls() {
      return {
        reads: count.reads,
        writes: count.writes,
        byOperation: { ...count.byOperation },
        ms: count.ms ?? 0,
        maxMs: count.maxMs ?? 0,
      };
    },
  };
}

/**
 * Every call of the gateway, marked read or write. The type forces each new call to be marked, so that a shadow
 * deployment refuses every write before anything is sent.
 */
const GATEWAY_CALLS = {
  findLbsByName: 'read',
  getLb: 'read',
  listBackends: 'read',
  listFrontends: 'read',
  listLbPrivateNetworks: 'read',
  listBackendHealth: 'read',
  listServersByTags: 'read',
  listPrivateNicIps: 'read',
  listZonalIpv4: 'read',
  createBackend: 'write',
  updateBackend: 'write',
  updateHealthCheck: 'write',
  setBackendServers: 'write',
  addBackendServers: 'write',
  removeBackendServers: 'write',
  deleteBackendIfExists: 'write',
} as const satisfies Record<Exclude<keyof ScalewayGateway, 'projectId' | 'calls'>, 'read' | 'write'>;

/** The gateway's calls that write. */
export const WRITE_CALLS = (Object.keys(GATEWAY_CALLS) as (keyof typeof GATEWAY_CALLS)[]).filter((call) => GATEWAY_CALLS[call] === 'write');

/**
 * The gateway of a shadow deployment (LBSYNC_MODE=shadow): every read as it is, every write refused before it is
 * sent. The reconcile plans without writing anyway; this is the second lock, so that no path can write.
 */
export function withoutWrites(gateway: ScalewayGateway): ScalewayGateway {
  const refuse = (call: string) => () =>
    Promise.reject(
      new LbSyncError('unknown_api_error', `${call} refused before it was sent: this deployment is in shadow mode (LBSYNC_MODE=shadow)`),
    );
  // Own properties, like the gateway's, so wrappers that copy it ({ ...gateway }, reconcile/health-read-once.ts) keep every call.
  return { ...gateway, ...Object.fromEntries(WRITE_CALLS.map((call) => [call, refuse(call)])) };
}
