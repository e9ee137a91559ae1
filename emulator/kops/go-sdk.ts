/**
 * kOps' Scaleway client on the wire: the Scaleway Go SDK as kOps builds it (upup/pkg/fi/cloudup/scaleway/cloud.go,
 * `scw.WithUserAgent(KopsUserAgentPrefix + kopsv.Version)`), read from the SDK kOps vendors (v1.0.0-beta.36). Its
 * User-Agent is the SDK's own (`scaleway-sdk-go/<version> (<go>; <os>; <arch>)`) with kOps' appended after a space;
 * it authenticates with X-Auth-Token; it sends every field of a request body that has no `omitempty`, so an unset
 * enum goes out as "" (UpdateBackend's `on_marked_down_action`); an enum query parameter left unset goes out as its
 * String() default (`order_by=created_at_asc`, `order=creation_date_desc`), parameters sorted by name (Go's
url.Values); `scw.WithAllPages()` reads page after
 * page (page=1, 2...) until it holds the total the answer gives (`total_count`, or X-Total-Count for ListServers).
 * The values are those of kubernetes/kops at master 268927e264 (kops-version.go, go.mod).
 */

/** kOps at master 268927e264 (kops-version.go). A released binary says its release, e.g. 1.34.0. */
export const KOPS_VERSION = '1.37.0-alpha.1';
/** The Go SDK kOps vendors (go.mod) and the Go it is built with (go.mod's `go` line). */
export const GO_SDK_VERSION = 'v1.0.0-beta.36';
export const GO_VERSION = 'go1.26.6';
export const KOPS_USER_AGENT = `scaleway-sdk-go/${GO_SDK_VERSION} (${GO_VERSION}; linux; amd64) kubernetes-kops/${KOPS_VERSION}`;

/** An answer of 300 or more, as the Go SDK returns it (the status and the body's message). */
export class GoSdkError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    const message = typeof body === 'object' && body !== null && 'message' in body ? String(body.message) : JSON.stringify(body);
    super(`scaleway-sdk-go: http error ${status} on ${what}: ${message}`);
  }
}

export const is404 = (error: unknown): boolean => error instanceof GoSdkError && error.status === 404;

export type Query = [string, string | number | boolean | undefined][];

export interface GoSdkClient {
  get<T>(path: string, query?: Query): Promise<T>;
  /** Every page of a list (scw.WithAllPages), the items under `key`. */
  listAll<T>(path: string, query: Query, key: string): Promise<T[]>;
  send<T>(method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body: unknown): Promise<T>;
}

export interface GoSdkSettings {
  apiUrl: string;
  /** kOps' API key (SCW_SECRET_KEY), sent as X-Auth-Token. */
  secretKey: string;
  userAgent?: string;
}

function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of query) if (value !== undefined) params.append(name, String(value));
  // Go's url.Values.Encode() sorts the parameters by name.
  params.sort();
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export function goSdkClient(settings: GoSdkSettings): GoSdkClient {
  const base = settings.apiUrl.replace(/\/+$/, '');
  const headers = { 'User-Agent': settings.userAgent ?? KOPS_USER_AGENT, 'X-Auth-Token': settings.secretKey };
  const call = async <T>(method: string, path: string, query: Query, body?: unknown): Promise<{ body: T; total?: number }> => {
    const response = await fetch(`${base}${path}${queryString(query)}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
    if (response.status >= 300) throw new GoSdkError(response.status, parsed, `${method} ${path}`);
    const header = response.headers.get('x-total-count');
    return { body: parsed as T, ...(header !== null && { total: Number(header) }) };
  };
  return {
    get: async <T>(path: string, query: Query = []) => (await call<T>('GET', path, query)).body,
    async listAll<T>(path: string, query: Query, key: string): Promise<T[]> {
      const items: T[] = [];
      for (let page = 1; ; page += 1) {
        const answer = await call<Record<string, unknown>>('GET', path, [...query, ['page', page]]);
        const batch = (answer.body[key] ?? []) as T[];
        items.push(...batch);
        const total = typeof answer.body.total_count === 'number' ? answer.body.total_count : (answer.total ?? items.length);
        if (batch.length === 0 || items.length >= total) return items;
      }
    },
    send: async <T>(method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body: unknown) =>
      (await call<T>(method, path, [], body)).body,
  };
}
