/**
 * What the bundles bind the Scaleway SDK's fetch globals to (scripts/build.mjs): its `new Request(...)`,
 * `new Headers(...)` and default `fetch` become these plain classes, sent with node:http, so a function
 * never loads undici. Unbundled code (tests, tsx) keeps Node's own; http-transport.ts takes both.
 */
import { HttpHeaders, HttpRequest, HttpResponse, type HttpRequestInit } from './http-messages';
import { createHttpTransport } from './http-transport';

export { HttpHeaders as Headers, HttpRequest as Request, HttpResponse as Response };

const DEFAULT_TIMEOUT_MS = 30_000;
let transport: ReturnType<typeof createHttpTransport> | undefined;

/** The SDK's default client when none is given; scw-lb-sync always gives its own (adapters/scaleway.ts). */
export function fetch(input: string | URL | HttpRequest, init?: HttpRequestInit): Promise<HttpResponse> {
  transport ??= createHttpTransport({ timeoutMs: DEFAULT_TIMEOUT_MS });
  return transport(new HttpRequest(input, init));
}
