/** The records the emulator's state holds (LBs, backends, frontends, servers, IPAM IPs); rendered to wire JSON by wire/. */
import type { LbStatus } from './contract';

export interface HealthCheckFields {
  port: number;
  check_delay: number | null;
  check_timeout: number | null;
  check_max_retries: number;
  check_send_proxy: boolean;
  /** Milliseconds; rendered as a protobuf Duration string. */
  transient_check_delay_ms: number | null;
  /** Exactly one of tcp_config, http_config, https_config, mysql_config, pgsql_config, ldap_config, redis_config. */
  config: { key: string; value: Record<string, unknown> };
}

/** Backend settings written by CreateBackend / UpdateBackend, in the API's field names. */
export interface BackendSettings {
  name: string;
  forward_protocol: string;
  forward_port: number;
  forward_port_algorithm: string;
  sticky_sessions: string;
  sticky_sessions_cookie_name: string;
  on_marked_down_action: string;
  proxy_protocol: string;
  failover_host: string | null;
  ssl_bridging: boolean;
  ignore_ssl_server_verify: boolean | null;
  redispatch_attempt_count: number | null;
  max_retries: number | null;
  max_connections: number | null;
  send_proxy_v2: boolean;
  timeout_server: number | null;
  timeout_connect: number | null;
  timeout_tunnel: number | null;
  /** Milliseconds; rendered as a protobuf Duration string. */
  timeout_queue_ms: number | null;
}

export interface BackendRecord {
  id: string;
  lbId: string;
  settings: BackendSettings;
  healthCheck: HealthCheckFields;
  pool: string[];
  createdAt: string;
  updatedAt: string;
}

/** A frontend: only what backend clean-up needs to know (which backend it sends traffic to). */
export interface FrontendRecord {
  id: string;
  lbId: string;
  name: string;
  inboundPort: number;
  backendId: string;
  createdAt: string;
}

/** An LB's attachment to a private network. */
export interface LbAttachmentRecord {
  privateNetworkId: string;
  status: 'ready' | 'pending' | 'error' | 'unknown';
  ipamIds: string[];
  createdAt: string;
  updatedAt: string;
}

export interface LbRecord {
  id: string;
  name: string;
  description: string;
  zone: string;
  projectId: string;
  organizationId: string;
  tags: string[];
  type: string;
  sslCompatibilityLevel: string;
  createdAt: string;
  updatedAt: string;
  ip: { id: string; address: string };
  instance: { id: string; createdAt: string };
  /** A second LB instance, listed and reporting health only when the switch `lbInstanceReports` says two. */
  secondInstance: { id: string; createdAt: string };
  status: LbStatus;
  /** When set, `status` falls back to 'ready' at this epoch ms (checked lazily on read). */
  statusRevertsAt: number | null;
  /** Instances show 'pending' until this epoch ms, after a backend mutation. */
  instancesPendingUntil: number;
  instancesUpdatedAt: number;
  /** The private networks it is attached to (ListLbPrivateNetworks). */
  privateNetworks: LbAttachmentRecord[];
}

export interface ServerPublicIp {
  id: string;
  address: string;
  family: 'inet' | 'inet6';
}

export interface ServerPrivateNic {
  id: string;
  privateNetworkId: string;
  macAddress: string;
  createdAt: string;
}

export interface ServerRecord {
  id: string;
  name: string;
  zone: string;
  tags: string[];
  state: string;
  projectId: string;
  organizationId: string;
  commercialType: string;
  macAddress: string;
  publicIps: ServerPublicIp[];
  privateNics: ServerPrivateNic[];
  createdAt: string;
  modifiedAt: string;
  /** Ports a TCP health check finds open while it runs; null: every port (emulator/health.ts). */
  listensOn: number[] | null;
}

export interface IpamIpRecord {
  id: string;
  /** CIDR form, e.g. "10.0.0.2/22" or "51.15.1.2/32". */
  address: string;
  isIpv6: boolean;
  region: string;
  zone: string | null;
  projectId: string;
  source: Record<string, string>;
  privateNetworkId: string | null;
  resource: { type: string; id: string; mac_address: string | null; name: string | null } | null;
  /** Reverse DNS names, as ListIPs lists them. */
  reverses: { address: string | null; hostname: string }[];
  tags: string[];
  createdAt: string;
  updatedAt: string;
  /** Server whose NIC or public IP this address belongs to; removed with it. */
  ownerServerId: string | null;
}
