import type { EventQueue } from '../adapters/queue';
import type { LbSyncError } from '../errors/lbsync-error';
import { validationError } from '../errors/lbsync-error';
import type { Logger } from '../platform/log';
import type { PlatformEvent, PlatformResponse } from '../platform/request-response';
import { jsonResponse } from '../platform/request-response';
import { acceptJson, badRequest, type JsonEdge } from '../platform/http-edge';
import { completeEvent, type LbSyncEvent, MAX_EVENT_BYTES, parseEvent } from '../schemas/event';
import type { FieldError } from '../errors/field-errors';
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

/** Inject's edge: POST with `Authorization: Bearer <INJECT_TOKEN>`, a JSON event of at most 64 KiB. */
const INJECT_EDGE: JsonEdge = {
  name: 'inject',
  tokenVariable: 'INJECT_TOKEN',
  insecureVariable: 'LBSYNC_INJECT_INSECURE',
  maxBytes: MAX_EVENT_BYTES,
  invalid: { code: 'invalid_event', path: 'event', expected: 'a JSON object matching event version 1' },
};

/** The event refused: its problems as validationError lists them (the first few, and how many more). */
function refusedEvent(problems: FieldError[]): PlatformResponse {
  const refused = validationError('invalid_event', 'event', problems);
  return badRequest(INJECT_EDGE, refused.message, refused.fieldErrors ?? []);
}

/** POST an event: authenticate, validate, enqueue, answer 202 with its id. */
export async function handleInjectRequest(event: PlatformEvent, deps: InjectDeps): Promise<PlatformResponse> {
  const received = acceptJson(event, INJECT_EDGE, deps);
  if ('answer' in received) return received.answer;
  let value = received.value;
  // Take out the system-only fields and sources here, so their errors are reported together with the schema's.
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
    return badRequest(INJECT_EDGE, `no target named "${parsed.target}"`, [
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
