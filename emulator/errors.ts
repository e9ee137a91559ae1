/**
 * Error bodies, shaped so the Scaleway SDK's error parser picks the right class
 * (see @scaleway/sdk-client errors/standard/*). LB 404s carry no `type`, as recorded.
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
  invalidArguments: (details: InvalidArgument[]): ApiError =>
    new ApiError(400, { details, message: 'invalid argument(s)', type: 'invalid_arguments' }),
  deniedAuthentication: (): ApiError => new ApiError(401, deniedAuthenticationBody()),
  noRoute: (method: string, path: string): ApiError =>
    new ApiError(404, { message: `no route for ${method} ${path}`, type: 'not_found' }),
  methodNotAllowed: (method: string, path: string): ApiError =>
    new ApiError(405, { message: `method ${method} not allowed on ${path}` }),
};

function deniedAuthenticationBody(): unknown {
  return { message: 'authentication is denied', method: 'api_key', reason: 'not_found', type: 'denied_authentication' };
}

/** A status and a realistic body, to spread into a FaultSpec: `addFault({ operation, ...faultBodies.internal() })`. */
export interface FaultAnswer {
  status: number;
  body: unknown;
}

/** Common failures, each with the status and body shape the real API (and the SDK's parser) use. */
export const faultBodies = {
  transientState: (lbId: string, currentState = 'pending'): FaultAnswer => ({
    status: 409,
    body: apiErrors.transientState(lbId, currentState).body,
  }),
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
    body: { message: 'precondition failed', precondition, help_message: helpMessage, type: 'precondition_failed' },
  }),
  deniedAuthentication: (): FaultAnswer => ({ status: 401, body: deniedAuthenticationBody() }),
  locked: (lbId: string): FaultAnswer => ({ status: 423, body: apiErrors.locked(lbId).body }),
};

/** Body used when a fault names a status but no body. */
export function defaultFaultBody(status: number): unknown {
  switch (status) {
    case 401:
      return faultBodies.deniedAuthentication().body;
    case 403:
      return faultBodies.permissionsDenied().body;
    case 412:
      return faultBodies.preconditionFailed().body;
    case 429:
      return faultBodies.tooManyRequests().body;
    case 500:
      return faultBodies.internal().body;
    case 503:
      return faultBodies.serviceUnavailable().body;
    default:
      return { message: `emulated fault (${status})` };
  }
}
