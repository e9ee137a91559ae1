import * as z from 'zod';
import { LbSyncError, validationError } from '../errors/lbsync-error';
import { backendIpSchema } from './backend-address';
import { toFieldErrors } from './zod-issues';
import { decodeJsonInput, problemText } from './json-input';
import { EVENT_SOURCES, eventSourcesDescription } from './event-sources';
import { isoDateTimeSchema, targetNameSchema, WRITER_KINDS } from './primitives';

export const MAX_EVENT_BYTES = 64 * 1024;

/** One writer the watcher found scw-lb-sync reverting on the target (shared/core/contest.ts). */
const contestedSchema = z
  .object({
    writer: z.string().min(1).max(200).describe('who, as an operator reads it'),
    writerKind: z.enum(WRITER_KINDS).describe('what kind of writer'),
    owner: z.string().min(1).max(63).optional().describe("another scw-lb-sync deployment's owner id"),
    reverts: z.number().int().min(1).max(100_000).describe('how often scw-lb-sync wrote the pool back after it'),
    windowMinutes: z.number().int().min(1).max(1440).describe('within how long'),
  })
  .strict();

export const eventSchema = z
  .object({
    version: z.literal(1, { message: 'must be 1 (the only event version)' }).describe('event format version'),
    id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9._:-]+$/, { message: 'must be letters, digits, ".", "_", ":" or "-"' })
      .describe('unique event id (inject fills evt-<uuid>)'),
    source: z.enum(EVENT_SOURCES).describe(eventSourcesDescription()),
    target: targetNameSchema.describe('name of a configured target'),
    occurredAt: isoDateTimeSchema.describe('when it happened (inject fills now)'),
    serverIps: z
      .array(backendIpSchema)
      .max(256)
      .optional()
      .describe("assertion: these should be in the pool; never adds an address the target's own discovery does not return"),
    dryRun: z.boolean().optional().describe('plan only, write nothing'),
    attempt: z.number().int().min(0).max(1000).default(0).describe('set by the system on re-enqueue'),
    notBefore: isoDateTimeSchema.optional().describe('set by the system on re-enqueue: not processed before'),
    firstAttemptAt: isoDateTimeSchema
      .optional()
      .describe('set by the system when it first schedules a retry, then carried unchanged: retries stop LBSYNC_RETRY_HORIZON_MS after it'),
    contested: z
      .array(contestedSchema)
      .max(10)
      .optional()
      .describe('set by the watcher: writers scw-lb-sync kept reverting on this target (the reconcile answer warns pool_contested)'),
  })
  .strict();

export type LbSyncEvent = z.output<typeof eventSchema>;
export type LbSyncEventInput = z.input<typeof eventSchema>;

export function newEventId(): string {
  // The global Web Crypto, loaded on first use: importing node:crypto would load it on every cold start.
  return `evt-${crypto.randomUUID()}`;
}

/** Validates an already-decoded event; throws invalid_event naming every bad field. */
export function parseEvent(value: unknown): LbSyncEvent {
  const parsed = eventSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) throw validationError('invalid_event', 'event', toFieldErrors(parsed.error, 'event'));
  return parsed.data;
}

/** Decodes a raw message body (as the queue trigger delivers it) into a valid event. */
export function decodeEvent(body: string): LbSyncEvent {
  if (Buffer.byteLength(body, 'utf8') > MAX_EVENT_BYTES) {
    throw validationError('invalid_event', 'event', [
      { path: 'event', message: `body is larger than ${MAX_EVENT_BYTES} bytes`, fix: 'send a smaller event' },
    ]);
  }
  const decoded = decodeJsonInput(body);
  if (!('value' in decoded)) {
    throw new LbSyncError('invalid_event', `event ${problemText(decoded)}`, {
      fieldErrors: [{ path: 'event', message: decoded.problem, fix: 'send a JSON object matching event version 1' }],
    });
  }
  return parseEvent(decoded.value);
}

/** Fills what a caller may leave out (id, occurredAt, version) before validation. */
export function completeEvent(value: unknown, now = new Date()): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const input = value as Record<string, unknown>;
  return {
    version: 1,
    id: newEventId(),
    occurredAt: now.toISOString(),
    ...input,
  };
}
