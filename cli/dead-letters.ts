// Reading the dead-letter queue without consuming it. SQS has no "peek": a receive hides a message
// for a visibility timeout. So a scan receives everything (hidden while we look, which also stops
// one scan from seeing a message twice), then hands back what it did not delete with
// ChangeMessageVisibility 0 — the one value Scaleway Queues accept besides the queue's own.
import type { EventQueue, ReceivedMessage } from '../shared/adapters/queue';
import type { DeadLetterRecord } from '../shared/handlers/dead-letter';
import { deadLetterRecordId } from '../shared/handlers/dead-letter';
import type { LbSyncEvent } from '../shared/schemas/event';
import { decodeEvent, parseEvent } from '../shared/schemas/event';
import { CliError, plural } from './output';

export interface DeadLetterEntry {
  messageId: string;
  receiptHandle: string;
  sentAt?: number;
  receiveCount: number;
  /** lbsync: a record written by the reconcile function; queue: a raw message the queue's RedrivePolicy moved; unknown. */
  origin: 'lbsync' | 'queue' | 'unknown';
  record?: DeadLetterRecord;
  body: string;
  eventId?: string;
  target?: string;
  reason: string;
  errorCode?: string;
  message?: string;
  deadLetteredAt?: string;
  /** What a redrive would send (attempt 0, no notBefore, no firstAttemptAt), when the entry holds a valid event. */
  redriveEvent?: LbSyncEvent;
  /** Why it cannot be redriven. */
  notRedrivable?: string;
  /** The same for every dead letter of one event (id, target and body): a redelivered message dead-lettered twice. */
  recordId: string;
  /** The message id of the first dead letter with this recordId, when this one is a later copy. */
  duplicateOf?: string;
}

function redrivable(event: unknown): { event?: LbSyncEvent; why?: string } {
  if (typeof event !== 'object' || event === null) return { why: 'the record holds no event' };
  // A redrive starts over: a full retry horizon from its own first attempt.
  const { notBefore: _notBefore, firstAttemptAt: _firstAttemptAt, ...rest } = event as Record<string, unknown>;
  try {
    return { event: parseEvent({ ...rest, attempt: 0 }) };
  } catch (error) {
    return { why: `the kept event is not valid: ${(error as Error).message.split('\n').slice(1).join('; ').trim()}` };
  }
}

/**
 * The recordId of a dead letter, computed here from what it holds: the kept event (a record's, or the raw event the
 * queue moved), else the record's own id (a raw body, kept whole only up to 64 KiB), else the body. Never the
 * record's word for an event: records of older versions keyed by (event id, attempt) alone, which two events for
 * two targets may share.
 */
function recordIdOf(entry: Omit<DeadLetterEntry, 'recordId'>, event: object | undefined): string {
  if (event !== undefined) return deadLetterRecordId({ event });
  if (entry.record?.recordId) return entry.record.recordId;
  return deadLetterRecordId({ rawBody: entry.record?.rawBody ?? entry.body });
}

export function classify(message: ReceivedMessage): DeadLetterEntry {
  const { entry, event } = classifyBody(message);
  return { ...entry, recordId: recordIdOf(entry, event) };
}

/** The entry, and the event it keeps (as the function decoded it) when it keeps one. */
function classifyBody(message: ReceivedMessage): { entry: Omit<DeadLetterEntry, 'recordId'>; event?: object } {
  const base = {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle,
    receiveCount: message.receiveCount,
    body: message.body,
    ...(message.sentAt && { sentAt: message.sentAt }),
  };
  let value: unknown;
  try {
    value = JSON.parse(message.body);
  } catch {
    value = undefined;
  }
  if (typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'lbsync.dead-letter') {
    const record = value as DeadLetterRecord;
    const entry: Omit<DeadLetterEntry, 'recordId'> = {
      ...base,
      origin: 'lbsync',
      record,
      reason: record.reason,
      ...(record.eventId && { eventId: record.eventId }),
      ...(record.target && { target: record.target }),
      errorCode: record.error?.code,
      message: record.error?.message,
      deadLetteredAt: record.deadLetteredAt,
    };
    if (record.event === undefined) {
      entry.notRedrivable =
        'the record keeps only the raw body (it was not a valid event, reason invalid_event); fix it and send it again with `lbsync inject`';
      return { entry };
    }
    const { event, why } = redrivable(record.event);
    if (event) entry.redriveEvent = event;
    else entry.notRedrivable = why;
    return { entry, ...(typeof record.event === 'object' && record.event !== null && { event: record.event }) };
  }
  // Moved here by the reconcile queue's RedrivePolicy (the function answered >= 300 maxReceiveCount times).
  try {
    const event = decodeEvent(message.body);
    const { event: again } = redrivable(event);
    return {
      entry: {
        ...base,
        origin: 'queue',
        reason: 'max_receives',
        eventId: event.id,
        target: event.target,
        message: 'moved by the queue after maxReceiveCount failed deliveries',
        ...(again && { redriveEvent: again }),
      },
      // The event as the function decodes it (attempt 0 when absent): a record of the same delivery keeps the same.
      event,
    };
  } catch {
    return {
      entry: {
        ...base,
        origin: 'unknown',
        reason: 'unrecognised',
        notRedrivable: 'neither an lbsync dead-letter record nor a valid event',
      },
    };
  }
}

export interface ScanOptions {
  /** How long scanned messages stay hidden if the scan is interrupted (Scaleway applies the queue's own). */
  visibilityTimeoutSeconds?: number;
  limit?: number;
}

export async function scanDeadLetters(queue: EventQueue, url: string, options: ScanOptions = {}): Promise<DeadLetterEntry[]> {
  const limit = options.limit ?? 1_000;
  const seen = new Map<string, DeadLetterEntry>();
  while (seen.size < limit) {
    const batch = await queue.receive(url, {
      maxMessages: Math.min(10, limit - seen.size),
      waitSeconds: 0,
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30,
    });
    const fresh = batch.filter((m) => !seen.has(m.messageId));
    for (const m of batch) seen.set(m.messageId, classify(m));
    if (fresh.length === 0) break;
  }
  return markDuplicates([...seen.values()].sort((a, b) => (a.sentAt ?? 0) - (b.sentAt ?? 0)));
}

/**
 * Within each recordId, the first dead letter is the original (a record written by the function before a
 * message the queue moved, then the oldest); the others get duplicate_of its message id.
 */
export function markDuplicates(entries: DeadLetterEntry[]): DeadLetterEntry[] {
  const before = (a: DeadLetterEntry, b: DeadLetterEntry): boolean => {
    const byOrigin = Number(a.origin !== 'lbsync') - Number(b.origin !== 'lbsync');
    if (byOrigin !== 0) return byOrigin < 0;
    if ((a.sentAt ?? 0) !== (b.sentAt ?? 0)) return (a.sentAt ?? 0) < (b.sentAt ?? 0);
    return a.messageId < b.messageId;
  };
  const firstOf = new Map<string, DeadLetterEntry>();
  for (const entry of entries) {
    const first = firstOf.get(entry.recordId);
    if (!first || before(entry, first)) firstOf.set(entry.recordId, entry);
  }
  return entries.map((entry) => {
    const original = firstOf.get(entry.recordId) as DeadLetterEntry;
    const { duplicateOf: _previous, ...rest } = entry;
    return original === entry ? rest : { ...rest, duplicateOf: original.messageId };
  });
}

/** The originals the ids name (a duplicate's id names its original), each with its duplicates. */
export function groupsFor(
  entries: readonly DeadLetterEntry[],
  picked: readonly DeadLetterEntry[],
): { original: DeadLetterEntry; duplicates: DeadLetterEntry[] }[] {
  const byMessage = new Map(entries.map((e) => [e.messageId, e]));
  const originals = new Map<string, DeadLetterEntry>();
  for (const e of picked) {
    const original = e.duplicateOf ? (byMessage.get(e.duplicateOf) ?? e) : e;
    originals.set(original.messageId, original);
  }
  return [...originals.values()].map((original) => ({
    original,
    duplicates: entries.filter((e) => e.duplicateOf === original.messageId),
  }));
}

/** Makes the messages visible again; a failure only delays them until their visibility timeout. */
export async function release(queue: EventQueue, url: string, entries: readonly DeadLetterEntry[]): Promise<void> {
  await Promise.all(entries.map((e) => queue.changeVisibility(url, e.receiptHandle, 0).catch(() => undefined)));
}

/**
 * The shortest prefix that names a dead letter: the logs print an event id as its first 12 characters (`evt-` and
 * 8 hex digits) and the local stack a message id as its first 8; shorter, only a whole id matches.
 */
export const MIN_ID_PREFIX = 8;

/** What an --id names: the dead letters of one event or message, several events (ambiguous), or none. */
export type IdLookup =
  | { kind: 'found'; entries: DeadLetterEntry[] }
  | { kind: 'ambiguous'; candidates: { id: string; target?: string; reason: string }[] }
  /** Shorter than MIN_ID_PREFIX and not a whole id: `starts` dead letters' ids begin with it. */
  | { kind: 'too_short'; starts: number }
  | { kind: 'missing' };

/**
 * Finds the dead letters an id names: a whole event or message id, else a unique prefix of one (at least
 * MIN_ID_PREFIX characters). Copies of one event share its event id, so a prefix of it is not ambiguous.
 */
export function lookUpId(entries: readonly DeadLetterEntry[], id: string): IdLookup {
  const whole = entries.filter((e) => e.messageId === id || e.eventId === id);
  if (whole.length > 0) return { kind: 'found', entries: whole };
  if (id.length < MIN_ID_PREFIX) {
    const starts = new Set(entries.flatMap((e) => [e.eventId, e.messageId].filter((name) => name?.startsWith(id)))).size;
    return { kind: 'too_short', starts };
  }
  const named = new Map<string, DeadLetterEntry[]>();
  for (const e of entries) {
    const name = e.eventId?.startsWith(id) ? e.eventId : e.messageId.startsWith(id) ? e.messageId : undefined;
    if (name !== undefined) named.set(name, [...(named.get(name) ?? []), e]);
  }
  if (named.size === 0) return { kind: 'missing' };
  if (named.size === 1) return { kind: 'found', entries: [...named.values()].flat() };
  const candidates = [...named]
    .map(([name, [e]]) => ({ id: name, ...(e?.target && { target: e.target }), reason: e?.reason ?? 'unrecognised' }))
    .sort((a, b) => a.id.localeCompare(b.id));
  return { kind: 'ambiguous', candidates };
}

/** "evt-0b7c1111-... (target prod, permanent_error)", one per candidate of an ambiguous id. */
export function candidateList(lookup: Extract<IdLookup, { kind: 'ambiguous' }>): string {
  return lookup.candidates.map((c) => `${c.id} (${c.target ? `target ${c.target}, ` : ''}${c.reason})`).join(', ');
}

/** The --id that names several dead letters, told as a field error listing them (exit 1, as a missing id). */
export function ambiguousIdError(id: string, lookup: Extract<IdLookup, { kind: 'ambiguous' }>): CliError {
  return new CliError(
    'ambiguous_id',
    `--id ${id} is the start of ${lookup.candidates.length} dead letters' ids: give more of it`,
    'list them in full with `lbsync dlq list`',
    [
      {
        path: '--id',
        message: `starts ${candidateList(lookup)}`,
        received: id,
        allowed: lookup.candidates.map((c) => c.id),
        fix: 'give enough of the id to tell them apart, or the whole id',
      },
    ],
  );
}

/** Why an id shorter than a prefix may be named nothing: it is not a whole id, and prefixes need 8 characters. */
export function tooShortWhy(id: string, starts: number): string {
  const found =
    starts === 0
      ? 'no id starts with it either'
      : `${plural(starts, "dead letter's id", "dead letters' ids")} start${starts === 1 ? 's' : ''} with it`;
  return `--id ${id} is no whole id, and shorter than the ${MIN_ID_PREFIX} characters a prefix needs (${found})`;
}

/** An id shorter than a prefix that is no whole id: told as a field error (exit 1). */
export function tooShortIdError(id: string, starts: number): CliError {
  return new CliError('id_too_short', tooShortWhy(id, starts), 'list the dead letters with `lbsync dlq list`', [
    {
      path: '--id',
      message: `is shorter than the ${MIN_ID_PREFIX} characters a prefix needs`,
      received: id,
      fix: `give at least ${MIN_ID_PREFIX} characters (the evt-0b7c1a2f a log line prints), or the whole event or message id`,
    },
  ]);
}

/** The public shape (no receipt handle) for list --json. */
export function entrySummary(e: DeadLetterEntry) {
  return {
    messageId: e.messageId,
    eventId: e.eventId,
    target: e.target,
    origin: e.origin,
    reason: e.reason,
    errorCode: e.errorCode,
    message: e.message,
    deadLetteredAt: e.deadLetteredAt,
    attempts: e.record?.attempts,
    receiveCount: e.receiveCount,
    redrivable: e.redriveEvent !== undefined,
    ...(e.notRedrivable && { notRedrivable: e.notRedrivable }),
    recordId: e.recordId,
    // Named as the design names it: this dead letter repeats the one with that message id.
    ...(e.duplicateOf && { duplicate_of: e.duplicateOf }),
  };
}
