/**
 * Audit Trail event JSON. The keys and their shapes are those of the recorded ListEvents answers
 * (test/fixtures/audit-trail/, a Secret Manager event): id, recorded_at, locality, principal.id,
 * organization_id, project_id, source_ip, user_agent, product_name, service_name, method_name,
 * request_id, request_body, status_code, resources[] with id, type, created_at, updated_at,
 * deleted_at, name and one `<type>_info` object.
 * RECORDED for the Instance API's ServerAction (instance-action-server-basic #35, #36, #42): product
 * `instance`, service `scaleway.instance.v1.Api`, `locality` the zone, `request_body` `{"action": ...}`,
 * `status_code` 202 (the call's HTTP status, as CreateSecret's 200 is), and a resource with `updated_at: null`
 * and no `instance_server_info`.
 * ASSUMED: the other Instance methods' events (CreateServer, UpdateServer, DeleteServer: their resource with an
 * `instance_server_info`), the LB API's product and service names, its events' form, and `status_code` being the
 * HTTP status each call answered.
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

/** A server as a ServerAction event names it (recorded): no `instance_server_info`, `updated_at: null`. */
export function serverActionResource(server: Pick<ServerRecord, 'id' | 'name' | 'createdAt'>): WireAuditResource {
  return { id: server.id, type: 'instance_server', created_at: server.createdAt, updated_at: null, deleted_at: null, name: server.name };
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
