/**
 * Error bodies, shaped so the Scaleway SDK's error parser picks the right class
 * (see @scaleway/sdk-client errors/standard/*). LB 404s carry no `type`, as recorded.
 * The shapes and generic messages of the others are recorded on products behind the same API gateway
 * (test/integration/emulator/error-bodies.test.ts): 400 `invalid_arguments` (Instance), 401 `denied_authentication`,
 * 403 `permissions_denied` (Flexible IP), 409 `transient_state` (VPC gateway), 412 `precondition_failed` (Secret
 * Manager). The LB API's own 409, 412 and 423 are not recorded: what they name (`resource: "lb"`, the
 * precondition, the help message) is assumed.
 */

/** Thrown by handlers; turned into a JSON answer by the HTTP layer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`API error ${status}`);
  }
}

export interface InvalidArgument {
  argument_name: string;
  reason: 'required' | 'format' | 'constraint';
  help_message: string;
}

/** The gateway's message of every 412 (recorded: secret-secret-protected #8). */
const PRECONDITION_NOT_RESPECTED = 'precondition is not respected';

export const apiErrors = {
  lbNotFound: (): ApiError => new ApiError(404, { message: 'lbs not Found' }),
  backendNotFound: (): ApiError => new ApiError(404, { message: 'backend not Found' }),
  instanceNotFound: (resource: string, resourceId: string): ApiError =>
    new ApiError(404, { type: 'not_found', message: 'resource is not found', resource, resource_id: resourceId }),
  transientState: (lbId: string, currentState: string): ApiError =>
    new ApiError(409, {
      message: 'resource is in a transient state',
      resource: 'lb',
      resource_id: lbId,
      current_state: currentState,
      type: 'transient_state',
    }),
  locked: (lbId: string): ApiError =>
    new ApiError(423, { message: 'resource is locked', resource: 'lb', resource_id: lbId, type: 'locked' }),
  /** The `conflict` setting of writesWhileLocked (assumed): a 409 with no type, so no SDK error class claims it. */
  lockedConflict: (lbId: string): ApiError => new ApiError(409, { message: 'lb is locked', resource: 'lb', resource_id: lbId }),
  /** The `refuse` setting of writesWhileStopped (assumed). */
  lbNotUsable: (lbId: string, status: string): ApiError =>
    new ApiError(412, {
      message: PRECONDITION_NOT_RESPECTED,
      precondition: 'resource_not_usable',
      help_message: `lb ${lbId} is ${status}`,
      type: 'precondition_failed',
    }),
  /** The `refuse` setting of deleteBackendInUse (assumed). */
  backendInUse: (frontendIds: string[]): ApiError =>
    new ApiError(412, {
      message: PRECONDITION_NOT_RESPECTED,
      precondition: 'resource_still_in_use',
      help_message: `backend is used by frontend(s) ${frontendIds.join(', ')}`,
      type: 'precondition_failed',
    }),
  invalidArguments: (details: InvalidArgument[]): ApiError =>
    new ApiError(400, { details, message: 'invalid argument(s)', type: 'invalid_arguments' }),
  /** The `refuse` setting of ipv6PoolMembers (assumed): a 400 in the recorded invalid_arguments shape, per IPv6 entry. */
  ipv6PoolMembersRefused: (entries: { ip: string; index: number }[]): ApiError =>
    apiErrors.invalidArguments(
      entries.map(({ ip, index }) => ({
        argument_name: `server_ip.${index}`,
        reason: 'constraint',
        help_message: `${ip} is an IPv6 address; backend servers must be IPv4 addresses`,
      })),
    ),
  deniedAuthentication: (): ApiError => new ApiError(401, deniedAuthenticationBody()),
  noRoute: (method: string, path: string): ApiError => new ApiError(404, { message: `no route for ${method} ${path}`, type: 'not_found' }),
  methodNotAllowed: (method: string, path: string): ApiError => new ApiError(405, { message: `method ${method} not allowed on ${path}` }),
};

function deniedAuthenticationBody(): unknown {
  return { message: 'authentication is denied', method: 'api_key', reason: 'not_found', type: 'denied_authentication' };
}

/** A status and a realistic body, to spread into a FaultSpec: `addFault({ operation, ...faultBodies.internal() })`. */
export interface FaultAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * The API gateway's rate limiting as recorded (block-list-snapshots-rate-limited): 429, an empty body, no
 * Content-Type, `X-Envoy-Ratelimited: true`; no reset hint of any kind.
 */
export const GATEWAY_RATE_LIMIT_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'X-Envoy-Ratelimited': 'true' });

/** Common failures, each with the status and body shape the real API (and the SDK's parser) use. */
export const faultBodies = {
  transientState: (lbId: string, currentState = 'pending'): FaultAnswer => ({
    status: 409,
    body: apiErrors.transientState(lbId, currentState).body,
  }),
  /** The 429 the real gateway sends (recorded): what a fault with `status: 429` and no body answers. */
  rateLimited: (): FaultAnswer => ({ status: 429, headers: { ...GATEWAY_RATE_LIMIT_HEADERS } }),
  /** The JSON 429 the SDK knows (too_many_requests with reset_seconds); no recording shows one: an explicit variant. */
  tooManyRequests: (resetSeconds = 1): FaultAnswer => ({
    status: 429,
    body: {
      message: 'too many requests',
      type: 'too_many_requests',
      help_message: 'rate limit exceeded, retry later',
      limit: { quota: 20, window_seconds: 1 },
      reset_seconds: resetSeconds,
      reset_at: new Date(Date.now() + resetSeconds * 1000).toISOString(),
    },
  }),
  internal: (): FaultAnswer => ({ status: 500, body: { message: 'internal error', type: 'internal' } }),
  serviceUnavailable: (): FaultAnswer => ({ status: 503, body: { message: 'service unavailable' } }),
  invalidArguments: (field: string, helpMessage = 'invalid value'): FaultAnswer => ({
    status: 400,
    body: apiErrors.invalidArguments([{ argument_name: field, reason: 'constraint', help_message: helpMessage }]).body,
  }),
  permissionsDenied: (resource = 'lb', action = 'write'): FaultAnswer => ({
    status: 403,
    body: { details: [{ action, resource }], message: 'insufficient permissions', type: 'permissions_denied' },
  }),
  quotasExceeded: (resource = 'lbs'): FaultAnswer => ({
    status: 403,
    body: { details: [{ resource, quota: 0, current: 0 }], message: 'quota(s) exceeded for this resource', type: 'quotas_exceeded' },
  }),
  preconditionFailed: (precondition = 'resource_still_in_use', helpMessage = 'the resource is in use'): FaultAnswer => ({
    status: 412,
    body: { message: PRECONDITION_NOT_RESPECTED, precondition, help_message: helpMessage, type: 'precondition_failed' },
  }),
  deniedAuthentication: (): FaultAnswer => ({ status: 401, body: deniedAuthenticationBody() }),
  locked: (lbId: string): FaultAnswer => ({ status: 423, body: apiErrors.locked(lbId).body }),
};

/** Body used when a fault names a status but no body (undefined: an empty body, as the gateway's 429). */
export function defaultFaultBody(status: number): unknown {
  switch (status) {
    case 401:
      return faultBodies.deniedAuthentication().body;
    case 403:
      return faultBodies.permissionsDenied().body;
    case 412:
      return faultBodies.preconditionFailed().body;
    case 429:
      return undefined;
    case 500:
      return faultBodies.internal().body;
    case 503:
      return faultBodies.serviceUnavailable().body;
    default:
      return { message: `emulated fault (${status})` };
  }
}

/** Headers a fault answers with when it names none: the gateway's rate-limit header on a bodiless 429. */
export function defaultFaultHeaders(status: number, body: unknown): Record<string, string> | undefined {
  return status === 429 && body === undefined ? { ...GATEWAY_RATE_LIMIT_HEADERS } : undefined;
}
