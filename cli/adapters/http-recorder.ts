// Records what goes over an HTTP transport (`lbsync doctor --record`): each request and its answer, as sent
// and received, scrubbed of every secret before it is kept. A transport decorator: the SDK's requests pass
// through unchanged. A request that got no answer (refused, timed out) is not kept.
import { SECRET_FIELDS, type Scrubber } from '../../shared/outbound/scrub';
import type { HttpTransport, TransportTap } from '../../shared/adapters/http-transport';

export interface RecordedExchange {
  method: string;
  url: string;
  /** In the order sent; the credential headers (X-Auth-Token...) are left out. */
  requestHeaders: [string, string][];
  requestBody: string;
  status: number;
  statusText: string;
  responseHeaders: [string, string][];
  responseBody: string;
  durationMs: number;
}

/** Given to the gateway as its transport tap: it records every exchange of the transport it wraps. */
export interface ExchangeRecorder extends TransportTap {
  /** The exchange, and the secrets it was scrubbed of (the credentials it was sent with). */
  record(exchange: RecordedExchange, secrets: readonly string[]): void;
}

/**
 * A recorder that keeps every exchange in memory, in the order the answers came, and the secrets of the run they were
 * sent with: the writer of a recording scrubs with them once more (a key read from a profile is in no variable).
 */
export function collectExchanges(): ExchangeRecorder & { exchanges(): RecordedExchange[]; secrets(): string[] } {
  const kept: RecordedExchange[] = [];
  const secrets = new Set<string>();
  const recorder: ExchangeRecorder & { exchanges(): RecordedExchange[]; secrets(): string[] } = {
    record: (exchange, used) => {
      kept.push(exchange);
      for (const secret of used) secrets.add(secret);
    },
    wrap: (transport, scrub) => recordingTransport(transport, recorder, scrub),
    exchanges: () => [...kept],
    secrets: () => [...secrets],
  };
  return recorder;
}

const CREDENTIAL_HEADERS = new Set<string>([
  ...SECRET_FIELDS.map((name) => name.toLowerCase()),
  'cookie',
  'set-cookie',
  'proxy-authorization',
]);

/** X-Auth-Token, Authorization, cookies...: never recorded, whatever they hold. */
export const isCredentialHeader = (name: string) => CREDENTIAL_HEADERS.has(name.toLowerCase());

function keptHeaders(headers: { forEach(callback: (value: string, key: string) => void): void }, scrub: Scrubber): [string, string][] {
  const kept: [string, string][] = [];
  headers.forEach((value, key) => {
    if (!isCredentialHeader(key)) kept.push([key, scrub.text(value)]);
  });
  return kept;
}

/** `transport`, with every exchange it completes handed to `recorder`, scrubbed by `scrub`. */
export function recordingTransport(transport: HttpTransport, recorder: ExchangeRecorder, scrub: Scrubber): HttpTransport {
  return async (request, options) => {
    // The body can be read once: read here, handed on as text.
    const body = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
    const started = performance.now();
    const response = await transport(
      { url: request.url, method: request.method, headers: request.headers, text: async () => body },
      options,
    );
    recorder.record(
      {
        method: request.method.toUpperCase(),
        url: scrub.text(request.url),
        requestHeaders: keptHeaders(request.headers, scrub),
        requestBody: scrub.text(body),
        status: response.status,
        statusText: response.statusText,
        responseHeaders: keptHeaders(response.headers, scrub),
        responseBody: scrub.text(response.body?.toString('utf8') ?? ''),
        durationMs: performance.now() - started,
      },
      scrub.secrets,
    );
    return response;
  };
}
