// The edge of a function that callers reach over HTTP (inject). It checks the method, the bearer token, the body's
// size and type, and its JSON, before the function looks at what was sent. It returns either the decoded JSON value
// or the answer to send back.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FieldError } from '../errors/field-errors';
import { decodeJsonInput, problemText } from '../schemas/json-input';
import type { Logger } from './log';
import { header, jsonResponse, type PlatformEvent, type PlatformResponse, requestBody } from './request-response';

/** What an HTTP function takes: POST, a bearer token, a JSON body of at most `maxBytes`. */
export interface JsonEdge {
  /** The function's name, as its 503 says it. */
  name: string;
  /** The variable that holds the token, and the one that lets a local run go without it. */
  tokenVariable: string;
  insecureVariable: string;
  maxBytes: number;
  /** The 400 for a body that is no JSON: its error code, the path it names, and what to send instead. */
  invalid: { code: string; path: string; expected: string };
}

/** The caller's side of the edge: the token it must present (none only with `insecure`: local use). */
export interface EdgeKeys {
  token?: string;
  insecure?: boolean;
  logger: Logger;
}

/** Compares digests so neither length nor content leaks through timing. */
export function tokenMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function bearer(event: PlatformEvent): string | undefined {
  const value = header(event, 'authorization');
  const match = value ? /^Bearer\s+(.+)$/i.exec(value.trim()) : null;
  return match?.[1];
}

/** A 400 in the edge's words: `{error, message, errors}`. */
export function badRequest(edge: Pick<JsonEdge, 'invalid'>, message: string, errors: FieldError[]): PlatformResponse {
  return jsonResponse(400, { error: edge.invalid.code, message, errors });
}

/** The request's JSON value, or the answer that refuses it (405, 503, 401, 413, 415, 400, in that order). */
export function acceptJson(event: PlatformEvent, edge: JsonEdge, keys: EdgeKeys): { value: unknown } | { answer: PlatformResponse } {
  const method = (event.httpMethod ?? 'POST').toUpperCase();
  if (method !== 'POST') return { answer: jsonResponse(405, { error: 'method_not_allowed', message: 'use POST' }, { Allow: 'POST' }) };

  if (!keys.token && !keys.insecure) {
    keys.logger.error(`${edge.tokenVariable} is not set; refusing every request (set ${edge.insecureVariable}=true only for local use)`);
    return {
      answer: jsonResponse(503, {
        error: 'not_configured',
        message: `the ${edge.name} function has no ${edge.tokenVariable} configured`,
      }),
    };
  }
  if (keys.token) {
    const presented = bearer(event);
    if (!presented || !tokenMatches(presented, keys.token))
      return {
        answer: jsonResponse(401, { error: 'unauthorized', message: 'missing or invalid credentials' }, { 'WWW-Authenticate': 'Bearer' }),
      };
  }

  const body = requestBody(event);
  if (Buffer.byteLength(body, 'utf8') > edge.maxBytes)
    return { answer: jsonResponse(413, { error: 'payload_too_large', message: `the body must be at most ${edge.maxBytes} bytes` }) };
  const contentType = header(event, 'content-type');
  if (contentType && !/^application\/json\b/i.test(contentType.trim()))
    return { answer: jsonResponse(415, { error: 'unsupported_media_type', message: 'send Content-Type: application/json' }) };

  const decoded = decodeJsonInput(body);
  if (!('value' in decoded))
    return {
      answer: badRequest(edge, `the body ${problemText(decoded)}`, [
        { path: edge.invalid.path, message: decoded.problem, fix: `send ${edge.invalid.expected}` },
      ]),
    };
  return { value: decoded.value };
}
