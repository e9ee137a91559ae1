import { Errors } from '@scaleway/sdk-client';
import { describe, expect, it } from 'vitest';
import { classifyApiFailure, wrapApiFailure } from '../../../shared/adapters/api-failure';
import { kopsMessage } from '../../../shared/errors/kops-messages';
import { ERROR_CATALOG } from '../../../shared/errors/lbsync-error';

// Real SDK error objects, built by the SDK's own fromJSON as its response parser does.
const byType: Record<string, { fromJSON(status: number, body: Record<string, unknown>): Error | null }> = {
  transient_state: Errors.TransientStateError,
  too_many_requests: Errors.TooManyRequestsError,
  invalid_arguments: Errors.InvalidArgumentsError,
  permissions_denied: Errors.PermissionsDeniedError,
  quotas_exceeded: Errors.QuotasExceededError,
  denied_authentication: Errors.DeniedAuthenticationError,
  precondition_failed: Errors.PreconditionFailedError,
  locked: Errors.ResourceLockedError,
};
const sdkError = (status: number, body: Record<string, unknown>): Error => {
  const built = byType[String(body.type)]?.fromJSON(status, body);
  if (!built) throw new Error(`the SDK did not parse ${JSON.stringify(body)}`);
  return built;
};

describe('classifyApiFailure', () => {
  const cases: [string, unknown, string, number | undefined][] = [
    [
      '409 transient_state',
      sdkError(409, { type: 'transient_state', resource: 'lb', resource_id: 'x', current_state: 'pending', message: 'busy' }),
      'api_transient_state',
      undefined,
    ],
    [
      '429 with reset_seconds',
      sdkError(429, { type: 'too_many_requests', help_message: 'slow down', reset_seconds: 7, message: 'x' }),
      'rate_limited',
      7000,
    ],
    // The gateway's real 429 (recorded): empty body, which the SDK's parser turns into a plain ScalewayError.
    ['429 from the gateway (empty body)', new Errors.ScalewayError(429, ''), 'rate_limited', undefined],
    ['500', new Errors.ScalewayError(500, { message: 'internal error' }), 'api_unavailable', undefined],
    ['503', new Errors.ScalewayError(503, 'upstream'), 'api_unavailable', undefined],
    ['backend 404 (no type)', new Errors.ScalewayError(404, { message: 'backend not Found' }), 'backend_not_found', undefined],
    [
      '400 invalid_arguments',
      sdkError(400, {
        type: 'invalid_arguments',
        message: 'invalid argument(s)',
        details: [{ argument_name: 'forward_port', reason: 'constraint', help_message: 'x' }],
      }),
      'invalid_arguments',
      undefined,
    ],
    [
      '401',
      sdkError(401, { type: 'denied_authentication', method: 'api_key', reason: 'invalid_argument', message: 'x' }),
      'authentication_denied',
      undefined,
    ],
    [
      '403 permissions',
      sdkError(403, { type: 'permissions_denied', message: 'x', details: [{ resource: 'lb', action: 'write' }] }),
      'permissions_denied',
      undefined,
    ],
    [
      '403 quotas',
      sdkError(403, { type: 'quotas_exceeded', message: 'x', details: [{ resource: 'lbs', quota: 1, current: 1 }] }),
      'quotas_exceeded',
      undefined,
    ],
    [
      '412',
      sdkError(412, { type: 'precondition_failed', precondition: 'resource_still_in_use', help_message: 'x', message: 'x' }),
      'precondition_failed',
      undefined,
    ],
    ['423', sdkError(423, { type: 'locked', resource: 'lb', resource_id: 'x', message: 'x' }), 'resource_locked', undefined],
    ['fetch failure', new TypeError('fetch failed'), 'network_error', undefined],
    ['timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'network_error', undefined],
    ['418', new Errors.ScalewayError(418, { message: 'teapot' }), 'unknown_api_error', undefined],
  ];
  for (const [name, error, code, retryAfterMs] of cases) {
    it(`${name} -> ${code}`, () => {
      const c = classifyApiFailure(error, 'backend_not_found');
      expect(c.code).toBe(code);
      expect(c.retryAfterMs).toBe(retryAfterMs);
    });
  }
  it('an LB 404 is permanent, a backend 404 takes the create path', () => {
    const notFound = new Errors.ScalewayError(404, { message: 'lbs not Found' });
    expect(wrapApiFailure('x', notFound, 'lb_not_found').errorClass).toBe('permanent');
    expect(wrapApiFailure('x', notFound, 'backend_not_found').errorClass).toBe('not_found');
  });
  it('a 429 without a reset hint says so instead of the SDK\'s empty "http error 429: "', () => {
    const error = wrapApiFailure('listing back-ends for load-balancer L', new Errors.ScalewayError(429, ''), 'lb_not_found');
    expect(error).toMatchObject({ code: 'rate_limited', errorClass: 'transient', status: 429 });
    expect(error.retryAfterMs).toBeUndefined();
    expect(error.message).toBe('listing back-ends for load-balancer L: too many requests (429 from the API gateway, no reset time given)');
  });
  it('429 reset_at is turned into a delay', () => {
    const c = classifyApiFailure({ status: 429, resetAt: new Date(10_000) }, 'lb_not_found', 4_000);
    expect(c.retryAfterMs).toBe(6_000);
  });
});

describe('wrapApiFailure', () => {
  it("keeps kOps' message, the cause and the class", () => {
    const cause = new Errors.ScalewayError(409, { type: 'transient_state', message: 'busy' });
    const error = wrapApiFailure(kopsMessage.setServers('lb-1'), cause, 'backend_not_found');
    expect(error.message).toMatch(/^updating back-end server IPs for load-balancer lb-1: /);
    expect(error.cause).toBe(cause);
    expect(error.transient).toBe(true);
    expect(error.hint).toBe(ERROR_CATALOG.api_transient_state.hint);
  });
});
