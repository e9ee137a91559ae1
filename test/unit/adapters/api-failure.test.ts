import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Errors } from '@scaleway/sdk-client';
import { describe, expect, it } from 'vitest';
import { callGateway, classifyApiFailure, invalidArgumentNames, tryGateway, wrapApiFailure } from '../../../shared/adapters/api-failure';
import { kopsMessage } from '../../../shared/errors/kops-messages';
import { ERROR_CATALOG, LbSyncError } from '../../../shared/errors/lbsync-error';

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

describe('invalidArgumentNames: the arguments a 400 names, as the SDK threw it or wrapped', () => {
  // The recorded 400's shape (sdk-go-instance-test-create-server-with-incorrect-body #0), naming server_ip entries.
  const refused = sdkError(400, {
    type: 'invalid_arguments',
    message: 'invalid argument(s)',
    details: [
      { argument_name: 'server_ip.1', reason: 'constraint', help_message: 'IPv6 is not taken' },
      { argument_name: 'server_ip.2', reason: 'constraint' },
    ],
  });
  it('reads details[].argument_name of a 400, wrapped or not', () => {
    expect(invalidArgumentNames(refused)).toEqual(['server_ip.1', 'server_ip.2']);
    expect(invalidArgumentNames(wrapApiFailure('setting servers', refused, 'backend_not_found'))).toEqual(['server_ip.1', 'server_ip.2']);
  });
  it('names nothing for any other failure, or a 400 without details', () => {
    expect(invalidArgumentNames(new Errors.ScalewayError(400, { message: 'bad' }))).toEqual([]);
    expect(invalidArgumentNames(new Errors.ScalewayError(409, { details: [{ argument_name: 'server_ip' }] }))).toEqual([]);
    expect(invalidArgumentNames(new Error('network'))).toEqual([]);
    expect(invalidArgumentNames(undefined)).toEqual([]);
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

describe('callGateway and tryGateway: the one shape of a gateway call', () => {
  const lb = { id: 'lb-1', name: 'api.x' };
  const failing = (error: unknown) => () => Promise.reject(error);

  it("answers the call's value", async () => {
    await expect(callGateway({ message: 'm', notFound: 'lb_not_found', run: async () => 42 })).resolves.toBe(42);
    await expect(tryGateway({ message: 'm', notFound: 'lb_not_found', run: async () => 42 })).resolves.toEqual({ value: 42 });
  });

  it("tells a failure in the step's words, with what a 404 means on its route and the LB it concerns", async () => {
    const notFound = new Errors.ScalewayError(404, { message: 'lbs not Found' });
    const step = { message: kopsMessage.findLb('api.x'), notFound: 'lb_not_found' as const, lb, run: failing(notFound) };
    const thrown = await callGateway(step).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(LbSyncError);
    expect(thrown).toMatchObject({ code: 'lb_not_found', status: 404, lb, cause: notFound });
    expect((thrown as Error).message).toMatch(/^finding load-balancer api\.x: /);
    const returned = await tryGateway({ ...step, notFound: 'backend_not_found' });
    expect(returned).toEqual({ error: expect.objectContaining({ code: 'backend_not_found', lb }) });
  });

  it('a call that throws synchronously is told the same way', async () => {
    const run = () => {
      throw new TypeError('fetch failed');
    };
    await expect(callGateway({ message: 'listing x', notFound: 'unknown_api_error', run })).rejects.toMatchObject({
      code: 'network_error',
      message: 'listing x: fetch failed',
    });
  });

  it('our own errors pass through unchanged (a verdict made inside the call keeps its code and words)', async () => {
    const ours = new LbSyncError('lb_ambiguous', 'two of them');
    await expect(tryGateway({ message: 'm', notFound: 'lb_not_found', lb, run: failing(ours) })).resolves.toEqual({ error: ours });
  });
});

describe('no caller hand-writes the wrapping of a gateway failure', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const sources = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return sources(path);
      return /\.(ts|mjs)$/.test(entry.name) ? [path] : [];
    });
  const wraps = (source: string) => /\bwrapApiFailure\(/.test(source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''));

  it('wrapApiFailure is called only by callGateway and tryGateway (shared/adapters/api-failure.ts)', () => {
    const callers = ['shared', 'cli', 'functions', 'local', 'bench', 'chaos']
      .flatMap(sources)
      .filter((file) => wraps(readFileSync(join(root, file), 'utf8')))
      .map((file) => relative(root, join(root, file)));
    expect(callers).toEqual(['shared/adapters/api-failure.ts']);
  });

  it('the check sees a hand-written wrap, and not one in a comment', () => {
    expect(wraps("} catch (error) {\n  throw wrapApiFailure(kopsMessage.findLb(label), error, 'lb_not_found', lb);")).toBe(true);
    expect(wraps('// wrapApiFailure(step, error) is what callGateway does')).toBe(false);
  });
});
