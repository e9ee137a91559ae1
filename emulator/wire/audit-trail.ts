/**
 * Audit Trail event JSON. The keys and their shapes are those of the recorded ListEvents answers
 * (test/fixtures/audit-trail/, a Secret Manager event): id, recorded_at, locality, principal.id,
 * organization_id, project_id, source_ip, user_agent, product_name, service_name, method_name,
 * request_id, request_body, status_code, resources[] with id, type, created_at, updated_at,
 * deleted_at, name and one `<type>_info` object.
 * ASSUMED (no recording of these products): the product and service names of the Instance and LB
 * APIs, the method names (the APIs' own: CreateServer, SetBackendServers, ...), `locality` being the
 * zone for these zoned resources, and the request bodies as the API received them.
 */
import type { BackendRecord, ServerRecord } from '../records';

export const INSTANCE_SERVICE = { product_name: 'instance', service_name: 'scaleway.instance.v1.Api' } as const;
export const LB_SERVICE = { product_name: 'load-balancer', service_name: 'scaleway.lb.v1.ZonedApi' } as const;

export type WireAuditResource = Record<string, unknown> & { id: string; type: string };
export type WireAuditEvent = Record<string, unknown> & {
  id: string;
  recorded_at: string;
  locality: string;
  resources: WireAuditResource[];
};

export function serverResource(
  server: Pick<ServerRecord, 'id' | 'name' | 'createdAt' | 'modifiedAt'>,
  deletedAt: string | null = null,
): WireAuditResource {
  return {
    id: server.id,
    type: 'instance_server',
    created_at: server.createdAt,
    updated_at: server.modifiedAt,
    deleted_at: deletedAt,
    name: server.name,
    instance_server_info: { name: server.name },
  };
}

export function backendResource(
  backend: Pick<BackendRecord, 'id' | 'lbId' | 'createdAt' | 'updatedAt'> & { name: string },
  deletedAt: string | null = null,
): WireAuditResource {
  return {
    id: backend.id,
    type: 'load_balancer_backend',
    created_at: backend.createdAt,
    updated_at: backend.updatedAt,
    deleted_at: deletedAt,
    name: backend.name,
    load_balancer_backend_info: { lb_id: backend.lbId, name: backend.name },
  };
}
