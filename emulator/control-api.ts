/** The control API under /_emulator/: lets other processes drive the emulator over HTTP (no auth). */
import { type EmulatorBehaviours, readBehaviours } from './behaviours';
import { matchRoute, type JsonAnswer, type Route } from './http';
import { LB_STATUSES, type EmulatorSeed, type FaultSpec, type LbStatus, type SeedServer } from './contract';
import { SERVER_ACTIONS, type EmulatorOperations, type ServerActionName } from './operations';
import { HEALTH_CHECK_STATUSES, type HealthCheckStatus } from './health';
import type { WireAuditEvent } from './wire/audit-trail';

interface ControlContext {
  params: Record<string, string>;
  body: unknown;
  operations: EmulatorOperations;
}

class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  throw new ControlError(400, 'expected a JSON object body');
}

function serverBody(ctx: ControlContext, pathId: string | undefined): SeedServer {
  const body = objectBody(ctx.body);
  if (typeof body.name !== 'string' || typeof body.zone !== 'string' || !Array.isArray(body.tags)) {
    throw new ControlError(400, 'a server needs name, zone and tags');
  }
  return { ...(body as unknown as SeedServer), ...(pathId ? { id: pathId } : {}) };
}

const ok = (body: unknown = { ok: true }): JsonAnswer => ({ status: 200, body });

/** A server named by its id or by its exact name (a demo's curl names a control plane, whose id changes each replacement). */
function serverIdOf(ctx: ControlContext, idOrName: string): string {
  const { servers } = ctx.operations.state;
  if (servers.has(idOrName)) return idOrName;
  const named = [...servers.values()].filter((s) => s.name === idOrName);
  if (named.length === 1) return (named[0] as { id: string }).id;
  if (named.length > 1) throw new ControlError(409, `${named.length} servers are named ${idOrName}: name one by its id`);
  throw new ControlError(404, `no server ${idOrName} (servers: ${[...servers.values()].map((s) => `${s.name} ${s.id}`).join(', ')})`);
}

/** The first public IPv4 of this /24 that no server holds, from .31 up (the demo's replacements: 51.15.100.31, .32...). */
function freeAddress(ctx: ControlContext, near: string | undefined): string {
  const taken = new Set([...ctx.operations.state.servers.values()].flatMap((s) => s.publicIps.map((ip) => ip.address)));
  const prefix = (near ?? '51.15.100.1').split('.').slice(0, 3).join('.');
  for (let host = 31; host < 255; host += 1) if (!taken.has(`${prefix}.${host}`)) return `${prefix}.${host}`;
  throw new ControlError(409, `no free address left in ${prefix}.0/24`);
}

/**
 * A new server from a body that may leave out what `like` gives (a replacement) or the emulator makes up (an
 * address; a routed IPv6 with `routedIpv6: true`, or when the server replaced had one).
 */
function newServerBody(
  ctx: ControlContext,
  like?: { name: string; zone: string; tags: string[]; publicIps: { address: string; family: string }[] },
): SeedServer {
  const body = ctx.body === undefined || ctx.body === null ? {} : objectBody(ctx.body);
  const name = typeof body.name === 'string' ? body.name : like?.name;
  const tags = Array.isArray(body.tags) ? (body.tags as string[]) : like?.tags;
  if (!name || !tags) throw new ControlError(400, "a new server needs a name and tags (a replacement takes the old one's)");
  if (body.routedIpv6 !== undefined && typeof body.routedIpv6 !== 'boolean')
    throw new ControlError(400, 'routedIpv6 must be true or false');
  const given = Array.isArray(body.publicIps);
  const likeV4 = like?.publicIps.find((ip) => ip.family === 'inet')?.address;
  const publicIps = given ? (body.publicIps as string[]) : [freeAddress(ctx, likeV4)];
  const routedIpv6 =
    typeof body.routedIpv6 === 'boolean' ? body.routedIpv6 : !given && (like?.publicIps.some((ip) => ip.family === 'inet6') ?? false);
  return {
    ...(body as unknown as SeedServer),
    name,
    zone: typeof body.zone === 'string' ? body.zone : (like?.zone ?? 'fr-par-1'),
    tags,
    publicIps,
    ...(routedIpv6 && { routedIpv6 }),
  };
}

const controlRoutes: Route<ControlContext>[] = [
  { method: 'GET', pattern: '/_emulator/health', operation: 'Health', handle: () => ok({ ok: true }) },
  { method: 'GET', pattern: '/_emulator/calls', operation: 'Calls', handle: (ctx) => ok({ calls: ctx.operations.calls() }) },
  {
    method: 'DELETE',
    pattern: '/_emulator/calls',
    operation: 'ResetCalls',
    handle: (ctx) => {
      ctx.operations.resetCalls();
      return ok();
    },
  },
  {
    method: 'GET',
    pattern: '/_emulator/history',
    operation: 'History',
    handle: (ctx) => ok({ history: ctx.operations.history() }),
  },
  {
    method: 'DELETE',
    pattern: '/_emulator/history',
    operation: 'ResetHistory',
    handle: (ctx) => {
      ctx.operations.resetHistory();
      return ok();
    },
  },
  { method: 'GET', pattern: '/_emulator/faults', operation: 'Faults', handle: (ctx) => ok({ faults: ctx.operations.faults() }) },
  {
    method: 'POST',
    pattern: '/_emulator/faults',
    operation: 'AddFaults',
    handle: (ctx) => {
      const specs = (Array.isArray(ctx.body) ? ctx.body : [objectBody(ctx.body)]) as FaultSpec[];
      try {
        ctx.operations.addFaults(specs);
      } catch (error) {
        throw new ControlError(400, (error as Error).message);
      }
      return ok({ added: specs.length });
    },
  },
  {
    method: 'DELETE',
    pattern: '/_emulator/faults',
    operation: 'ClearFaults',
    handle: (ctx) => {
      ctx.operations.clearFaults();
      return ok();
    },
  },
  { method: 'GET', pattern: '/_emulator/gates', operation: 'Gates', handle: (ctx) => ok({ held: ctx.operations.heldAtGates() }) },
  {
    method: 'POST',
    pattern: '/_emulator/gates/{name}/release',
    operation: 'ReleaseGate',
    handle: (ctx) => {
      const body = ctx.body === undefined || ctx.body === null ? {} : objectBody(ctx.body);
      const count = body.count;
      if (count !== undefined && !(typeof count === 'number' && Number.isInteger(count) && count >= 1))
        throw new ControlError(400, 'count must be a positive whole number');
      return ok({ released: ctx.operations.releaseGate(ctx.params.name ?? '', count) });
    },
  },
  {
    method: 'POST',
    pattern: '/_emulator/lbs/{lbId}/status',
    operation: 'SetLbStatus',
    handle: (ctx) => {
      const body = objectBody(ctx.body);
      const status = body.status as LbStatus;
      if (!LB_STATUSES.includes(status)) throw new ControlError(400, `status must be one of ${LB_STATUSES.join(', ')}`);
      const forMs = typeof body.forMs === 'number' ? body.forMs : undefined;
      const lbId = ctx.params.lbId ?? '';
      if (!ctx.operations.state.lbs.has(lbId)) throw new ControlError(404, `no LB ${lbId}`);
      ctx.operations.setLbStatus(lbId, status, forMs);
      return ok();
    },
  },
  {
    method: 'PUT',
    pattern: '/_emulator/servers/{serverId}',
    operation: 'UpsertServer',
    handle: (ctx) => ok({ id: ctx.operations.upsertServer(serverBody(ctx, ctx.params.serverId)).id }),
  },
  {
    method: 'POST',
    pattern: '/_emulator/servers',
    operation: 'AddServer',
    // A server made through the API (CreateServer with its tags, then poweron); its address made up when not given.
    handle: (ctx) => {
      const server = ctx.operations.upsertServer(newServerBody(ctx));
      return ok({ id: server.id, name: server.name, publicIps: server.publicIps.map((ip) => ip.address) });
    },
  },
  {
    method: 'DELETE',
    pattern: '/_emulator/servers/{serverId}',
    operation: 'RemoveServer',
    handle: (ctx) => {
      ctx.operations.removeServer(serverIdOf(ctx, ctx.params.serverId ?? ''));
      return ok();
    },
  },
  {
    method: 'POST',
    pattern: '/_emulator/servers/{serverId}/action',
    operation: 'ServerAction',
    handle: (ctx) => {
      const serverId = serverIdOf(ctx, ctx.params.serverId ?? '');
      const action = objectBody(ctx.body).action as ServerActionName;
      if (!SERVER_ACTIONS.includes(action)) throw new ControlError(400, `action must be one of ${SERVER_ACTIONS.join(', ')}`);
      ctx.operations.serverAction(serverId, action);
      return ok();
    },
  },
  {
    method: 'POST',
    pattern: '/_emulator/servers/{serverId}/replace',
    operation: 'ReplaceServer',
    // By id or name, as often as asked: the successor takes the old server's name, zone and tags, and a free
    // address of its /24, unless the body says otherwise.
    handle: (ctx) => {
      const serverId = serverIdOf(ctx, ctx.params.serverId ?? '');
      const old = ctx.operations.state.servers.get(serverId);
      const next = ctx.operations.replaceServer(serverId, newServerBody(ctx, old));
      return ok({ id: next.id, name: next.name, publicIps: next.publicIps.map((ip) => ip.address), replaced: serverId });
    },
  },
  {
    method: 'POST',
    pattern: '/_emulator/seed',
    operation: 'LoadSeed',
    handle: (ctx) => {
      try {
        ctx.operations.loadSeed(objectBody(ctx.body) as EmulatorSeed);
      } catch (error) {
        if (error instanceof ControlError) throw error;
        throw new ControlError(400, `invalid seed: ${(error as Error).message}`);
      }
      return ok();
    },
  },
  { method: 'GET', pattern: '/_emulator/backend-health', operation: 'BackendHealth', handle: (ctx) => ok(ctx.operations.backendHealth()) },
  {
    method: 'PUT',
    pattern: '/_emulator/backend-health/{ip}',
    operation: 'ForceHealth',
    handle: (ctx) => {
      const body = objectBody(ctx.body);
      const status = body.status as HealthCheckStatus;
      if (!HEALTH_CHECK_STATUSES.includes(status)) throw new ControlError(400, `status must be one of ${HEALTH_CHECK_STATUSES.join(', ')}`);
      if (body.forMs !== undefined && (typeof body.forMs !== 'number' || !Number.isInteger(body.forMs) || body.forMs < 0)) {
        throw new ControlError(400, 'forMs must be a non-negative integer (ms), or left out for "until cleared"');
      }
      ctx.operations.forceHealth(ctx.params.ip ?? '', status, body.forMs as number | undefined);
      return ok();
    },
  },
  {
    method: 'DELETE',
    pattern: '/_emulator/backend-health/{ip}',
    operation: 'ClearForcedHealth',
    handle: (ctx) => {
      ctx.operations.clearForcedHealth(ctx.params.ip ?? '');
      return ok();
    },
  },
  {
    method: 'DELETE',
    pattern: '/_emulator/backend-health',
    operation: 'ClearAllForcedHealth',
    handle: (ctx) => {
      ctx.operations.clearForcedHealth();
      return ok();
    },
  },
  { method: 'GET', pattern: '/_emulator/state', operation: 'DumpState', handle: (ctx) => ok(ctx.operations.dumpState()) },
  {
    method: 'GET',
    pattern: '/_emulator/behaviours',
    operation: 'Behaviours',
    handle: (ctx) => ok({ behaviours: ctx.operations.behaviours() }),
  },
  {
    method: 'PUT',
    pattern: '/_emulator/behaviours',
    operation: 'SetBehaviours',
    handle: (ctx) => {
      let partial: Partial<EmulatorBehaviours>;
      try {
        partial = readBehaviours(objectBody(ctx.body));
      } catch (error) {
        throw new ControlError(400, (error as Error).message);
      }
      return ok({ behaviours: ctx.operations.setBehaviours(partial) });
    },
  },
  {
    method: 'GET',
    pattern: '/_emulator/audit-trail',
    operation: 'AuditTrail',
    handle: (ctx) => {
      const { auditTrail } = ctx.operations;
      const now = Date.now();
      return ok({
        delayMs: auditTrail.delayMs,
        events: auditTrail.all().map((e) => ({ ...e.wire, listable: e.recordedAtMs + auditTrail.delayMs <= now })),
      });
    },
  },
  {
    method: 'PUT',
    pattern: '/_emulator/audit-trail/settings',
    operation: 'SetAuditTrailSettings',
    handle: (ctx) => {
      const body = objectBody(ctx.body);
      try {
        ctx.operations.setAuditTrailDelay(body.delayMs as number);
      } catch (error) {
        throw new ControlError(400, (error as Error).message);
      }
      return ok({ delayMs: ctx.operations.auditTrail.delayMs });
    },
  },
  {
    method: 'POST',
    pattern: '/_emulator/audit-trail/events',
    operation: 'InjectAuditEvents',
    handle: (ctx) => {
      const events = (Array.isArray(ctx.body) ? ctx.body : [objectBody(ctx.body)]) as Partial<WireAuditEvent>[];
      try {
        ctx.operations.injectAuditEvents(events);
      } catch (error) {
        throw new ControlError(400, (error as Error).message);
      }
      return ok({ added: events.length });
    },
  },
  {
    method: 'DELETE',
    pattern: '/_emulator/audit-trail',
    operation: 'ClearAuditTrail',
    handle: (ctx) => {
      ctx.operations.auditTrail.clear();
      return ok();
    },
  },
];

export function handleControl(method: string, path: string, body: unknown, operations: EmulatorOperations): JsonAnswer {
  const match = matchRoute(controlRoutes, method, path);
  if (match.kind === 'none') return { status: 404, body: { message: `no control route ${method} ${path}` } };
  if (match.kind === 'wrong-method') return { status: 405, body: { message: `method ${method} not allowed on ${path}` } };
  try {
    return match.route.handle({ params: match.params, body, operations });
  } catch (error) {
    if (error instanceof ControlError) return { status: error.status, body: { message: error.message } };
    throw error;
  }
}
