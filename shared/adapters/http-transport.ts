/**
 * Sends a fetch-style request with node:http / node:https and answers an HttpResponse: what the Scaleway SDK
 * needs from `fetch`, without undici's client (its WebAssembly HTTP parser costs a ~25 MB transient peak on
 * the first requests of a process) and without loading TLS for a plain-http endpoint (the emulator).
 * Keep-alive connections are shared by the process, as fetch's are.
 */
import type { Agent as HttpAgent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { Scrubber } from '../outbound/scrub';
import { HttpResponse } from './http-messages';

/** What is read from a request: Node's own Request and HttpRequest both fit. */
export interface OutgoingRequest {
  url: string;
  method: string;
  headers: { forEach(callback: (value: string, key: string) => void): void };
  text(): Promise<string>;
}

/** `timeoutMs` bounds this one request below the transport's own bound (an invocation's deadline). */
export type HttpTransport = (request: OutgoingRequest, options?: { timeoutMs?: number }) => Promise<HttpResponse>;

/**
 * Watches what goes over the SDKs' transport by wrapping it: `lbsync doctor --record` keeps each exchange, scrubbed
 * by the scrubber the gateway was given (cli/adapters/http-recorder.ts). The functions never set one.
 */
export interface TransportTap {
  wrap(transport: HttpTransport, scrubber: Scrubber): HttpTransport;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
/**
 * An idle kept-alive connection is closed after this (undici's default too), or sooner when the server's
 * Keep-Alive header says so, so a request rarely goes out on a connection the server already dropped.
 */
const IDLE_CONNECTION_MS = 4_000;

interface Protocol {
  request: (url: URL, options: RequestOptions, onResponse: (response: IncomingMessage) => void) => ClientRequest;
  agent: HttpAgent;
}

const protocols = new Map<string, Promise<Protocol>>();

function protocolFor(scheme: string): Promise<Protocol> {
  let loading = protocols.get(scheme);
  if (!loading) {
    loading =
      scheme === 'https:'
        ? import('node:https').then((https) => ({
            request: https.request,
            agent: new https.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
          }))
        : import('node:http').then((http) => ({
            request: http.request,
            agent: new http.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
          }));
    protocols.set(scheme, loading);
  }
  return loading;
}

export function timeoutError(message = 'request timed out'): Error {
  const error = new Error(message);
  error.name = 'TimeoutError';
  return error;
}

function send(protocol: Protocol, url: URL, method: string, headers: Record<string, string>, body: Buffer | undefined, timeoutMs: number) {
  return new Promise<{ response: HttpResponse } | { error: Error }>((resolve) => {
    let settled = false;
    const finish = (outcome: { response: HttpResponse } | { error: Error }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = protocol.request(url, { method, headers, agent: protocol.agent }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', (error) => finish({ error }));
      incoming.on('end', () => {
        const status = incoming.statusCode ?? 0;
        const responseHeaders: [string, string][] = [];
        for (let i = 0; i < incoming.rawHeaders.length; i += 2)
          responseHeaders.push([incoming.rawHeaders[i] as string, incoming.rawHeaders[i + 1] as string]);
        finish({
          response: new HttpResponse(NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks), {
            status,
            statusText: incoming.statusMessage ?? '',
            headers: responseHeaders,
          }),
        });
      });
    });
    const timer = setTimeout(() => request.destroy(timeoutError()), timeoutMs);
    request.on('error', (error) => finish({ error }));
    request.end(body);
  });
}

/** A fetch-shaped function bounded by `timeoutMs` per request (connection, answer and body). */
export function createHttpTransport(options: { timeoutMs: number }): HttpTransport {
  return async (request, perRequest) => {
    const url = new URL(request.url);
    const protocol = await protocolFor(url.protocol);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const text = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
    const body = text === '' ? undefined : Buffer.from(text, 'utf8');
    if (body) headers['content-length'] = String(body.byteLength);
    const timeoutMs = Math.min(options.timeoutMs, perRequest?.timeoutMs ?? options.timeoutMs);
    const outcome = await send(protocol, url, request.method, headers, body, timeoutMs);
    if ('error' in outcome) throw outcome.error;
    return outcome.response;
  };
}
