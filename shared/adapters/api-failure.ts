// The only place that knows the shapes of the Scaleway SDK's errors (ScalewayError and its subclasses, fetch and
// timeout failures). Every step that calls the gateway goes through callGateway or tryGateway, which turn what the
// call throws into an LbSyncError here.
import type { ErrorCode, LbIdentity } from '../errors/lbsync-error';
import { LbSyncError } from '../errors/lbsync-error';
import { LISTING_TOO_LONG_ERROR } from './pages';

/** What a 404 means depends on the route: a missing backend is recoverable, a missing LB is not. */
export type NotFoundMeaning = 'backend_not_found' | 'lb_not_found' | 'unknown_api_error';

/** The name the adapters give a 404 whose body is not the API's not-found answer, or a 405 (shared/adapters/request-failure.ts). */
export const ROUTE_NOT_FOUND_ERROR = 'RouteNotFoundError';
/** The name the adapters give a success answer of another type than the API's JSON (shared/adapters/request-failure.ts). */
export const UNEXPECTED_ANSWER_ERROR = 'UnexpectedAnswerError';

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
  if (failure.name === LISTING_TOO_LONG_ERROR) return { code: 'listing_too_long' };
  if (status === undefined) return { code: 'network_error' };
  const type = bodyType(failure.body);
  const withStatus = (code: ErrorCode): Classification => ({ code, status });
  if (failure.name === ROUTE_NOT_FOUND_ERROR) return withStatus('api_route_not_found');
  if (failure.name === UNEXPECTED_ANSWER_ERROR) return withStatus('unexpected_answer');
  if (status === 409 || type === 'transient_state') return withStatus('api_transient_state');
  if (status === 429 || type === 'too_many_requests') {
    const retryAfterMs = retryAfterFrom429(failure, now);
    return retryAfterMs === undefined ? withStatus('rate_limited') : { code: 'rate_limited', status, retryAfterMs };
  }
  if (status >= 500) return withStatus('api_unavailable');
  if (status === 404) return withStatus(notFound);
  if (status === 400) return withStatus('invalid_arguments');
  if (status === 401) return withStatus('authentication_denied');
  if (status === 403) return withStatus(type === 'quotas_exceeded' ? 'quotas_exceeded' : 'permissions_denied');
  if (status === 412) return withStatus('precondition_failed');
  if (status === 423) return withStatus('resource_locked');
  return withStatus('unknown_api_error');
}

/**
 * The arguments a 400 `invalid_arguments` names (`details[].argument_name`, as the recorded 400 gives them:
 * sdk-go-instance-test-create-server-with-incorrect-body #0), for a failure as the SDK threw it or as wrapped.
 */
export function invalidArgumentNames(error: unknown): string[] {
  const failure = (error instanceof LbSyncError ? error.cause : error) as ApiFailureShape | undefined;
  if (failure?.status !== 400) return [];
  const details = (failure.body as { details?: unknown } | undefined)?.details;
  if (!Array.isArray(details)) return [];
  return details.flatMap((detail: unknown) => {
    const name = (detail as { argument_name?: unknown } | null)?.argument_name;
    return typeof name === 'string' ? [name] : [];
  });
}

function causeText(error: unknown): string {
  if (error instanceof Error) {
    // Our timeouts keep their words (the URL, or "no time left in this invocation"); a bare DOMException's are replaced.
    if (error instanceof DOMException && error.name === 'TimeoutError') return 'request timed out';
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

/**
 * One call to a gateway, in the same shape for every step, read or write: kOps' words for the step, what a 404 means
 * on its route, the LB it concerns, and the call itself.
 */
export interface GatewayStep<T> {
  message: string;
  notFound: NotFoundMeaning;
  lb?: LbIdentity;
  run: () => Promise<T>;
}

/** Runs the step. A failure is thrown as an LbSyncError in the step's words; our own LbSyncErrors pass unchanged. */
export async function callGateway<T>(step: GatewayStep<T>): Promise<T> {
  const answer = await tryGateway(step);
  if ('error' in answer) throw answer.error;
  return answer.value;
}

/** Like callGateway, with the failure returned, for the steps that go on after one (report it, poll through it). */
export async function tryGateway<T>(step: GatewayStep<T>): Promise<{ value: T } | { error: LbSyncError }> {
  try {
    return { value: await step.run() };
  } catch (error) {
    return { error: wrapApiFailure(step.message, error, step.notFound, step.lb) };
  }
}
