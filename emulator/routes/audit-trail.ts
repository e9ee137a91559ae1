/**
 * Audit Trail API: ListEvents (regional). Shape as recorded (test/fixtures/audit-trail/): `{"events":[...]}`,
 * with `next_page_token` only when another page follows; an empty window is `{"events":[]}`;
 * `resource_type=unknown_type` filters nothing.
 * ASSUMED (no recording): organization_id is required (the API docs say "you must specify" it; 400 here),
 * the defaults recorded_after = 1 hour ago, recorded_before = now (the docs' wording), order recorded_at_desc,
 * page_size 1..1000 (the SDK's validation rules) defaulting to 100, opaque page tokens.
 */
import type { AuditTrailLog, RecordedAuditEvent } from '../audit-trail';
import { apiErrors } from '../errors';
import { readEnumParam, visibleTo, type JsonAnswer, type Route, type RouteContext } from '../http';
import { permissionsDenied } from '../permissions';

const ORDERS = ['recorded_at_desc', 'recorded_at_asc'] as const;
const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
const HOUR_MS = 3_600_000;

function invalid(name: string, help: string): never {
  throw apiErrors.invalidArguments([{ argument_name: name, reason: 'constraint', help_message: help }]);
}

function readTime(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  const ms = Date.parse(raw);
  return Number.isFinite(ms) ? ms : invalid(name, 'must be an RFC 3339 date-time');
}

function readPageSize(query: URLSearchParams): number {
  const raw = query.get('page_size');
  if (raw === null || raw === '') return DEFAULT_PAGE_SIZE;
  const value = Number(raw);
  return Number.isInteger(value) && value >= 1 && value <= MAX_PAGE_SIZE
    ? value
    : invalid('page_size', `must be between 1 and ${MAX_PAGE_SIZE}`);
}

function readOffset(query: URLSearchParams): number {
  const token = query.get('page_token');
  if (token === null || token === '') return 0;
  const offset = Number(
    Buffer.from(token, 'base64url')
      .toString('utf8')
      .replace(/^offset:/, ''),
  );
  return Number.isInteger(offset) && offset >= 0 ? offset : invalid('page_token', 'invalid page token');
}

const hasResource = (event: RecordedAuditEvent, test: (r: Record<string, unknown>) => boolean) => event.wire.resources.some(test);

function matches(event: RecordedAuditEvent, query: URLSearchParams, after: number, before: number): boolean {
  const w = event.wire;
  const equals = (param: string, value: unknown) => {
    const wanted = query.get(param);
    return wanted === null || wanted === '' || wanted === String(value);
  };
  const resourceType = query.get('resource_type');
  const resourceId = query.get('resource_id');
  return (
    event.recordedAtMs >= after &&
    event.recordedAtMs <= before &&
    equals('organization_id', w.organization_id) &&
    equals('project_id', w.project_id) &&
    equals('method_name', w.method_name) &&
    equals('status', w.status_code) &&
    equals('product_name', w.product_name) &&
    equals('service_name', w.service_name) &&
    equals('source_ip', w.source_ip) &&
    equals('principal_id', (w.principal as { id?: string } | undefined)?.id) &&
    (!resourceType || resourceType === 'unknown_type' || hasResource(event, (r) => r.type === resourceType)) &&
    (!resourceId || hasResource(event, (r) => r.id === resourceId))
  );
}

function listEvents(log: AuditTrailLog, ctx: RouteContext): JsonAnswer {
  const { query } = ctx;
  if (!query.get('organization_id')) {
    throw apiErrors.invalidArguments([{ argument_name: 'organization_id', reason: 'required', help_message: 'required' }]);
  }
  // Another organization's trail: a key reads only its own organization's (emulator/tenancy.ts).
  if (!visibleTo(ctx.organization, query.get('organization_id') ?? undefined)) throw permissionsDenied('GET', '/audit-trail');
  const now = Date.now();
  const after = readTime(query, 'recorded_after', now - HOUR_MS);
  const before = readTime(query, 'recorded_before', now);
  const order = readEnumParam(query, 'order_by', ORDERS, 'recorded_at_desc');
  const pageSize = readPageSize(query);
  const offset = readOffset(query);
  const found = log
    .listable(ctx.params.region ?? '', now)
    .filter((event) => matches(event, query, after, before))
    .sort((a, b) => (order === 'recorded_at_asc' ? a.recordedAtMs - b.recordedAtMs : b.recordedAtMs - a.recordedAtMs));
  const page = found.slice(offset, offset + pageSize).map((event) => event.wire);
  const next = offset + pageSize < found.length ? Buffer.from(`offset:${offset + pageSize}`).toString('base64url') : undefined;
  return { status: 200, body: { events: page, ...(next && { next_page_token: next }) } };
}

export function auditTrailApiRoutes(log: () => AuditTrailLog): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/audit-trail/v1alpha1/regions/{region}/events',
      operation: 'ListEvents',
      handle: (ctx) => listEvents(log(), ctx),
    },
  ];
}
