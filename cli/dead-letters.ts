// Reading the dead-letter queue without consuming it. SQS has no "peek": a receive hides a message
// for a visibility timeout. So a scan receives everything (hidden while we look, which also stops
// one scan from seeing a message twice), then hands back what it did not delete with
// ChangeMessageVisibility 0 — the one value Scaleway Queues accept besides the queue's own.
import type { EventQueue, ReceivedMessage } from '../shared/adapters/queue';
import type { DeadLetterRecord } from '../shared/dead-letter';
import type { LbSyncEvent } from '../shared/schemas/event';
import { decodeEvent, parseEvent } from '../shared/schemas/event';

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
  /** What a redrive would send (attempt 0, no notBefore), when the entry holds a valid event. */
  redriveEvent?: LbSyncEvent;
  /** Why it cannot be redriven. */
  notRedrivable?: string;
}

function redrivable(event: unknown): { event?: LbSyncEvent; why?: string } {
  if (typeof event !== 'object' || event === null) return { why: 'the record holds no event' };
  const { notBefore: _notBefore, ...rest } = event as Record<string, unknown>;
  try {
    return { event: parseEvent({ ...rest, attempt: 0 }) };
  } catch (error) {
    return { why: `the kept event is not valid: ${(error as Error).message.split('\n').slice(1).join('; ').trim()}` };
  }
}

export function classify(message: ReceivedMessage): DeadLetterEntry {
  const base = { messageId: message.messageId, receiptHandle: message.receiptHandle, receiveCount: message.receiveCount, body: message.body, ...(message.sentAt && { sentAt: message.sentAt }) };
  let value: unknown;
  try {
    value = JSON.parse(message.body);
  } catch {
    value = undefined;
  }
  if (typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'lbsync.dead-letter') {
    const record = value as DeadLetterRecord;
    const entry: DeadLetterEntry = {
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
      return entry;
    }
    const { event, why } = redrivable(record.event);
    if (event) entry.redriveEvent = event;
    else entry.notRedrivable = why;
    return entry;
  }
  // Moved here by the reconcile queue's RedrivePolicy (the function answered >= 300 maxReceiveCount times).
  try {
    const event = decodeEvent(message.body);
    const { event: again } = redrivable(event);
    return { ...base, origin: 'queue', reason: 'max_receives', eventId: event.id, target: event.target, message: 'moved by the queue after maxReceiveCount failed deliveries', ...(again && { redriveEvent: again }) };
  } catch {
    return { ...base, origin: 'unknown', reason: 'unrecognised', notRedrivable: 'neither an lbsync dead-letter record nor a valid event' };
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
    const batch = await queue.receive(url, { maxMessages: Math.min(10, limit - seen.size), waitSeconds: 0, visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30 });
    const fresh = batch.filter((m) => !seen.has(m.messageId));
    for (const m of batch) seen.set(m.messageId, classify(m));
    if (fresh.length === 0) break;
  }
  return [...seen.values()].sort((a, b) => (a.sentAt ?? 0) - (b.sentAt ?? 0));
}

/** Makes the messages visible again; a failure only delays them until their visibility timeout. */
export async function release(queue: EventQueue, url: string, entries: readonly DeadLetterEntry[]): Promise<void> {
  await Promise.all(entries.map((e) => queue.changeVisibility(url, e.receiptHandle, 0).catch(() => undefined)));
}

export function matches(entry: DeadLetterEntry, id: string): boolean {
  return entry.messageId === id || entry.eventId === id;
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
  };
}
