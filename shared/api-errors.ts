import type { ErrorCode, LbIdentity } from './errors';
import { LbSyncError } from './errors';

/**
 * kOps' own messages (upup/pkg/fi/cloudup/scalewaytasks/lb_backend.go); users grep for them. kOps fills `%s`
 * with the LB's name (`LoadBalancer.Name`) in every message but `listing back-ends`, where its `Find` puts
 * the LB id (docs/kops-parity.md has the lines). The other identifier travels beside the message, as `lb`.
 */
export const kopsMessage = {
  listBackends: (lbId: string) => `listing back-ends for load-balancer ${lbId}`,
  updateBackend: (lbName: string) => `updating back-end for load-balancer ${lbName}`,
  setServers: (lbName: string) => `updating back-end server IPs for load-balancer ${lbName}`,
  createBackend: (lbName: string) => `creating back-end for load-balancer ${lbName}`,
  waitLb: (lbName: string) => `waiting for load-balancer ${lbName}`,
  listServers: () => `getting cluster servers for load-balancer's back-end`,
  serverIp: (server: string) => `getting IP of server ${server} for load-balancer's back-end`,
  // Ours, in the same voice, for steps kOps does not have. Writes name the LB like kOps' writes do;
  // finding it names what the target gives (its name, or its id when the target names it by id).
  findLb: (targetRef: string) => `finding load-balancer ${targetRef}`,
  updateHealthCheck: (lbName: string) => `updating back-end health check for load-balancer ${lbName}`,
  deleteBackend: (lbName: string) => `deleting duplicate back-end for load-balancer ${lbName}`,
  backendHealth: (lbName: string) => `reading back-end server health for load-balancer ${lbName}`,
} as const;

/** What a 404 means depends on the route: a missing backend is recoverable, a missing LB is not. */
export type NotFoundMeaning = 'backend_not_found' | 'lb_not_found' | 'unknown_api_error';

/** The name the adapters give a 404 whose body is not the API's not-found answer (shared/adapters/request-failure.ts). */
export const ROUTE_NOT_FOUND_ERROR = 'RouteNotFoundError';

interface ApiFailureShape {
  status?: number;
  body?: unknown;
  name?: string;
  resetSeconds?: number;
  resetAt?: Date;
  message?: string;
}

function bodyType(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && 'type' in body) {
    const type = (body as { type: unknown }).type;
    return typeof type === 'string' ? type : undefined;
  }
  return undefined;
}

function retryAfterFrom429(failure: ApiFailureShape, now: number): number | undefined {
  if (typeof failure.resetSeconds === 'number') return failure.resetSeconds * 1000;
  const body = failure.body as { reset_seconds?: unknown } | undefined;
  if (body && typeof body.reset_seconds === 'number') return body.reset_seconds * 1000;
  if (failure.resetAt instanceof Date) return Math.max(0, failure.resetAt.getTime() - now);
  return undefined;
}

export interface Classification {
  code: ErrorCode;
  status?: number;
  retryAfterMs?: number;
}

/** Maps an SDK failure (ScalewayError and subclasses, or a fetch/timeout error) to an error code. */
export function classifyApiFailure(error: unknown, notFound: NotFoundMeaning, now = Date.now()): Classification {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as ApiFailureShape;
  const status = typeof failure.status === 'number' ? failure.status : undefined;
  if (status === undefined) return { code: 'network_error' };
  const type = bodyType(failure.body);
  const withStatus = (code: ErrorCode): Classification => ({ code, status });
  if (status === 409 || type === 'transient_state') return withStatus('api_transient_state');
  if (status === 429 || type === 'too_many_requests') {
    const retryAfterMs = retryAfterFrom429(failure, now);
    return retryAfterMs === undefined ? withStatus('rate_limited') : { code: 'rate_limited', status, retryAfterMs };
  }
  if (status >= 500) return withStatus('api_unavailable');
  if (status === 404) return withStatus(failure.name === ROUTE_NOT_FOUND_ERROR ? 'api_route_not_found' : notFound);
  if (status === 400) return withStatus('invalid_arguments');
  if (status === 401) return withStatus('authentication_denied');
  if (status === 403) return withStatus(type === 'quotas_exceeded' ? 'quotas_exceeded' : 'permissions_denied');
  if (status === 412) return withStatus('precondition_failed');
  if (status === 423) return withStatus('resource_locked');
  return withStatus('unknown_api_error');
}

function causeText(error: unknown): string {
  if (error instanceof Error) {
    // A timeout the adapter told (with the URL) keeps its words; the bare DOMException's are replaced.
    if (error.name === 'TimeoutError') return error.message.startsWith('request timed out') ? error.message : 'request timed out';
    return error.message || error.name;
  }
  return String(error);
}

const RATE_LIMITED_WITHOUT_HINT = 'too many requests (429 from the API gateway, no reset time given)';

/** Wraps an SDK failure with kOps' message for the step, keeping the cause, the LB's identifiers and the class. */
export function wrapApiFailure(prefix: string, error: unknown, notFound: NotFoundMeaning, lb?: LbIdentity): LbSyncError {
  if (error instanceof LbSyncError) return error;
  const { code, status, retryAfterMs } = classifyApiFailure(error, notFound);
  // The gateway's real 429 has an empty body, which the SDK renders as "http error 429: ".
  const cause = code === 'rate_limited' && retryAfterMs === undefined ? RATE_LIMITED_WITHOUT_HINT : causeText(error);
  return new LbSyncError(code, `${prefix}: ${cause}`, {
    cause: error,
    ...(status !== undefined && { status }),
    ...(retryAfterMs !== undefined && { retryAfterMs }),
    ...(lb && { lb }),
  });
}
