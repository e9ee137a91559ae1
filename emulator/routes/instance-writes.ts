/**
 * Instance API writes, as kOps makes them: CreateServer (recorded: 201 `{"server": ...}`, the server `stopped`),
 * UpdateServer (PATCH, tags; not recorded: the SDK's shape), ServerAction (recorded: 202 `{"task": ...}`). Each is
 * recorded in Audit Trail with the caller's identity; the states follow emulator/server-lifecycle.ts.
 * ASSUMED: a server created without `public_ips` gets its routed public IPv4 at once (kOps asks routed_ip_enabled and
 * leaves dynamic_ip_required to the API's default); its volumes and user data are not modelled.
 */
import { randomUUID } from 'node:crypto';
import { requireObjectBody } from '../backend-input';
import { apiErrors } from '../errors';
import type { JsonAnswer, Route, RouteContext } from '../http';
import type { ServerRecord } from '../records';
import { API_SERVER_ACTIONS, type ApiServerAction } from '../server-lifecycle';
import { renderServer } from '../wire/instance';

function invalid(argument: string, help: string): never {
  throw apiErrors.invalidArguments([{ argument_name: argument, reason: 'constraint', help_message: help }]);
}

function stringList(value: unknown, argument: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) invalid(argument, 'expected a list of strings');
  return value as string[];
}

function findServer(ctx: RouteContext): ServerRecord {
  const id = ctx.params.serverId ?? '';
  const server = ctx.state.servers.get(id);
  if (!server || server.zone !== ctx.params.zone) throw apiErrors.instanceNotFound('instance_server', id);
  return server;
}

function createServer(ctx: RouteContext): JsonAnswer {
  const body = requireObjectBody(ctx.body);
  if (typeof body.name !== 'string' || body.name === '') invalid('name', 'required key not provided');
  if (typeof body.commercial_type !== 'string' || body.commercial_type === '') invalid('commercial_type', 'required key not provided');
  const tags = body.tags === undefined || body.tags === null ? [] : stringList(body.tags, 'tags');
  const server = ctx.servers.create(
    { name: body.name as string, zone: ctx.params.zone ?? '', commercialType: body.commercial_type as string, tags },
    ctx.actor,
  );
  return { status: 201, body: { server: renderServer(ctx.state, server) } };
}

function updateServer(ctx: RouteContext): JsonAnswer {
  const server = findServer(ctx);
  const body = requireObjectBody(ctx.body);
  const patch = {
    ...(body.tags !== undefined && body.tags !== null && { tags: stringList(body.tags, 'tags') }),
    ...(typeof body.name === 'string' && { name: body.name }),
  };
  return { status: 200, body: { server: renderServer(ctx.state, ctx.servers.update(server, patch, ctx.actor)) } };
}

function serverAction(ctx: RouteContext): JsonAnswer {
  const server = findServer(ctx);
  const body = ctx.body === undefined ? {} : requireObjectBody(ctx.body);
  // The Go SDK sends the zero value "" for an unset enum; the API takes it as its default, poweron.
  const action = (body.action === undefined || body.action === '' ? 'poweron' : body.action) as ApiServerAction;
  if (!API_SERVER_ACTIONS.includes(action)) invalid('action', `must be one of: ${API_SERVER_ACTIONS.join(', ')}`);
  const startedAt = new Date().toISOString().replace('Z', '+00:00');
  ctx.servers.action(server, action, ctx.actor);
  return {
    status: 202,
    body: {
      task: {
        id: randomUUID(),
        description: `server_${action}`,
        status: 'pending',
        href_from: `/servers/${server.id}/action`,
        href_result: `/servers/${server.id}`,
        started_at: startedAt,
        terminated_at: null,
        progress: 0,
        zone: server.zone,
      },
    },
  };
}

export const instanceWriteRoutes: Route[] = [
  { method: 'POST', pattern: '/instance/v1/zones/{zone}/servers', operation: 'CreateServer', handle: createServer },
  { method: 'PATCH', pattern: '/instance/v1/zones/{zone}/servers/{serverId}', operation: 'UpdateServer', handle: updateServer },
  { method: 'POST', pattern: '/instance/v1/zones/{zone}/servers/{serverId}/action', operation: 'ServerAction', handle: serverAction },
];
