// The fetch the Scaleway SDK clients are given (withHTTPClient): requests over node:http, with a timeout, within the
// invocation's deadline, and with what comes back made safe to show. An API error may echo what it was sent, the key
// included. So error bodies and transport failures are scrubbed here, before the SDK builds an error message from
// them. A failed request, and a 404 or 405 from no API route, are named by URL and cause.
import type { Scrubber } from '../outbound/scrub';
import { HttpResponse, isJsonType, mediaType } from './http-messages';
import { createHttpTransport, type OutgoingRequest, type TransportTap, timeoutError } from './http-transport';
import { isApiNotFoundBody, requestFailure, routeNotFound, unexpectedApiAnswer } from './request-failure';

export interface SdkHttpClientOptions {
  requestTimeoutMs: number;
  scrubber: Scrubber;
  /** Time left in the invocation: a request gets no more, and none is made when none is left. */
  remainingMs?: () => number;
  /** Each request about to be sent (call counting). */
  onRequest?: (method: string, url: string) => void;
  /** Each request once it ended (an answer or a failure), with how long it took. */
  onDone?: (method: string, url: string, ms: number) => void;
  /** Each exchange that got an answer, scrubbed (`lbsync doctor --record`). */
  recorder?: TransportTap;
}

/** An error as the SDK would show it, with every message in its cause chain scrubbed. */
function scrubbedError(error: unknown, scrub: (text: string) => string): unknown {
  if (!(error instanceof Error)) return error;
  const message = scrub(error.message);
  const cause = error.cause instanceof Error ? scrubbedError(error.cause, scrub) : undefined;
  if (message === error.message && cause === error.cause) return error;
  if (error instanceof DOMException) return new DOMException(message, error.name);
  const copy = new Error(message, cause === undefined ? undefined : { cause }) as Error & { code?: unknown; status?: unknown };
  copy.name = error.name;
  const { code, status } = error as { code?: unknown; status?: unknown };
  if (code !== undefined) copy.code = code;
  if (status !== undefined) copy.status = status;
  return copy;
}

/** The SDK hands over a built Request (its own `new Request`, an HttpRequest in the bundles) and no init. */
export function sdkHttpClient(options: SdkHttpClientOptions): typeof fetch {
  const { requestTimeoutMs, scrubber } = options;
  const direct = createHttpTransport({ timeoutMs: requestTimeoutMs });
  const transport = options.recorder ? options.recorder.wrap(direct, scrubber) : direct;
  const send = async (request: OutgoingRequest) => {
    // No time left in the invocation: the request is not made (nor counted); the event is retried.
    const left = options.remainingMs?.();
    const timeoutMs = left === undefined ? requestTimeoutMs : Math.min(requestTimeoutMs, left);
    if (timeoutMs <= 0) throw timeoutError('no time left in this invocation');
    const method = request.method.toUpperCase();
    options.onRequest?.(method, request.url);
    let response: HttpResponse;
    const sentAt = Date.now();
    try {
      response = await transport(request, { timeoutMs });
      options.onDone?.(method, request.url, Date.now() - sentAt);
    } catch (error) {
      options.onDone?.(method, request.url, Date.now() - sentAt);
      // Named by URL and cause (connection refused, host not found, timed out, TLS).
      throw scrubbedError(requestFailure(method, request.url, error, timeoutMs), scrubber.text);
    }
    if (response.status < 400) {
      // Every answer of the API is JSON: another type (an HTML page answered 200) would read as an answer with no fields.
      // The type is checked first: a JSON body is not copied into a string here (an Audit Trail page is large).
      const contentType = response.headers.get('content-type');
      if (isJsonType(mediaType(contentType ?? undefined))) return response;
      const body = response.body?.toString('utf8') ?? '';
      if (body.trim() !== '')
        throw scrubbedError(unexpectedApiAnswer(method, request.url, response.status, contentType, scrubber.text(body)), scrubber.text);
      return response;
    }
    const safeBody = scrubber.text(response.body?.toString('utf8') ?? '');
    if ((response.status === 404 && !isApiNotFoundBody(safeBody)) || response.status === 405)
      throw scrubbedError(
        routeNotFound(method, request.url, safeBody, response.headers.get('content-type'), response.status),
        scrubber.text,
      );
    if (response.body === null) return response;
    return new HttpResponse(safeBody, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return send as unknown as typeof fetch;
}
