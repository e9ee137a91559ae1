// One plain HTTP request to a service that is not the Scaleway API (Cockpit's Loki ruler and query API, its Grafana,
// the inject function), told the way the Scaleway gateway tells its failures: no answer is network_error naming the
// URL and the cause, an answer >= 400 an LbSyncError by its status, an answer of another type or shape than asked
// for (an HTML page from a proxy or a login portal) unexpected_answer naming the URL, the status and what was
// expected; and every body read is scrubbed of the secrets sent. Sent over the transport the SDKs use: one deadline
// covers the whole exchange, the body included.
import { LbSyncError } from '../../shared/errors/lbsync-error';
import type { Scrubber } from '../../shared/outbound/scrub';
import { classifyApiFailure } from '../../shared/adapters/api-failure';
import { HttpRequest, isJsonType, mediaType } from '../../shared/adapters/http-messages';
import { createHttpTransport } from '../../shared/adapters/http-transport';
import { answeredText, requestFailure, shownUrl } from '../../shared/adapters/request-failure';

export interface HttpAnswer {
  status: number;
  body: string;
  /** The Content-Type header, when the answer has one. */
  contentType?: string;
}

export interface HttpCallOptions {
  headers: Record<string, string>;
  body?: string;
  /** From sending the request to the last byte of the answer. */
  timeoutMs: number;
  scrubber: Scrubber;
}

export async function httpCall(method: string, url: string, options: HttpCallOptions): Promise<HttpAnswer> {
  const send = createHttpTransport({ timeoutMs: options.timeoutMs });
  let answer: HttpAnswer;
  try {
    const response = await send(
      new HttpRequest(url, { method, headers: options.headers, ...(options.body !== undefined && { body: options.body }) }),
    );
    const contentType = response.headers.get('content-type');
    answer = {
      status: response.status,
      body: options.scrubber.text(response.body?.toString('utf8') ?? ''),
      ...(contentType && { contentType }),
    };
  } catch (error) {
    const failure = requestFailure(method, url, error, options.timeoutMs);
    throw new LbSyncError('network_error', options.scrubber.text(failure.message), { cause: failure });
  }
  return answer;
}

/** An answer >= 400 as the error its status means (a 404: the URL leads nowhere this tool knows), with a part of its body. */
export function statusFailure(what: string, method: string, url: string, answer: HttpAnswer): LbSyncError {
  let body: unknown = answer.body;
  try {
    body = JSON.parse(answer.body);
  } catch {
    // not JSON: the text
  }
  const code =
    answer.status === 404 ? 'api_route_not_found' : classifyApiFailure({ status: answer.status, body }, 'unknown_api_error').code;
  const excerpt = answer.body.trim().replace(/\s+/g, ' ');
  const shown = excerpt.length > 200 ? `${excerpt.slice(0, 197)}...` : excerpt;
  return new LbSyncError(code, `${what}: http error ${answer.status} on ${method} ${shownUrl(url)}${shown ? `: ${shown}` : ''}`, {
    status: answer.status,
  });
}

/**
 * An answer of another type or shape than the one asked for: an error naming the URL, the status, what came (its
 * type and first characters) and what was expected.
 */
export function unexpectedAnswer(what: string, method: string, url: string, answer: HttpAnswer, expected: string): LbSyncError {
  return new LbSyncError(
    'unexpected_answer',
    `${what}: ${answeredText(method, url, answer.status, answer.contentType, answer.body)}; expected ${expected}`,
    { status: answer.status },
  );
}

/** The body of a JSON answer, parsed: an answer that is not JSON (by its type, or its text) is unexpectedAnswer. */
export function jsonAnswer(what: string, method: string, url: string, answer: HttpAnswer, expected: string): unknown {
  if (!isJsonType(mediaType(answer.contentType))) throw unexpectedAnswer(what, method, url, answer, expected);
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    throw unexpectedAnswer(what, method, url, answer, expected);
  }
}

/** Whether a value is a JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
