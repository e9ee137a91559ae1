/** LB API: load balancers and their backends (zoned paths, plus the regional variants). */
import { isIP } from 'node:net';
import { parseCreateBackend, parseHealthCheck, parseServerIps, parseUpdateBackend } from '../backend-input';
import { apiErrors } from '../errors';
import { healthAcrossInstances, reportsOfPool, serverStatesOf } from '../health';
import {
  compareBy,
  pageOf,
  readEnumParam,
  readListParam,
  readPagination,
  visibleTo,
  type JsonAnswer,
  type Route,
  type RouteContext,
} from '../http';
import type { BackendRecord, LbRecord } from '../records';
import { regionOfZone } from '../seed';
import type { EmulatorState } from '../state';
import { TRANSIENT_LB_STATUSES } from '../contract';
import { renderBackend, renderFrontend, renderHealthCheck, renderLb, renderLbAttachment } from '../wire/lb';
import { getLbStats, listBackendStats } from './backend-stats';

const ORDERS = ['created_at_asc', 'created_at_desc', 'name_asc', 'name_desc'] as const;
const LB_PAGINATION = { sizeParam: 'page_size', defaultSize: 20, maxSize: 100 };

function inLocality(lb: LbRecord, params: Record<string, string>): boolean {
  if (params.zone !== undefined) return lb.zone === params.zone;
  return regionOfZone(lb.zone) === params.region;
}

function findLb(ctx: RouteContext): LbRecord {
  const lb = ctx.state.lbs.get(ctx.params.lbId ?? '');
  if (!lb || !inLocality(lb, ctx.params)) throw apiErrors.lbNotFound();
  return lb;
}

function findBackend(ctx: RouteContext): { backend: BackendRecord; lb: LbRecord } {
  const backend = ctx.state.backends.get(ctx.params.backendId ?? '');
  const lb = backend ? ctx.state.lbs.get(backend.lbId) : undefined;
  if (!backend || !lb || !inLocality(lb, ctx.params)) throw apiErrors.backendNotFound();
  return { backend, lb };
}

/** What a backend write meets when the LB itself is not ready: no recording shows it, so each case is a switch. */
function assertWritable(state: EmulatorState, lb: LbRecord): void {
  const status = state.lbStatus(lb);
  const { behaviours } = state;
  if (status === 'locked') throw behaviours.writesWhileLocked === 'locked' ? apiErrors.locked(lb.id) : apiErrors.lockedConflict(lb.id);
  if (TRANSIENT_LB_STATUSES.includes(status) && behaviours.writesWhileTransient === 'refuse') throw apiErrors.transientState(lb.id, status);
  if ((status === 'stopped' || status === 'error') && behaviours.writesWhileStopped === 'refuse')
    throw apiErrors.lbNotUsable(lb.id, status);
}

/** The opt-in strict mode: backend servers must be known Scaleway addresses unless the LB is multi-cloud. */
function assertKnownAddresses(state: EmulatorState, lb: LbRecord, ips: readonly string[]): void {
  const { strictBackendIps, multiCloudLbTypes } = state.behaviours;
  if (!strictBackendIps || multiCloudLbTypes.some((type) => type.toLowerCase() === lb.type.toLowerCase())) return;
  const known = state.knownAddresses();
  const unknown = ips.flatMap((ip, index) => (known.has(ip) ? [] : [{ ip, index }]));
  if (unknown.length === 0) return;
  throw apiErrors.invalidArguments(
    unknown.map(({ ip, index }) => ({
      argument_name: `server_ip.${index}`,
      reason: 'constraint',
      help_message: `${ip} is not the address of a Scaleway resource of this project; only multi-cloud load balancers take other servers`,
    })),
  );
}

/** The `refuse` setting of ipv6PoolMembers: an IPv6 entry of `server_ip` is a 400 naming it (no recording shows either answer). */
function assertAcceptedFamilies(state: EmulatorState, ips: readonly string[]): void {
  if (state.behaviours.ipv6PoolMembers === 'accept') return;
  const ipv6 = ips.flatMap((ip, index) => (isIP(ip) === 6 ? [{ ip, index }] : []));
  if (ipv6.length > 0) throw apiErrors.ipv6PoolMembersRefused(ipv6);
}

function sortByOrder<T>(items: T[], order: (typeof ORDERS)[number], name: (t: T) => string, createdAt: (t: T) => string): T[] {
  const key = order.startsWith('name') ? name : createdAt;
  return [...items].sort(compareBy(key, order.endsWith('_desc')));
}

function ok(body: unknown): JsonAnswer {
  return { status: 200, body };
}

/**
 * The LB's view of a pool's addresses, for the pool history (taken before a write for the addresses it removes):
 * every reporting instance's check in one word ("passed", or "passed/unknown" while they disagree).
 */
function healthNow(ctx: RouteContext, backend: BackendRecord, ips: readonly string[] = backend.pool): Record<string, string> {
  const lb = ctx.state.lbs.get(backend.lbId);
  return lb ? healthAcrossInstances(reportsOfPool(ctx.state, lb, backend, ips)) : {};
}

/** A backend's content as a write found it (every write replaces these objects rather than changing them in place). */
type BackendContent = Pick<BackendRecord, 'settings' | 'healthCheck' | 'pool'>;

const contentOf = (backend: BackendRecord): BackendContent => ({
  settings: backend.settings,
  healthCheck: backend.healthCheck,
  pool: backend.pool,
});

/** The fields a write changed (the pool as a set of addresses); none when the backend is as it was. */
function changesOf(before: BackendContent, after: BackendContent): string[] {
  const differ = <T extends object>(a: T, b: T, prefix = '') =>
    Object.keys(b)
      .filter((key) => JSON.stringify(a[key as keyof T]) !== JSON.stringify(b[key as keyof T]))
      .map((key) => prefix + key);
  const samePool = before.pool.length === after.pool.length && after.pool.every((ip) => before.pool.includes(ip));
  return [
    ...differ(before.settings, after.settings),
    ...differ(before.healthCheck, after.healthCheck, 'health_check.'),
    ...(samePool ? [] : ['pool']),
  ];
}

function notePool(
  ctx: RouteContext,
  backend: BackendRecord,
  changed: string[],
  before: { pool: string[]; health?: Record<string, string> } = { pool: [...backend.pool] },
  deleted: { frontends: string[] } | undefined = undefined,
): void {
  ctx.notePoolWrite({
    backendId: backend.id,
    backendName: backend.settings.name,
    lbId: backend.lbId,
    pool: [...backend.pool],
    poolBefore: before.pool,
    changed,
    health: { ...before.health, ...(deleted ? {} : healthNow(ctx, backend)) },
    serverStates: serverStatesOf(ctx.state, [...before.pool, ...backend.pool]),
    ...(deleted ? { deleted: true } : {}),
    ...(deleted && deleted.frontends.length > 0 ? { frontendsDeleted: deleted.frontends } : {}),
  });
}

function listLbs(ctx: RouteContext): JsonAnswer {
  const { query, state } = ctx;
  const name = query.get('name') ?? '';
  const tags = readListParam(query, 'tags', false);
  const lbIds = readListParam(query, 'lb_ids', true);
  const projectId = query.get('project_id');
  const organizationId = query.get('organization_id');
  const order = readEnumParam(query, 'order_by', ORDERS, 'created_at_asc');
  const paging = readPagination(query, LB_PAGINATION);
  const matching = [...state.lbs.values()].filter(
    (lb) =>
      inLocality(lb, ctx.params) &&
      lb.name.includes(name) &&
      (lbIds.length === 0 || lbIds.includes(lb.id)) &&
      (tags.length === 0 || tags.some((tag) => lb.tags.includes(tag))) &&
      (!projectId || lb.projectId === projectId) &&
      (!organizationId || lb.organizationId === organizationId) &&
      visibleTo(ctx.organization, lb.organizationId),
  );
  const sorted = sortByOrder(
    matching,
    order,
    (lb) => lb.name,
    (lb) => lb.createdAt,
  );
  const now = Date.now();
  return ok({ lbs: pageOf(sorted, paging).map((lb) => renderLb(state, lb, now)), total_count: sorted.length });
}

/** An LB's sub-resources listed as the API does: `name` substring filter, `order_by`, pagination. */
function listOfLb<T>(
  ctx: RouteContext,
  key: 'backends' | 'frontends',
  items: (lbId: string) => T[],
  fields: { name: (t: T) => string; createdAt: (t: T) => string },
  render: (t: T, now: number) => Record<string, unknown>,
): JsonAnswer {
  const lb = findLb(ctx);
  const name = ctx.query.get('name') ?? '';
  const order = readEnumParam(ctx.query, 'order_by', ORDERS, 'created_at_asc');
  const paging = readPagination(ctx.query, LB_PAGINATION);
  const matching = items(lb.id).filter((item) => fields.name(item).includes(name));
  const sorted = sortByOrder(matching, order, fields.name, fields.createdAt);
  const now = Date.now();
  return ok({ [key]: pageOf(sorted, paging).map((item) => render(item, now)), total_count: sorted.length });
}

const listBackends = (ctx: RouteContext): JsonAnswer =>
  listOfLb(
    ctx,
    'backends',
    (lbId) => ctx.state.backendsOf(lbId),
    { name: (b) => b.settings.name, createdAt: (b) => b.createdAt },
    (b, now) => renderBackend(ctx.state, b, now),
  );

const listFrontends = (ctx: RouteContext): JsonAnswer =>
  listOfLb(
    ctx,
    'frontends',
    (lbId) => ctx.state.frontendsOf(lbId),
    { name: (f) => f.name, createdAt: (f) => f.createdAt },
    (f, now) => renderFrontend(ctx.state, f, now),
  );

/** ListLbPrivateNetworks: `{"private_network": [...], "total_count": N}` (the key is singular, as recorded), paged. */
function listLbPrivateNetworks(ctx: RouteContext): JsonAnswer {
  const lb = findLb(ctx);
  const order = readEnumParam(ctx.query, 'order_by', ['created_at_asc', 'created_at_desc'] as const, 'created_at_asc');
  const paging = readPagination(ctx.query, LB_PAGINATION);
  const sorted = [...lb.privateNetworks].sort(compareBy((a) => a.createdAt, order === 'created_at_desc'));
  const now = Date.now();
  return ok({
    private_network: pageOf(sorted, paging).map((attachment) => renderLbAttachment(ctx.state, lb, attachment, now)),
    total_count: sorted.length,
  });
}

function createBackend(ctx: RouteContext): JsonAnswer {
  const lb = findLb(ctx);
  const input = parseCreateBackend(ctx.body, ctx.state.behaviours.duplicateServerIps);
  assertKnownAddresses(ctx.state, lb, input.pool);
  assertAcceptedFamilies(ctx.state, input.pool);
  assertWritable(ctx.state, lb);
  const backend = ctx.state.createBackend(lb, input.settings, input.healthCheck, input.pool);
  notePool(ctx, backend, ['created'], { pool: [], health: {} });
  return ok(renderBackend(ctx.state, backend));
}

function updateBackend(ctx: RouteContext): JsonAnswer {
  const { backend, lb } = findBackend(ctx);
  const settings = parseUpdateBackend(ctx.body, ctx.state.behaviours.updateBackendLeftOut === 'keep' ? backend.settings : undefined);
  assertWritable(ctx.state, lb);
  const before = contentOf(backend);
  ctx.state.updateBackend(backend, settings);
  notePool(ctx, backend, changesOf(before, contentOf(backend)));
  return ok(renderBackend(ctx.state, backend));
}

function deleteBackend(ctx: RouteContext): JsonAnswer {
  const { backend, lb } = findBackend(ctx);
  assertWritable(ctx.state, lb);
  const users = ctx.state.frontendsUsing(backend);
  if (users.length > 0 && ctx.state.behaviours.deleteBackendInUse === 'refuse') throw apiErrors.backendInUse(users.map((f) => f.id));
  const before = { pool: [...backend.pool], health: healthNow(ctx, backend) };
  ctx.state.deleteBackend(backend, users);
  notePool(ctx, backend, ['deleted'], before, { frontends: users.map((f) => f.id) });
  return { status: 204 };
}

function writePool(ctx: RouteContext, nextPool: (current: string[], given: string[]) => string[], adds = true): JsonAnswer {
  const { backend, lb } = findBackend(ctx);
  const given = parseServerIps(ctx.body, ctx.state.behaviours.duplicateServerIps);
  assertKnownAddresses(ctx.state, lb, given);
  // A removal adds no member: an IPv6 a pool holds (seeded) can always be taken out.
  if (adds) assertAcceptedFamilies(ctx.state, given);
  assertWritable(ctx.state, lb);
  const before = { pool: [...backend.pool], health: healthNow(ctx, backend) };
  const content = contentOf(backend);
  ctx.state.setPool(backend, nextPool(backend.pool, given));
  notePool(ctx, backend, changesOf(content, contentOf(backend)), before);
  return ok(renderBackend(ctx.state, backend));
}

function updateHealthCheck(ctx: RouteContext): JsonAnswer {
  const { backend, lb } = findBackend(ctx);
  const healthCheck = parseHealthCheck(ctx.body);
  assertWritable(ctx.state, lb);
  const before = contentOf(backend);
  ctx.state.setHealthCheck(backend, healthCheck);
  notePool(ctx, backend, changesOf(before, contentOf(backend)));
  return ok(renderHealthCheck(backend.healthCheck));
}

function lbRoutes(prefix: string): Route[] {
  return [
    { method: 'GET', pattern: `${prefix}/lbs`, operation: 'ListLbs', handle: listLbs },
    {
      method: 'GET',
      pattern: `${prefix}/lbs/{lbId}`,
      operation: 'GetLb',
      handle: (ctx) => ok(renderLb(ctx.state, findLb(ctx))),
    },
    { method: 'GET', pattern: `${prefix}/lbs/{lbId}/backends`, operation: 'ListBackends', handle: listBackends },
    { method: 'GET', pattern: `${prefix}/lbs/{lbId}/frontends`, operation: 'ListFrontends', handle: listFrontends },
    {
      method: 'GET',
      pattern: `${prefix}/lbs/{lbId}/backend-stats`,
      operation: 'ListBackendStats',
      handle: (ctx) => listBackendStats(ctx, findLb(ctx)),
    },
    { method: 'GET', pattern: `${prefix}/lbs/{lbId}/stats`, operation: 'GetLbStats', handle: (ctx) => getLbStats(ctx, findLb(ctx)) },
    { method: 'GET', pattern: `${prefix}/lbs/{lbId}/private-networks`, operation: 'ListLbPrivateNetworks', handle: listLbPrivateNetworks },
    { method: 'POST', pattern: `${prefix}/lbs/{lbId}/backends`, operation: 'CreateBackend', handle: createBackend },
    {
      method: 'GET',
      pattern: `${prefix}/backends/{backendId}`,
      operation: 'GetBackend',
      handle: (ctx) => ok(renderBackend(ctx.state, findBackend(ctx).backend)),
    },
    { method: 'PUT', pattern: `${prefix}/backends/{backendId}`, operation: 'UpdateBackend', handle: updateBackend },
    { method: 'DELETE', pattern: `${prefix}/backends/{backendId}`, operation: 'DeleteBackend', handle: deleteBackend },
    {
      method: 'PUT',
      pattern: `${prefix}/backends/{backendId}/servers`,
      operation: 'SetBackendServers',
      handle: (ctx) => writePool(ctx, (_current, given) => given),
    },
    {
      method: 'POST',
      pattern: `${prefix}/backends/{backendId}/servers`,
      operation: 'AddBackendServers',
      handle: (ctx) => writePool(ctx, (current, given) => [...current, ...given.filter((ip) => !current.includes(ip))]),
    },
    {
      method: 'DELETE',
      pattern: `${prefix}/backends/{backendId}/servers`,
      operation: 'RemoveBackendServers',
      handle: (ctx) => writePool(ctx, (current, given) => current.filter((ip) => !given.includes(ip)), false),
    },
    {
      method: 'PUT',
      pattern: `${prefix}/backends/{backendId}/healthcheck`,
      operation: 'UpdateHealthCheck',
      handle: updateHealthCheck,
    },
  ];
}

export const lbApiRoutes: Route[] = [...lbRoutes('/lb/v1/zones/{zone}'), ...lbRoutes('/lb/v1/regions/{region}')];
