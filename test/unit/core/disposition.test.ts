// Every requeue decision, table-tested: what becomes of an event on receipt (due, early, too far ahead, for an
// unknown target) and after its reconcile (done, retried with backoff, dead-lettered), in hold and native mode.
import { describe, expect, it } from 'vitest';
import type { DispositionInput, DispositionPolicy } from '../../../shared/core/disposition';
import { decideDisposition, RATE_LIMIT_FLOOR_MS, retryFloorMs } from '../../../shared/core/disposition';
import { CLOCK_SKEW_MS, MAX_SERVER_HINT_MS, notBeforeBeyondHorizon, retryHorizonMs } from '../../../shared/core/retry-horizon';
import type { ErrorCode } from '../../../shared/errors/lbsync-error';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import type { LbSyncEvent } from '../../../shared/schemas/event';

const event: LbSyncEvent = { version: 1, id: 'evt-1', source: 'manual', target: 'prod', occurredAt: '2026-11-29T10:00:00Z', attempt: 0 };
const now = new Date('2026-11-29T10:00:10Z');
const inMs = (ms: number) => new Date(now.getTime() + ms).toISOString();
const hold: DispositionPolicy = { retry: { baseMs: 1000, capMs: 60_000, maxAttempts: 5 }, delayMode: 'hold', maxHoldMs: 20_000 };
const native: DispositionPolicy = { ...hold, delayMode: 'native' };
const failed = (code: ErrorCode, retryAfterMs?: number) => ({
  status: 'failed' as const,
  error: new LbSyncError(code, 'x', retryAfterMs === undefined ? {} : { retryAfterMs }),
});
const received = (patch: Partial<Extract<DispositionInput, { stage: 'received' }>> = {}): DispositionInput => ({
  stage: 'received',
  event,
  targetKnown: true,
  now,
  remainingMs: 50_000,
  ...patch,
});

describe('decideDisposition on receipt', () => {
  it.each([
    ['due (no notBefore): reconciled at once', received(), { kind: 'hold', holdMs: 0 }],
    ['due (notBefore passed)', received({ event: { ...event, notBefore: inMs(-5_000) } }), { kind: 'hold', holdMs: 0 }],
    [
      'early, within the hold: held until due, then reconciled',
      received({ event: { ...event, notBefore: inMs(3_000) } }),
      { kind: 'hold', holdMs: 3_000 },
    ],
    [
      'early beyond LBSYNC_MAX_HOLD_MS: held that long, then sent back unchanged, due in the rest',
      received({ event: { ...event, notBefore: inMs(50_000) } }),
      { kind: 'requeue', holdMs: 20_000, delayMs: 30_000 },
    ],
    [
      'early beyond the deadline: held until the deadline, then sent back',
      received({ event: { ...event, notBefore: inMs(10_000) }, remainingMs: 4_000 }),
      { kind: 'requeue', holdMs: 4_000, delayMs: 6_000 },
    ],
    [
      'no time left at all: sent back at once',
      received({ event: { ...event, notBefore: inMs(10_000) }, remainingMs: 0 }),
      { kind: 'requeue', holdMs: 0, delayMs: 10_000 },
    ],
    [
      'unknown target: dead-lettered',
      received({ targetKnown: false }),
      {
        kind: 'dead_letter',
        reason: 'unknown_target',
        error: expect.objectContaining({ code: 'unknown_target', message: 'no target named "prod" in the configuration' }),
      },
    ],
    [
      'notBefore beyond any retry we schedule: dead-lettered as invalid_event',
      received({ event: { ...event, notBefore: '2099-01-01T00:00:00Z' } }),
      { kind: 'dead_letter', reason: 'invalid_event', error: expect.objectContaining({ code: 'invalid_event' }) },
    ],
    [
      'beyond the horizon wins over an unknown target',
      received({ event: { ...event, notBefore: '2099-01-01T00:00:00Z' }, targetKnown: false }),
      { kind: 'dead_letter', reason: 'invalid_event', error: expect.objectContaining({ code: 'invalid_event' }) },
    ],
  ] as const)('%s', (_name, input, expected) => {
    expect(decideDisposition(input, hold)).toEqual(expected);
  });

  it('an early event sent back carries no DelaySeconds, in either mode (the message is re-sent as it came)', () => {
    const early = received({ event: { ...event, notBefore: inMs(50_000) } });
    expect(decideDisposition(early, native)).toEqual(decideDisposition(early, hold));
    expect(decideDisposition(early, native)).not.toHaveProperty('next');
  });

  it('an undecodable body is dead-lettered as invalid_event with its own error', () => {
    const error = new LbSyncError('invalid_event', 'event is not valid JSON');
    expect(decideDisposition({ stage: 'undecodable', error }, hold)).toEqual({ kind: 'dead_letter', reason: 'invalid_event', error });
  });
});

describe('decideDisposition after the reconcile', () => {
  const afterReconcile = (
    result: { status: 'applied' | 'noop' | 'planned' | 'failed'; error?: LbSyncError },
    attempt = 0,
    policy = hold,
    draw = 0.5,
  ) => decideDisposition({ stage: 'reconciled', event: { ...event, attempt }, result, now }, policy, () => draw);

  it.each([
    // [what, result, attempt, disposition]
    ['applied', { status: 'applied' }, 0, { kind: 'done', outcome: 'applied' }],
    ['noop', { status: 'noop' }, 0, { kind: 'done', outcome: 'noop' }],
    ['permanent: dead-lettered at once', failed('permissions_denied'), 0, { kind: 'dead_letter', reason: 'permanent_error' }],
    ['transient on the last attempt: retries exhausted', failed('network_error'), 4, { kind: 'dead_letter', reason: 'retries_exhausted' }],
    [
      'asserted serverIps never confirmed, on the last attempt: its own reason',
      failed('untrusted_server_ips'),
      4,
      { kind: 'dead_letter', reason: 'untrusted_server_ips' },
    ],
  ] as const)('%s', (_name, result, attempt, expected) => {
    expect(afterReconcile(result, attempt)).toMatchObject(expected);
  });

  it.each([
    ['a dry run with writes planned', { status: 'planned' }],
    ['a dry run with nothing to write', { status: 'noop' }],
  ] as const)('%s: dry_run, never noop (it wrote nothing, whatever it would have)', (_name, result) => {
    const decided = decideDisposition({ stage: 'reconciled', event: { ...event, dryRun: true }, result, now }, hold);
    expect(decided).toEqual({ kind: 'done', outcome: 'dry_run' });
  });

  it.each([
    // [what, error, attempt, draw, delayMs]
    ['transient: backoff with full jitter (base * 2^attempt)', failed('api_transient_state'), 2, 0.5, 2000],
    ['other transient errors have no floor', failed('network_error'), 0, 0, 0],
    ["a 429's reset hint is a floor, the jittered draw above it", failed('rate_limited', 9000), 0, 0.1, 9100],
    ['a 429 without a reset hint (the real gateway): the 1 s floor, the draw above it', failed('rate_limited'), 3, 0.25, 1000 + 2000],
    ['a vanished backend is retried (the next attempt creates it)', failed('backend_not_found'), 0, 0, 0],
    ['asserted serverIps not confirmed yet: retried', failed('untrusted_server_ips'), 3, 0.5, 4000],
    ['a reset hint above the cap is honoured up to 15 minutes', failed('rate_limited', 3_600_000), 0, 0.9, MAX_SERVER_HINT_MS + 900],
  ] as const)('%s', (_name, result, attempt, draw, delayMs) => {
    const decided = afterReconcile(result, attempt, hold, draw);
    expect(decided).toEqual({
      kind: 'requeue',
      holdMs: 0,
      delayMs,
      next: { ...event, attempt: attempt + 1, notBefore: inMs(delayMs) },
      error: result.error,
    });
  });

  it('native mode: the same retry, with DelaySeconds until due (rounded up, at most 900)', () => {
    expect(afterReconcile(failed('api_transient_state'), 2, native, 0.6)).toMatchObject({
      kind: 'requeue',
      delayMs: 2400,
      delaySeconds: 3,
    });
    expect(afterReconcile(failed('rate_limited', 3_600_000), 0, native, 0)).toMatchObject({
      delayMs: MAX_SERVER_HINT_MS,
      delaySeconds: 900,
    });
    expect(afterReconcile(failed('network_error'), 0, native, 0)).toMatchObject({ delayMs: 0, delaySeconds: 0 });
    expect(afterReconcile(failed('api_transient_state'), 2, hold, 0.6)).not.toHaveProperty('delaySeconds');
  });

  it('no retry is ever scheduled past the horizon the receipt accepts', () => {
    const retry = afterReconcile(failed('rate_limited', 86_400_000), 29, { ...hold, retry: { ...hold.retry, maxAttempts: 100 } }, 0.999);
    expect(retry.kind).toBe('requeue');
    const next = (retry as { next: LbSyncEvent }).next;
    expect(notBeforeBeyondHorizon(next.notBefore, now, hold.retry.capMs)).toBeUndefined();
    expect(decideDisposition({ stage: 'received', event: next, targetKnown: true, now, remainingMs: 50_000 }, hold).kind).not.toBe(
      'dead_letter',
    );
  });
});

describe('retryFloorMs and the retry horizon', () => {
  it('a 429 waits its reset time, or at least 1 s; other errors have no floor', () => {
    expect(retryFloorMs(new LbSyncError('rate_limited', 'x'))).toBe(RATE_LIMIT_FLOOR_MS);
    expect(RATE_LIMIT_FLOOR_MS).toBeGreaterThanOrEqual(1000);
    expect(retryFloorMs(new LbSyncError('rate_limited', 'x', { retryAfterMs: 7000 }))).toBe(7000);
    expect(retryFloorMs(new LbSyncError('api_transient_state', 'x'))).toBe(0);
  });

  it('the horizon is the cap above a 15-minute hint, with a little clock skew tolerated', () => {
    const horizon = retryHorizonMs(hold.retry.capMs);
    expect(horizon).toBe(hold.retry.capMs + MAX_SERVER_HINT_MS);
    expect(notBeforeBeyondHorizon(inMs(horizon + CLOCK_SKEW_MS), now, hold.retry.capMs)).toBeUndefined();
    const beyond = notBeforeBeyondHorizon(inMs(horizon + CLOCK_SKEW_MS + 10_000), now, hold.retry.capMs);
    expect(beyond?.fieldErrors?.[0]?.path).toBe('event.notBefore');
    expect(beyond?.code).toBe('invalid_event');
  });
});
