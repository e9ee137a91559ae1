import { describe, expect, it } from 'vitest';
import { deadLetterRecord } from '../../shared/dead-letter';
import { dispose, RATE_LIMIT_FLOOR_MS, retryFloorMs } from '../../shared/disposition';
import { LbSyncError } from '../../shared/errors';
import type { ReconcileResult } from '../../shared/reconcile/reconcile-target';
import type { LbSyncEvent } from '../../shared/schemas/event';

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
});

describe('deadLetterRecord', () => {
  it('keeps the event, the reason, the wrapped error and the attempts', () => {
    const error = new LbSyncError('permissions_denied', 'updating back-end server IPs for load-balancer L: denied', { status: 403 });
    expect(deadLetterRecord({ reason: 'permanent_error', error, event: { ...event, attempt: 2 }, now })).toEqual({
      kind: 'lbsync.dead-letter', version: 1, reason: 'permanent_error', eventId: 'evt-1', target: 'prod',
      event: { ...event, attempt: 2 },
      error: { code: 'permissions_denied', errorClass: 'permanent', message: error.message, hint: error.hint, status: 403 },
      attempts: 3, firstSeenAt: event.occurredAt, deadLetteredAt: now.toISOString(),
    });
  });
  it('keeps a bounded raw body when the event could not be parsed', () => {
    const record = deadLetterRecord({ reason: 'invalid_event', error: new LbSyncError('invalid_event', 'bad'), rawBody: 'x'.repeat(20_000), now });
    expect(record.rawBody).toHaveLength(16 * 1024);
    expect(record.event).toBeUndefined();
  });
});
