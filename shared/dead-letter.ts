import type { LbSyncError, SerializedError } from './errors';
import { serializeError } from './errors';

export const DEAD_LETTER_REASONS = ['invalid_event', 'unknown_target', 'permanent_error', 'retries_exhausted'] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** What lands in the dead-letter queue: enough to understand, fix and redrive. */
export interface DeadLetterRecord {
  kind: 'lbsync.dead-letter';
  version: 1;
  reason: DeadLetterReason;
  eventId?: string;
  target?: string;
  /** The event as parsed, or the raw body when it could not be parsed. */
  event?: unknown;
  rawBody?: string;
  error: SerializedError;
  attempts: number;
  firstSeenAt?: string;
  deadLetteredAt: string;
}

const RAW_BODY_KEEP = 16 * 1024;

export function deadLetterRecord(input: {
  reason: DeadLetterReason;
  error: LbSyncError;
  event?: { id?: string; target?: string; occurredAt?: string; attempt?: number };
  rawBody?: string;
  now: Date;
}): DeadLetterRecord {
  const { event } = input;
  return {
    kind: 'lbsync.dead-letter',
    version: 1,
    reason: input.reason,
    ...(event?.id && { eventId: event.id }),
    ...(event?.target && { target: event.target }),
    ...(event ? { event } : input.rawBody !== undefined && { rawBody: input.rawBody.slice(0, RAW_BODY_KEEP) }),
    error: serializeError(input.error),
    attempts: (event?.attempt ?? 0) + 1,
    ...(event?.occurredAt && { firstSeenAt: event.occurredAt }),
    deadLetteredAt: input.now.toISOString(),
  };
}
