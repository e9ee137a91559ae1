import { createHash } from 'node:crypto';
import type { DeadLetterReason } from '../core/disposition';
import { MAX_EVENT_BYTES } from '../schemas/event';
import type { LbSyncError, SerializedError } from '../errors/lbsync-error';
import { serializeError } from '../errors/lbsync-error';

/**
 * What lands in the dead-letter queue: enough to understand, fix and redrive.
 *
 * Deliveries are at least once. If an invocation writes its dead letter but cannot answer, the message is
 * delivered again and writes it again. The queue cannot prevent that:
 * - MessageDeduplicationId works on FIFO queues only;
 * - a dead-letter queue has the type of the queue it serves;
 * - a FIFO reconcile queue would let only one message be in flight at a time (Scaleway has no MessageGroupId).
 * So the record carries a recordId fixed by the event itself (its id, target, attempt and every other field), or by
 * the body of an invalid one. Readers (`lbsync dlq`) group records by it, mark the later ones duplicate_of the first,
 * and redrive each recordId once. An event id alone is not a key: inject takes any id its caller chooses, so two
 * events for two targets may share one.
 */
export interface DeadLetterRecord {
  kind: 'lbsync.dead-letter';
  version: 1;
  /** The same for every dead letter of one event (the same id, target and body), or of one raw body. */
  recordId: string;
  reason: DeadLetterReason;
  eventId?: string;
  /** The attempt of the event that was dead-lettered (0 for the first delivery). */
  attempt?: number;
  target?: string;
  /** The event as parsed, or the raw body when it could not be parsed. */
  event?: unknown;
  /** The raw body, whole up to the 64 KiB an event may have (rawBodyTruncated says when it was cut). */
  rawBody?: string;
  /** The raw body as base64, instead of rawBody, when escaping it as JSON would overflow a queue message. */
  rawBodyBase64?: string;
  /** The raw body's size in bytes, and whether what is kept is only its first 64 KiB. */
  rawBodyBytes?: number;
  rawBodyTruncated?: boolean;
  error: SerializedError;
  attempts: number;
  firstSeenAt?: string;
  deadLetteredAt: string;
}

/** Every valid event fits. A longer body (the queue takes up to 256 KiB) is cut here, and the record says so. */
export const RAW_BODY_KEEP_BYTES = MAX_EVENT_BYTES;
/** Past this, a JSON-escaped body (control characters take 6 bytes each) is kept as base64 instead. */
const RAW_BODY_MAX_ESCAPED = 2 * MAX_EVENT_BYTES;

/** JSON with every object's keys sorted, so one event gives one text whatever order its keys came in. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, child: unknown) =>
    child !== null && typeof child === 'object' && !Array.isArray(child)
      ? Object.fromEntries(Object.entries(child).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : child,
  );
}

/** Fixed by the whole event (id, target, attempt and the rest), or by the raw body of one that is not an event. */
export function deadLetterRecordId(key: { event: object } | { rawBody: string }): string {
  const material = 'event' in key ? `event\n${canonicalJson(key.event)}` : `raw\n${key.rawBody}`;
  return `dl-${createHash('sha256').update(material).digest('hex').slice(0, 40)}`;
}

function keptRawBody(rawBody: string): Pick<DeadLetterRecord, 'rawBody' | 'rawBodyBase64' | 'rawBodyBytes' | 'rawBodyTruncated'> {
  const bytes = Buffer.from(rawBody, 'utf8');
  const truncated = bytes.length > RAW_BODY_KEEP_BYTES;
  const kept = truncated ? bytes.subarray(0, RAW_BODY_KEEP_BYTES) : bytes;
  const text = kept.toString('utf8');
  const asText = JSON.stringify(text).length <= RAW_BODY_MAX_ESCAPED && Buffer.from(text, 'utf8').equals(kept);
  return {
    ...(asText ? { rawBody: text } : { rawBodyBase64: kept.toString('base64') }),
    rawBodyBytes: bytes.length,
    ...(truncated && { rawBodyTruncated: true }),
  };
}

export function deadLetterRecord(input: {
  reason: DeadLetterReason;
  error: LbSyncError;
  event?: { id?: string; target?: string; occurredAt?: string; attempt?: number };
  rawBody?: string;
  now: Date;
}): DeadLetterRecord {
  const { event } = input;
  const attempt = event?.attempt ?? 0;
  const recordId = event?.id ? deadLetterRecordId({ event }) : deadLetterRecordId({ rawBody: input.rawBody ?? '' });
  return {
    kind: 'lbsync.dead-letter',
    version: 1,
    recordId,
    reason: input.reason,
    ...(event?.id && { eventId: event.id, attempt }),
    ...(event?.target && { target: event.target }),
    ...(event ? { event } : input.rawBody !== undefined && keptRawBody(input.rawBody)),
    error: serializeError(input.error),
    attempts: (event?.attempt ?? 0) + 1,
    ...(event?.occurredAt && { firstSeenAt: event.occurredAt }),
    deadLetteredAt: input.now.toISOString(),
  };
}
