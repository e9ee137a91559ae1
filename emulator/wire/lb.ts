/** LB API JSON shapes, field for field as in the recordings. */
import { formatProtoDuration } from '../durations';
import type { BackendRecord, FrontendRecord, HealthCheckFields, LbAttachmentRecord, LbRecord } from '../records';
import { regionOfZone } from '../seed';
import type { EmulatorState } from '../state';

export function renderLb(state: EmulatorState, lb: LbRecord, now = Date.now()): Record<string, unknown> {
  const status = state.lbStatus(lb, now);
  const region = regionOfZone(lb.zone);
  // Two instances when the LB reports health from two (switch lbInstanceReports); they flip together.
  const listed = state.behaviours.lbInstanceReports === 'one' ? [lb.instance] : [lb.instance, lb.secondInstance];
  const instances =
    status === 'to_create'
      ? []
      : listed.map((instance) => ({
          created_at: instance.createdAt,
          id: instance.id,
          ip_address: '',
          region,
          status: state.instanceStatus(lb, now),
          updated_at: state.instanceUpdatedAt(lb, now),
          zone: lb.zone,
        }));
  return {
    backend_count: state.backendsOf(lb.id).length,
    created_at: lb.createdAt,
    description: lb.description,
    frontend_count: state.frontendsOf(lb.id).length,
    id: lb.id,
    instances,
    ip: [
      {
        id: lb.ip.id,
        ip_address: lb.ip.address,
        lb_id: lb.id,
        organization_id: lb.organizationId,
        project_id: lb.projectId,
        region,
        reverse: `${lb.ip.address.replaceAll('.', '-')}.lb.${region}.scw.cloud`,
        tags: [],
        zone: lb.zone,
      },
    ],
    name: lb.name,
    organization_id: lb.organizationId,
    private_network_count: lb.privateNetworks.length,
    project_id: lb.projectId,
    region,
    route_count: 0,
    ssl_compatibility_level: lb.sslCompatibilityLevel,
    status,
    subscriber: null,
    tags: [...lb.tags],
    type: lb.type,
    updated_at: lb.updatedAt,
    zone: lb.zone,
  };
}

export function renderHealthCheck(healthCheck: HealthCheckFields): Record<string, unknown> {
  return {
    check_delay: healthCheck.check_delay,
    check_max_retries: healthCheck.check_max_retries,
    check_send_proxy: healthCheck.check_send_proxy,
    check_timeout: healthCheck.check_timeout,
    [healthCheck.config.key]: { ...healthCheck.config.value },
    port: healthCheck.port,
    transient_check_delay: healthCheck.transient_check_delay_ms === null ? null : formatProtoDuration(healthCheck.transient_check_delay_ms),
  };
}

export function renderBackend(state: EmulatorState, backend: BackendRecord, now = Date.now()): Record<string, unknown> {
  const lb = state.lbs.get(backend.lbId);
  const s = backend.settings;
  return {
    created_at: backend.createdAt,
    failover_host: s.failover_host,
    forward_port: s.forward_port,
    forward_port_algorithm: s.forward_port_algorithm,
    forward_protocol: s.forward_protocol,
    health_check: renderHealthCheck(backend.healthCheck),
    host: '',
    id: backend.id,
    ignore_ssl_server_verify: s.ignore_ssl_server_verify,
    lb: lb ? renderLb(state, lb, now) : null,
    max_connections: s.max_connections,
    max_retries: s.max_retries,
    name: s.name,
    on_marked_down_action: s.on_marked_down_action,
    pool: [...backend.pool],
    proxy_protocol: s.proxy_protocol,
    redispatch_attempt_count: s.redispatch_attempt_count,
    send_proxy_v2: s.send_proxy_v2,
    ssl_bridging: s.ssl_bridging,
    sticky_sessions: s.sticky_sessions,
    sticky_sessions_cookie_name: s.sticky_sessions_cookie_name,
    timeout_connect: s.timeout_connect,
    timeout_queue: s.timeout_queue_ms === null ? null : formatProtoDuration(s.timeout_queue_ms),
    timeout_server: s.timeout_server,
    timeout_tunnel: s.timeout_tunnel,
    updated_at: backend.updatedAt,
  };
}

/** A frontend as ListFrontends answers it, with its backend and LB embedded. */
export function renderFrontend(state: EmulatorState, frontend: FrontendRecord, now = Date.now()): Record<string, unknown> {
  const lb = state.lbs.get(frontend.lbId);
  const backend = state.backends.get(frontend.backendId);
  return {
    backend: backend ? renderBackend(state, backend, now) : null,
    certificate: null,
    certificate_ids: [],
    connection_rate_limit: null,
    created_at: frontend.createdAt,
    enable_access_logs: false,
    enable_http3: false,
    id: frontend.id,
    inbound_port: frontend.inboundPort,
    lb: lb ? renderLb(state, lb, now) : null,
    name: frontend.name,
    timeout_client: null,
    updated_at: frontend.createdAt,
  };
}

/**
 * An LB's attachment to a private network as ListLbPrivateNetworks answers it (lb-with-private-networks-ipam-ids #11,
 * #12): its LB embedded with no instances (so recorded, while GetLb lists one), and the deprecated `dhcp_config`
 * echoing the first IPAM id.
 */
export function renderLbAttachment(
  state: EmulatorState,
  lb: LbRecord,
  attachment: LbAttachmentRecord,
  now = Date.now(),
): Record<string, unknown> {
  return {
    created_at: attachment.createdAt,
    dhcp_config: { ip_id: attachment.ipamIds[0] ?? null },
    ipam_ids: [...attachment.ipamIds],
    lb: { ...renderLb(state, lb, now), instances: [] },
    private_network_id: attachment.privateNetworkId,
    status: attachment.status,
    updated_at: attachment.updatedAt,
  };
}
