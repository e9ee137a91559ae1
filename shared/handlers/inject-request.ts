import { createHash, timingSafeEqual } from 'node:crypto';
import type { EventQueue } from '../adapters/queue';
import type { LbSyncError } from '../errors/lbsync-error';
import { validationError } from '../errors/lbsync-error';
import type { Logger } from '../platform/log';
import type { PlatformEvent, PlatformResponse } from '../platform/request-response';
import { header, jsonResponse, requestBody } from '../platform/request-response';
import { completeEvent, type LbSyncEvent, MAX_EVENT_BYTES, parseEvent } from '../schemas/event';
import type { FieldError } from '../errors/field-errors';
import { decodeJsonInput, problemText } from '../schemas/json-input';
import type { Target } from '../schemas/target';
import { ENQUEUE_FAILURE_STATUS, enqueueEvents, enqueueFailureBody } from './enqueue-events';
import { checkInjectPolicy } from './inject-policy';

export interface InjectDeps {
  targets: ReadonlyMap<string, Target>;
  queue: () => EventQueue;
  reconcileQueueUrl: string;
  /** Required unless insecure is set (local use only). */
  token?: string;
  insecure?: boolean;
  logger: Logger;
  now?: () => Date;
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

const badRequest = (message: string, errors: FieldError[]) => jsonResponse(400, { error: 'invalid_event', message, errors });

/** The event refused: its problems as validationError lists them (the first few, and how many more). */
function refusedEvent(problems: FieldError[]): PlatformResponse {
  const refused = validationError('invalid_event', 'event', problems);
  return badRequest(refused.message, refused.fieldErrors ?? []);
}

/** POST an event: authenticate, validate, enqueue, answer 202 with its id. */
export async function handleInjectRequest(event: PlatformEvent, deps: InjectDeps): Promise<PlatformResponse> {
  const method = (event.httpMethod ?? 'POST').toUpperCase();
  if (method !== 'POST') return jsonResponse(405, { error: 'method_not_allowed', message: 'use POST' }, { Allow: 'POST' });

  if (!deps.token && !deps.insecure) {
    deps.logger.error('INJECT_TOKEN is not set; refusing every request (set LBSYNC_INJECT_INSECURE=true only for local use)');
    return jsonResponse(503, { error: 'not_configured', message: 'the inject function has no INJECT_TOKEN configured' });
  }
  if (deps.token) {
    const presented = bearer(event);
    if (!presented || !tokenMatches(presented, deps.token)) {
      return jsonResponse(401, { error: 'unauthorized', message: 'missing or invalid credentials' }, { 'WWW-Authenticate': 'Bearer' });
    }
  }

  const body = requestBody(event);
  if (Buffer.byteLength(body, 'utf8') > MAX_EVENT_BYTES) {
    return jsonResponse(413, { error: 'payload_too_large', message: `the body must be at most ${MAX_EVENT_BYTES} bytes` });
  }
  const contentType = header(event, 'content-type');
  if (contentType && !/^application\/json\b/i.test(contentType.trim())) {
    return jsonResponse(415, { error: 'unsupported_media_type', message: 'send Content-Type: application/json' });
  }

  const decoded = decodeJsonInput(body);
  if (!('value' in decoded)) {
    return badRequest(`the body ${problemText(decoded)}`, [
      { path: 'event', message: decoded.problem, fix: 'send a JSON object matching event version 1' },
    ]);
  }
  let value = decoded.value;
  // Fields and sources only the system sets are refused, together with whatever else is wrong.
  const policy = checkInjectPolicy(value);
  value = policy.rest;
  if (value && typeof value === 'object' && !Array.isArray(value) && !Object.hasOwn(value, 'source')) {
    value = { ...value, source: 'manual' };
  }
  let parsed: LbSyncEvent;
  try {
    parsed = parseEvent(completeEvent(value, deps.now?.() ?? new Date()));
  } catch (error) {
    const e = error as LbSyncError;
    return refusedEvent([...policy.errors, ...(e.fieldErrors ?? [])]);
  }
  if (policy.errors.length > 0) return refusedEvent(policy.errors);
  if (!deps.targets.has(parsed.target)) {
    const known = [...deps.targets.keys()];
    return badRequest(`no target named "${parsed.target}"`, [
      {
        path: 'event.target',
        message: 'is not a configured target',
        received: JSON.stringify(parsed.target),
        allowed: known,
        fix: `use one of: ${known.join(', ')}`,
      },
    ]);
  }

  const { failure } = await enqueueEvents(deps, [{ event: parsed }]);
  if (failure) {
    deps.logger.error({ error: failure.error, event_id: parsed.id }, 'could not enqueue the injected event');
    return jsonResponse(ENQUEUE_FAILURE_STATUS, enqueueFailureBody(failure));
  }
  deps.logger.info({ event_id: parsed.id, target: parsed.target, source: parsed.source }, 'event injected');
  return jsonResponse(202, { eventId: parsed.id, target: parsed.target });
}
