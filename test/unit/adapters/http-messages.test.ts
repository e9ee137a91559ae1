// The fetch classes the bundles give the Scaleway SDK instead of undici's: the parts the SDK relies on.
import { describe, expect, it } from 'vitest';
import { HttpHeaders, HttpRequest, HttpResponse } from '../../../shared/adapters/http-messages';

describe('HttpHeaders', () => {
  it('is case-insensitive, joins repeated names, iterates sorted lower-case pairs like the WHATWG class', () => {
    const headers = new HttpHeaders({ 'X-Total-Count': '3', Accept: 'application/json' });
    headers.append('accept', 'text/plain');
    expect(headers.get('x-total-count')).toBe('3');
    expect(headers.get('ACCEPT')).toBe('application/json, text/plain');
    expect(headers.get('missing')).toBeNull();
    expect([...headers]).toEqual([
      ['accept', 'application/json, text/plain'],
      ['x-total-count', '3'],
    ]);
    expect(Array.from(new HttpHeaders(headers).entries())).toEqual([...headers]);
    expect([...new HttpHeaders([['A', '1']]).keys()]).toEqual(['a']);
    headers.delete('Accept');
    expect(headers.has('accept')).toBe(false);
  });

  it("takes Node's own Headers too (the transport serves unbundled code)", () => {
    const copied = new HttpHeaders(new Headers({ 'X-Auth-Token': 'secret' }));
    expect(copied.get('x-auth-token')).toBe('secret');
  });
});

describe('HttpRequest', () => {
  it("holds url, upper-case method, headers and body; a Request built from a Request keeps them (the SDK's obfuscating subclass does this)", async () => {
    const request = new HttpRequest('https://api.example/lb/v1/zones/fr-par-1/lbs', {
      method: 'put',
      headers: { 'X-Auth-Token': 't' },
      body: '{"a":1}',
    });
    expect(request.method).toBe('PUT');
    const copy = new HttpRequest(request);
    expect(copy.url).toBe(request.url);
    expect(copy.headers.get('x-auth-token')).toBe('t');
    expect(await copy.clone().text()).toBe('{"a":1}');
    expect(await copy.json()).toEqual({ a: 1 });
    await expect(copy.text()).rejects.toThrow('already been read');
  });

  it("subclasses that override headers, as @scaleway/sdk-client's ObfuscatedRequest does", () => {
    class Obfuscated extends HttpRequest {
      constructor(readonly original: HttpRequest) {
        super(original);
      }
      override get headers() {
        return new HttpHeaders(Array.from(this.original.headers, ([k, v]) => [k, k === 'x-auth-token' ? 'hidden' : v] as [string, string]));
      }
    }
    const shown = new Obfuscated(new HttpRequest('https://api.example/', { headers: { 'X-Auth-Token': 'secret' } }));
    expect(shown.headers.get('x-auth-token')).toBe('hidden');
  });

  it('has no body for a GET', async () => {
    const request = new HttpRequest('http://127.0.0.1/');
    expect(request.body).toBeNull();
    expect(await request.text()).toBe('');
  });
});

describe('HttpResponse', () => {
  it("passes the SDK's duck-typed isResponse check and parses JSON, text, blob; clone before reading", async () => {
    const response = new HttpResponse(Buffer.from('{"lbs":[],"total_count":0}'), {
      status: 200,
      statusText: 'OK',
      headers: [['Content-Type', 'application/json']],
    });
    expect(response.ok).toBe(true);
    expect(typeof response.statusText).toBe('string');
    expect(response.body).not.toBeUndefined();
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.clone().json()).toEqual({ lbs: [], total_count: 0 });
    const blob = await response.clone().blob();
    expect(blob.type).toBe('application/json');
    expect(await response.text()).toBe('{"lbs":[],"total_count":0}');
    expect(() => response.clone()).toThrow('already been read');
  });

  it("an error answer whose body is not JSON: json() fails, text() of a clone still reads it (the SDK's error path)", async () => {
    const response = new HttpResponse('', { status: 429, headers: { 'X-Envoy-Ratelimited': 'true' } });
    expect(response.ok).toBe(false);
    await expect(response.clone().json()).rejects.toThrow();
    expect(await response.text()).toBe('');
  });

  it('a 204 has a null body but still answers text()', async () => {
    const response = new HttpResponse(null, { status: 204 });
    expect(response.body).toBeNull();
    expect(await response.text()).toBe('');
  });
});
