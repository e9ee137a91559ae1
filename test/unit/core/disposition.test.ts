import { describe, expect, it } from 'vitest';
import { deadLetterRecord, deadLetterRecordId } from '../../../shared/errors/dead-letter';
import { dispose, RATE_LIMIT_FLOOR_MS, retryFloorMs } from '../../../shared/core/disposition';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import type { ReconcileResult } from '../../../shared/reconcile/reconcile-target';
import type { LbSyncEvent } from '../../../shared/schemas/event';
import { MAX_EVENT_BYTES } from '../../../shared/schemas/event';
import { MAX_SERVER_HINT_MS, notBeforeBeyondHorizon } from '../../../shared/core/retry-horizon';

const event: LbSyncEvent = { version: 1, id: 'evt-1', source: 'manual', target: 'prod', occurredAt: '2026-11-29T10:00:00Z', attempt: 0 };
const now = new Date('2026-11-29T10:00:10Z');
const policy = { baseMs: 1000, capMs: 60_000, maxAttempts: 5 };
const result = (patch: Partial<ReconcileResult>): ReconcileResult => ({
  target: 'prod', status: 'failed', dryRun: false, planned: [], done: [], warnings: [], apiCalls: { reads: 0, writes: 0, byOperation: {} }, durationMs: 0, ...patch,
});

describe('dispose', () => {
  it('done for applied and noop', () => {
    expect(dispose(event, result({ status: 'applied' }), policy, now)).toEqual({ kind: 'done', outcome: 'applied' });
    expect(dispose(event, result({ status: 'noop' }), policy, now)).toEqual({ kind: 'done', outcome: 'noop' });
  });
  it('transient: a copy with attempt+1 and notBefore after the backoff', () => {
    const d = dispose({ ...event, attempt: 2 }, result({ error: new LbSyncError('api_transient_state', 'x') }), policy, now, () => 0.5);
    expect(d).toMatchObject({ kind: 'retry', delayMs: 2000, next: { attempt: 3, notBefore: '2026-11-29T10:00:12.000Z', id: 'evt-1' } });
  });
  it("honours a 429's reset hint as a floor, with the jittered backoff above it", () => {
    const d = dispose(event, result({ error: new LbSyncError('rate_limited', 'x', { retryAfterMs: 9000 }) }), policy, now, () => 0.1);
    expect(d).toMatchObject({ kind: 'retry', delayMs: 9000 + 100 });
    const lowest = dispose(event, result({ error: new LbSyncError('rate_limited', 'x', { retryAfterMs: 9000 }) }), policy, now, () => 0);
    expect(lowest).toMatchObject({ kind: 'retry', delayMs: 9000 });
  });
  it('a 429 without any reset hint (the gateway\'s real answer) waits at least 1 s, then jittered backoff above it', () => {
    const error = new LbSyncError('rate_limited', 'x');
    expect(retryFloorMs(error)).toBe(RATE_LIMIT_FLOOR_MS);
    expect(RATE_LIMIT_FLOOR_MS).toBeGreaterThanOrEqual(1000);
    for (const [attempt, draw, expected] of [[0, 0, 1000], [0, 0.5, 1500], [3, 0.25, 1000 + 2000]] as const) {
      const d = dispose({ ...event, attempt }, result({ error }), policy, now, () => draw);
      expect(d).toMatchObject({ kind: 'retry', delayMs: expected });
    }
  });
  it('other transient errors have no floor', () => {
    expect(retryFloorMs(new LbSyncError('api_transient_state', 'x'))).toBe(0);
    expect(dispose(event, result({ error: new LbSyncError('network_error', 'x') }), policy, now, () => 0)).toMatchObject({ kind: 'retry', delayMs: 0 });
  });
  it('a vanished backend is retried (the next attempt creates it)', () => {
    expect(dispose(event, result({ error: new LbSyncError('backend_not_found', 'x') }), policy, now).kind).toBe('retry');
  });
  it('permanent: dead-letter at once', () => {
    expect(dispose(event, result({ error: new LbSyncError('permissions_denied', 'x') }), policy, now)).toMatchObject({ kind: 'dead_letter', reason: 'permanent_error' });
  });
  it('exhausted: dead-letter after maxAttempts', () => {
    expect(dispose({ ...event, attempt: 4 }, result({ error: new LbSyncError('network_error', 'x') }), policy, now)).toMatchObject({ kind: 'dead_letter', reason: 'retries_exhausted' });
  });
  it('asserted serverIps discovery never confirmed: retried with backoff, then dead-lettered as untrusted_server_ips', () => {
    const error = new LbSyncError('untrusted_server_ips', 'x');
    expect(dispose({ ...event, attempt: 3 }, result({ error }), policy, now, () => 0.5)).toMatchObject({ kind: 'retry', next: { attempt: 4 } });
    expect(dispose({ ...event, attempt: 4 }, result({ error }), policy, now)).toMatchObject({ kind: 'dead_letter', reason: 'untrusted_server_ips' });
  });
  it('a server reset hint is honoured above the cap, up to 15 minutes, with the draw on top: no retry is scheduled past the horizon the reconcile accepts', () => {
    const hinted = (ms: number) => dispose(event, result({ error: new LbSyncError('rate_limited', 'x', { retryAfterMs: ms }) }), policy, now, () => 0.9);
    const draw = Math.floor(0.9 * Math.min(policy.capMs, policy.baseMs)); // attempt 0
    expect(hinted(120_000)).toMatchObject({ kind: 'retry', delayMs: 120_000 + draw }); // above the 60 s cap
    const capped = hinted(3_600_000);
    expect(capped).toMatchObject({ kind: 'retry', delayMs: MAX_SERVER_HINT_MS + draw });
    const next = (capped as { next: LbSyncEvent }).next;
    expect(notBeforeBeyondHorizon(next.notBefore, now, policy.capMs)).toBeUndefined();
    expect(notBeforeBeyondHorizon(new Date(now.getTime() + policy.capMs + MAX_SERVER_HINT_MS + 10_000).toISOString(), now, policy.capMs)?.fieldErrors?.[0]?.path).toBe('event.notBefore');
    expect(notBeforeBeyondHorizon('2099-01-01T00:00:00Z', now, policy.capMs)?.code).toBe('invalid_event');
  });
});

describe('deadLetterRecord', () => {
  it('keeps the event, the reason, the wrapped error and the attempts', () => {
    const error = new LbSyncError('permissions_denied', 'updating back-end server IPs for load-balancer L: denied', { status: 403 });
    expect(deadLetterRecord({ reason: 'permanent_error', error, event: { ...event, attempt: 2 }, now })).toEqual({
      kind: 'lbsync.dead-letter', version: 1, recordId: deadLetterRecordId({ eventId: 'evt-1', attempt: 2 }), reason: 'permanent_error', eventId: 'evt-1', attempt: 2, target: 'prod',
      event: { ...event, attempt: 2 },
      error: { code: 'permissions_denied', errorClass: 'permanent', message: error.message, hint: error.hint, status: 403 },
      attempts: 3, firstSeenAt: event.occurredAt, deadLetteredAt: now.toISOString(),
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
    const record = deadLetterRecord({ reason: 'invalid_event', error: new LbSyncError('invalid_event', 'bad'), rawBody: 'y'.repeat(200_000), now });
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
  it('the recordId is fixed by (event id, attempt), or by the raw body: a redelivery writes the same one', () => {
    const error = new LbSyncError('permissions_denied', 'x');
    const once = deadLetterRecord({ reason: 'permanent_error', error, event, now });
    const again = deadLetterRecord({ reason: 'permanent_error', error, event, now: new Date(now.getTime() + 60_000) });
    expect(again.recordId).toBe(once.recordId);
    expect(deadLetterRecord({ reason: 'permanent_error', error, event: { ...event, attempt: 1 }, now }).recordId).not.toBe(once.recordId);
    expect(deadLetterRecord({ reason: 'permanent_error', error, event: { ...event, id: 'evt-2' }, now }).recordId).not.toBe(once.recordId);
    const raw = (body: string) => deadLetterRecord({ reason: 'invalid_event', error, rawBody: body, now }).recordId;
    expect(raw('{oops')).toBe(raw('{oops'));
    expect(raw('{oops')).not.toBe(raw('{oops!'));
    expect(once.recordId).toMatch(/^dl-[0-9a-f]{40}$/); // also a valid MessageDeduplicationId
  });
});
