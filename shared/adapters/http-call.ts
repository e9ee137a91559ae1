// One plain HTTP request to a service that is not the Scaleway API (Cockpit's Loki ruler, its Grafana), told the
// way the Scaleway gateway tells its failures: no answer is network_error naming the URL and the cause, an answer
// >= 400 an LbSyncError by its status, and every body read is scrubbed of the secrets sent.
import { LbSyncError } from '../errors/lbsync-error';
import type { Scrubber } from '../outbound/scrub';
import { classifyApiFailure } from './api-failure';
import { requestFailure, shownUrl } from './request-failure';

export interface HttpAnswer {
  status: number;
  body: string;
}

export interface HttpCallOptions {
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  scrubber: Scrubber;
}

export async function httpCall(method: string, url: string, options: HttpCallOptions): Promise<HttpAnswer> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: options.headers,
      ...(options.body !== undefined && { body: options.body }),
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    const failure = requestFailure(method, url, error, options.timeoutMs);
    throw new LbSyncError('network_error', options.scrubber.text(failure.message), { cause: failure });
  }
  return { status: response.status, body: options.scrubber.text(await response.text()) };
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
