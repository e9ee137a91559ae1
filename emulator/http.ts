/** Routing, JSON answers and pagination shared by the API route modules. */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { apiErrors } from './errors';
import type { EmulatorState } from './state';
import type { PoolWrite } from './contract';
import type { AuditActor } from './audit-trail';
import type { ServerLifecycle } from './server-lifecycle';

export interface JsonAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type PoolWriteNote = Omit<PoolWrite, 'at' | 'seq' | 'operation'>;

export interface RouteContext {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  state: EmulatorState;
  notePoolWrite(write: PoolWriteNote): void;
  /** Who made the request, as Audit Trail records it (its API key's principal, User-Agent, address). */
  actor: AuditActor;
  /** Server changes made through the Instance API's own routes (emulator/server-lifecycle.ts). */
  servers: ServerLifecycle;
  /** The organization the request's key is answered for (its lists hold only its resources); undefined: any. */
  organization?: string;
}

/** Whether a key answered for `organization` (undefined: any) sees a resource of `owner`. */
export function visibleTo(organization: string | undefined, owner: string | undefined): boolean {
  return organization === undefined || owner === organization;
}

export interface Route<Context = RouteContext> {
  method: string;
  /** Path with `{name}` placeholders, e.g. `/lb/v1/zones/{zone}/lbs/{lbId}`. */
  pattern: string;
  operation: string;
  handle(ctx: Context): JsonAnswer;
}

export type RouteMatch<Context> =
  | { kind: 'found'; route: Route<Context>; params: Record<string, string> }
  | { kind: 'wrong-method' }
  | { kind: 'none' };

function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    const expected = want[i] ?? '';
    const actual = got[i] ?? '';
    if (expected.startsWith('{') && expected.endsWith('}')) {
      if (actual === '') return undefined;
      params[expected.slice(1, -1)] = decodeURIComponent(actual);
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

export function matchRoute<Context>(routes: readonly Route<Context>[], method: string, path: string): RouteMatch<Context> {
  let pathKnown = false;
  for (const route of routes) {
    const params = matchPattern(route.pattern, path);
    if (!params) continue;
    if (route.method === method) return { kind: 'found', route, params };
    pathKnown = true;
  }
  return pathKnown ? { kind: 'wrong-method' } : { kind: 'none' };
}

/**
 * Answers carry exactly `application/json` (the JS SDK parses nothing else), a 204 included, as recorded.
 * An answer without a body (the gateway's 429) has no Content-Type at all, as recorded.
 */
export function sendJson(res: ServerResponse, answer: JsonAnswer): void {
  const bodiless = answer.body === undefined && answer.status !== 204;
  const text = answer.status === 204 || answer.body === undefined ? '' : JSON.stringify(answer.body);
  res.statusCode = answer.status;
  if (!bodiless) res.setHeader('Content-Type', 'application/json');
  res.setHeader('X-Request-Id', randomUUID());
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  if (text.length > 0 || bodiless) res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw apiErrors.invalidArguments([
      { argument_name: 'body', reason: 'format', help_message: `invalid JSON: ${(error as Error).message}` },
    ]);
  }
}

export interface PageRequest {
  page: number;
  pageSize: number;
}

export interface PaginationRules {
  pageParam?: string;
  sizeParam: string;
  defaultSize: number;
  maxSize: number;
}

function readPositiveInt(query: URLSearchParams, name: string, fallback: number, max?: number): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || (max !== undefined && value > max)) {
    throw apiErrors.invalidArguments([
      {
        argument_name: name,
        reason: 'constraint',
        help_message: max === undefined ? 'must be a positive integer' : `must be between 1 and ${max}`,
      },
    ]);
  }
  return value;
}

export function readPagination(query: URLSearchParams, rules: PaginationRules): PageRequest {
  return {
    page: readPositiveInt(query, rules.pageParam ?? 'page', 1),
    pageSize: readPositiveInt(query, rules.sizeParam, rules.defaultSize, rules.maxSize),
  };
}

export function pageOf<T>(items: readonly T[], request: PageRequest): T[] {
  const start = (request.page - 1) * request.pageSize;
  return items.slice(start, start + request.pageSize);
}

/** Reads an enum query parameter; unknown values are a 400 like the real API. */
export function readEnumParam<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw apiErrors.invalidArguments([{ argument_name: name, reason: 'constraint', help_message: `must be one of: ${allowed.join(', ')}` }]);
}

/** Reads a repeated and/or comma-separated list parameter (`tags=a&tags=b` or `tags=a,b`). */
export function readListParam(query: URLSearchParams, name: string, splitCommas: boolean): string[] {
  const values = query.getAll(name);
  const items = splitCommas ? values.flatMap((value) => value.split(',')) : values;
  return items.filter((item) => item !== '');
}

export function compareBy<T>(key: (item: T) => string, descending: boolean): (a: T, b: T) => number {
  return (a, b) => {
    const order = key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
    return descending ? -order : order;
  };
}
