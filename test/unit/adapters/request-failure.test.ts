// A request with no answer names the URL and the cause; a 404 route is told apart from a missing LB or backend.
import { Errors } from '@scaleway/sdk-client';
import { describe, expect, it } from 'vitest';
import { classifyApiFailure, wrapApiFailure } from '../../../shared/adapters/api-failure';
import { isApiNotFoundBody, networkCause, requestFailure, routeNotFound, shownUrl } from '../../../shared/adapters/request-failure';

const systemError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('networkCause', () => {
  it.each([
    ['refused', systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'), 'connection refused (ECONNREFUSED)'],
    ['unknown host', systemError('ENOTFOUND', 'getaddrinfo ENOTFOUND api.example.invalid'), 'host not found in DNS (ENOTFOUND)'],
    ['DNS try again', systemError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN api'), 'DNS lookup failed (temporary) (EAI_AGAIN)'],
    ['reset', systemError('ECONNRESET', 'read ECONNRESET'), 'connection reset (ECONNRESET)'],
    ['hang up', systemError('ECONNRESET', 'socket hang up'), 'connection closed by the server (socket hang up, ECONNRESET)'],
    [
      'TLS to a plain port',
      systemError(
        'EPROTO',
        'write EPROTO 80BC08D2C57F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:',
      ),
      'TLS failure: wrong version number (EPROTO)',
    ],
    [
      'TLS certificate',
      systemError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
      'TLS failure: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)',
    ],
    [
      'TLS host name',
      systemError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"),
      "TLS failure: Hostname/IP does not match certificate's altnames (ERR_TLS_CERT_ALTNAME_INVALID)",
    ],
    [
      "fetch's wrapper",
      new TypeError('fetch failed', { cause: systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9') }),
      'connection refused (ECONNREFUSED)',
    ],
    ['timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'request timed out'],
    ['something else', new Error('boom'), 'boom'],
  ])('%s', (_name, error, cause) => {
    expect(networkCause(error)).toBe(cause);
  });

  it('a timeout says how long was waited when known', () => {
    expect(networkCause(Object.assign(new Error('request timed out'), { name: 'TimeoutError' }), 10_000)).toBe(
      'request timed out after 10000 ms',
    );
  });
});

describe('shownUrl and requestFailure', () => {
  it('the URL without credentials or query', () => {
    expect(shownUrl('https://user:s3cret-pass@api.example.test:8443/lb/v1/zones/fr-par-1/lbs?name=api.x&token=abc')).toBe(
      'https://api.example.test:8443/lb/v1/zones/fr-par-1/lbs',
    );
    expect(shownUrl('not a url?x=1')).toBe('not a url');
  });

  it('names method, URL and cause; keeps the name and code that classify it', () => {
    const failure = requestFailure(
      'get',
      'http://u:pw-secret@127.0.0.1:1/lb/v1/zones/fr-par-1/lbs?name=x',
      systemError('ECONNREFUSED', 'connect ECONNREFUSED'),
    );
    expect(failure.message).toBe('connection refused (ECONNREFUSED) on GET http://127.0.0.1:1/lb/v1/zones/fr-par-1/lbs');
    expect(failure.message).not.toContain('pw-secret');
    expect((failure as Error & { code?: string }).code).toBe('ECONNREFUSED');
    expect(classifyApiFailure(failure, 'lb_not_found').code).toBe('network_error');
    const timeout = requestFailure(
      'GET',
      'https://api.scaleway.com/lb/v1/zones/fr-par-1/lbs',
      Object.assign(new Error('request timed out'), { name: 'TimeoutError' }),
      10_000,
    );
    expect(wrapApiFailure('finding load-balancer api.x', timeout, 'lb_not_found').message).toBe(
      'finding load-balancer api.x: request timed out after 10000 ms on GET https://api.scaleway.com/lb/v1/zones/fr-par-1/lbs',
    );
  });
});

describe("a 404: the API's not-found answer, or a route that is not the API", () => {
  it.each([
    // Recorded (test/fixtures/scaleway-api/): the LB API's and the Instance API's own 404 bodies.
    ['{"message":"lbs not Found"}', true],
    ['{"message":"backend not Found"}', true],
    [
      '{"type": "not_found", "message": "resource is not found", "resource": "instance_volume", "resource_id": "69a9b606-f00f-4ea3-9dcc-f53e7c3994af"}',
      true,
    ],
    // Anything else: an HTML error page, an empty body, another gateway's JSON, the emulator's unknown route.
    ['<!DOCTYPE HTML><html><body><h1>Error response</h1><p>Error code: 404</p></body></html>', false],
    ['', false],
    ['{"message":"no Route matched with those values"}', false],
    ['{"message":"no route for GET /wrong/lb/v1/zones/fr-par-1/lbs","type":"not_found"}', false],
    ['[]', false],
  ])('%s -> API not-found: %s', (body, api) => {
    expect(isApiNotFoundBody(body)).toBe(api);
  });

  it("a route 404 is api_route_not_found (permanent), naming the URL; the API's 404 keeps its meaning", () => {
    const route = routeNotFound(
      'GET',
      'http://127.0.0.1:8765/lb/v1/zones/fr-par-1/lbs?name=api.x',
      '<html>nope</html>',
      'text/html; charset=utf-8',
    );
    const wrapped = wrapApiFailure('finding load-balancer api.x', route, 'lb_not_found');
    expect(wrapped).toMatchObject({ code: 'api_route_not_found', errorClass: 'permanent', status: 404 });
    expect(wrapped.message).toBe(
      "finding load-balancer api.x: http error 404 on GET http://127.0.0.1:8765/lb/v1/zones/fr-par-1/lbs with a text/html body, not the Scaleway API's not-found answer: this URL does not lead to the API",
    );
    expect(routeNotFound('GET', 'http://h/x', '', null).message).toContain('with an empty body');
    expect(routeNotFound('GET', 'http://h/x', '<a/>', 'application/xml').message).toContain('with an application/xml body');
    // A 405 is no answer the API gives its SDK's calls: the URL leads elsewhere, whatever the route meant.
    const method = routeNotFound('GET', 'http://h/lb/v1/zones/fr-par-1/lbs', 'Method Not Allowed', 'text/plain', 405);
    expect(wrapApiFailure('finding load-balancer api.x', method, 'lb_not_found')).toMatchObject({
      code: 'api_route_not_found',
      errorClass: 'permanent',
      status: 405,
    });
    expect(method.message).toBe(
      'http error 405 on GET http://h/lb/v1/zones/fr-par-1/lbs with a text/plain body, method not allowed, which the Scaleway API never answers to a call of its SDK: this URL does not lead to the API',
    );
    expect(classifyApiFailure(new Errors.ScalewayError(404, { message: 'lbs not Found' }), 'lb_not_found').code).toBe('lb_not_found');
    expect(classifyApiFailure(new Errors.ScalewayError(404, { message: 'backend not Found' }), 'backend_not_found').code).toBe(
      'backend_not_found',
    );
  });
});
