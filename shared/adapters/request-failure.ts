// A failed request, described so an operator can act on it: where it went (the URL, without credentials or query)
// and why, in words (connection refused, host not found, timed out, TLS). A 404 that is not the Scaleway API's own
// not-found answer, or a 405, points to a wrong SCW_API_URL or path; it is told apart from a missing LB or backend.
import { ROUTE_NOT_FOUND_ERROR, UNEXPECTED_ANSWER_ERROR } from './api-failure';
import { stripUrlCredentials } from '../outbound/scrub';

/** scheme://host[:port]/path: credentials and the query string (names, tags, tokens) left out. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(stripUrlCredentials(url));
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return stripUrlCredentials(url).split(/[?#]/)[0] ?? '';
  }
}

const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found in DNS',
  EAI_AGAIN: 'DNS lookup failed (temporary)',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNABORTED: 'connection aborted',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};

function isTlsFailure(code: string | undefined, message: string): boolean {
  if (code && (/^ERR_(SSL|TLS)_/.test(code) || /CERT|SELF_SIGNED|UNABLE_TO_(VERIFY|GET)/.test(code) || code === 'EPROTO')) return true;
  return /SSL routines|certificate|TLS/i.test(message);
}

/** OpenSSL's reason from a message like `... SSL routines:ssl3_get_record:wrong version number:...`. */
function tlsReason(message: string): string {
  const openssl = /SSL routines:[^:]*:([^:]+)/.exec(message);
  return (openssl?.[1] ?? message).trim();
}

function errorFields(error: unknown): { name?: string; code?: string; message: string } {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const e = error as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };
  // fetch() wraps the system error: TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }).
  const inner =
    typeof e.code !== 'string' && typeof e.cause === 'object' && e.cause !== null
      ? (e.cause as { code?: unknown; message?: unknown })
      : undefined;
  const code = typeof e.code === 'string' ? e.code : typeof inner?.code === 'string' ? inner.code : undefined;
  const message = typeof inner?.message === 'string' ? inner.message : typeof e.message === 'string' ? e.message : String(error);
  return { ...(typeof e.name === 'string' && { name: e.name }), ...(code && { code }), message };
}

/**
 * Why a request failed, in words with the system code: `connection refused (ECONNREFUSED)`, `host not found
 * (DNS) (ENOTFOUND)`, `request timed out after 10000 ms`, `TLS failure: wrong version number (EPROTO)`.
 */
export function networkCause(error: unknown, timeoutMs?: number): string {
  const { name, code, message } = errorFields(error);
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'ABORT_ERR') {
    return timeoutMs === undefined ? 'request timed out' : `request timed out after ${timeoutMs} ms`;
  }
  if (isTlsFailure(code, message)) return `TLS failure: ${tlsReason(message)}${code ? ` (${code})` : ''}`;
  if (message === 'socket hang up') return `connection closed by the server (socket hang up${code ? `, ${code}` : ''})`;
  const words = code ? CAUSES[code] : undefined;
  if (words) return `${words} (${code})`;
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/** The failure of a request that got no answer, naming the URL and the cause; its name and code are kept. */
export function requestFailure(method: string, url: string, error: unknown, timeoutMs?: number): Error {
  const { name, code } = errorFields(error);
  const failure = new Error(`${networkCause(error, timeoutMs)} on ${method.toUpperCase()} ${shownUrl(url)}`, { cause: error }) as Error & {
    code?: string;
  };
  if (name) failure.name = name;
  if (code) failure.code = code;
  return failure;
}

/**
 * Whether a 404's body is the Scaleway API's own not-found answer, as recorded: `{"message":"lbs not Found"}`,
 * `{"message":"backend not Found"}` (LB API), `{"type":"not_found","message":"resource is not found",...}` (Instance).
 */
export function isApiNotFoundBody(body: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  const message = typeof parsed === 'object' && parsed !== null ? (parsed as { message?: unknown }).message : undefined;
  return typeof message === 'string' && /\bnot found$/i.test(message.trim());
}

/**
 * A 404 that did not come from the API's resources, or a 405 (the API has every route the SDK calls, with its
 * method): the URL leads somewhere else (SCW_API_URL, a proxy).
 */
export function routeNotFound(
  method: string,
  url: string,
  body: string,
  contentType: string | null,
  status: 404 | 405 = 404,
): Error & { status: 404 | 405; body: string } {
  const text = body.trim();
  const type = contentType?.split(';')[0]?.trim() || 'non-JSON';
  const what =
    text === ''
      ? 'an empty body'
      : isJson(text)
        ? `JSON ${text.length > 120 ? `${text.slice(0, 117)}...` : text}`
        : `${/^[aeiou]/i.test(type) ? 'an' : 'a'} ${type} body`;
  const why =
    status === 404
      ? "not the Scaleway API's not-found answer"
      : `method not allowed, which the Scaleway API never answers to a call of its SDK`;
  const failure = new Error(
    `http error ${status} on ${method.toUpperCase()} ${shownUrl(url)} with ${what}, ${why}: this URL does not lead to the API`,
  ) as Error & { status: 404 | 405; body: string };
  failure.name = ROUTE_NOT_FOUND_ERROR;
  failure.status = status;
  failure.body = body;
  return failure;
}

/** `GET https://host/path answered 200 with text/html (<html>...)`: where an answer came from, and what it was. */
export function answeredText(method: string, url: string, status: number, contentType: string | null | undefined, body: string): string {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() || 'no Content-Type';
  const text = body.trim().replace(/\s+/g, ' ');
  const shown = text.length > 80 ? `${text.slice(0, 77)}...` : text;
  return `${method.toUpperCase()} ${shownUrl(url)} answered ${status} with ${type}${shown ? ` (${shown})` : ''}`;
}

/**
 * A success from the Scaleway API that is no JSON (every answer the API makes is application/json): an HTML page from
 * a proxy or a portal, read by the SDK as an answer with no fields. Told as unexpected_answer (api-failure.ts).
 */
export function unexpectedApiAnswer(
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  body: string,
): Error & { status: number } {
  const failure = new Error(
    `${answeredText(method, url, status, contentType, body)}; expected application/json (a Scaleway API answer)`,
  ) as Error & { status: number };
  failure.name = UNEXPECTED_ANSWER_ERROR;
  failure.status = status;
  return failure;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
