import { describe, expect, it } from 'vitest';
import { deadLetterRecord, deadLetterRecordId } from '../../../shared/handlers/dead-letter';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import type { LbSyncEvent } from '../../../shared/schemas/event';
import { MAX_EVENT_BYTES } from '../../../shared/schemas/event';

const event: LbSyncEvent = { version: 1, id: 'evt-1', source: 'manual', target: 'prod', occurredAt: '2026-11-29T10:00:00Z', attempt: 0 };
const now = new Date('2026-11-29T10:00:10Z');

describe('deadLetterRecord', () => {
  it('keeps the event, the reason, the wrapped error and the attempts', () => {
    const error = new LbSyncError('permissions_denied', 'updating back-end server IPs for load-balancer L: denied', { status: 403 });
    expect(deadLetterRecord({ reason: 'permanent_error', error, event: { ...event, attempt: 2 }, now })).toEqual({
      kind: 'lbsync.dead-letter',
      version: 1,
      recordId: deadLetterRecordId({ event: { ...event, attempt: 2 } }),
      reason: 'permanent_error',
      eventId: 'evt-1',
      attempt: 2,
      target: 'prod',
      event: { ...event, attempt: 2 },
      error: { code: 'permissions_denied', errorClass: 'permanent', message: error.message, hint: error.hint, status: 403 },
      attempts: 3,
      firstSeenAt: event.occurredAt,
      deadLetteredAt: now.toISOString(),
    });
  });
  it('keeps a raw body whole up to the 64 KiB an event may have', () => {
    const body = `{"pad":"${'x'.repeat(MAX_EVENT_BYTES - 10)}"}`;
    const record = deadLetterRecord({ reason: 'invalid_event', error: new LbSyncError('invalid_event', 'bad'), rawBody: body, now });
    expect(record.rawBody).toBe(body);
    expect(record).toMatchObject({ rawBodyBytes: MAX_EVENT_BYTES });
    expect(record.rawBodyTruncated).toBeUndefined();
    expect(record.event).toBeUndefined();
  });
  it('cuts a longer body at 64 KiB and says so', () => {
    const record = deadLetterRecord({
      reason: 'invalid_event',
      error: new LbSyncError('invalid_event', 'bad'),
      rawBody: 'y'.repeat(200_000),
      now,
    });
    expect(record.rawBody).toBe('y'.repeat(MAX_EVENT_BYTES));
    expect(record).toMatchObject({ rawBodyBytes: 200_000, rawBodyTruncated: true });
  });
  it('keeps a body that JSON would inflate (control characters) as base64, whole', () => {
    const body = '\u0001'.repeat(MAX_EVENT_BYTES);
    const record = deadLetterRecord({ reason: 'invalid_event', error: new LbSyncError('invalid_event', 'bad'), rawBody: body, now });
    expect(record.rawBody).toBeUndefined();
    expect(Buffer.from(record.rawBodyBase64 as string, 'base64').toString('utf8')).toBe(body);
    expect(JSON.stringify(record).length).toBeLessThan(256 * 1024 - 4096); // fits one queue message with room for the error
  });
  it('the recordId is fixed by the event (id, target and body), or by the raw body: a redelivery writes the same one', () => {
    const error = new LbSyncError('permissions_denied', 'x');
    const once = deadLetterRecord({ reason: 'permanent_error', error, event, now });
    const again = deadLetterRecord({ reason: 'permanent_error', error, event, now: new Date(now.getTime() + 60_000) });
    expect(again.recordId).toBe(once.recordId);
    expect(deadLetterRecord({ reason: 'permanent_error', error, event: { ...event, attempt: 1 }, now }).recordId).not.toBe(once.recordId);
    expect(deadLetterRecord({ reason: 'permanent_error', error, event: { ...event, id: 'evt-2' }, now }).recordId).not.toBe(once.recordId);
    // inject takes any id its caller chooses: one id for two targets, or two bodies, is two events.
    expect(deadLetterRecord({ reason: 'permanent_error', error, event: { ...event, target: 'staging' }, now }).recordId).not.toBe(
      once.recordId,
    );
    const asserting: LbSyncEvent = { ...event, serverIps: ['51.15.1.2'] };
    expect(deadLetterRecord({ reason: 'permanent_error', error, event: asserting, now }).recordId).not.toBe(once.recordId);
    // The order of its keys is not the event: the raw body the queue moves and the record the function writes agree.
    const reordered = Object.fromEntries(Object.entries(event).reverse()) as LbSyncEvent;
    expect(deadLetterRecord({ reason: 'permanent_error', error, event: reordered, now }).recordId).toBe(once.recordId);
    const raw = (body: string) => deadLetterRecord({ reason: 'invalid_event', error, rawBody: body, now }).recordId;
    expect(raw('{oops')).toBe(raw('{oops'));
    expect(raw('{oops')).not.toBe(raw('{oops!'));
    expect(once.recordId).toMatch(/^dl-[0-9a-f]{40}$/); // also a valid MessageDeduplicationId
  });
});
