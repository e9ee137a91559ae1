// Every requeue decision, table-tested: what becomes of an event on receipt (due, early, too far ahead, for an
// unknown target) and after its reconcile (done, retried with backoff, dead-lettered), in hold and native mode.
import { describe, expect, it } from 'vitest';
import type { DispositionInput, DispositionPolicy } from '../../../shared/core/disposition';
import { RATE_LIMIT_FLOOR_MS, retryFloorMs } from '../../../shared/core/backoff';
import { decideDisposition } from '../../../shared/core/disposition';
import { CLOCK_SKEW_MS, MAX_SERVER_HINT_MS, retryReachMs, systemFieldsBeyondHorizon } from '../../../shared/core/retry-horizon';
import type { ErrorCode } from '../../../shared/errors/lbsync-error';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import type { LbSyncEvent } from '../../../shared/schemas/event';

const event: LbSyncEvent = { version: 1, id: 'evt-1', source: 'manual', target: 'prod', occurredAt: '2026-11-29T10:00:00Z', attempt: 0 };
const now = new Date('2026-11-29T10:00:10Z');
const inMs = (ms: number) => new Date(now.getTime() + ms).toISOString();
const hold: DispositionPolicy = {
  retry: { baseMs: 1000, capMs: 60_000, horizonMs: 3_600_000, maxAttempts: 100 },
  delayMode: 'hold',
  maxHoldMs: 20_000,
};
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
    firstAttemptAt?: string,
  ) =>
    decideDisposition(
      { stage: 'reconciled', event: { ...event, attempt, ...(firstAttemptAt && { firstAttemptAt }) }, result, now },
      policy,
      () => draw,
    );
  const horizonAgo = (extraMs = 0) => inMs(-hold.retry.horizonMs - extraMs);

  it.each([
    // [what, result, attempt, firstAttemptAt, disposition]
    ['applied', { status: 'applied' }, 0, undefined, { kind: 'done', outcome: 'applied' }],
    ['noop', { status: 'noop' }, 0, undefined, { kind: 'done', outcome: 'noop' }],
    ['permanent: dead-lettered at once', failed('permissions_denied'), 0, undefined, { kind: 'dead_letter', reason: 'permanent_error' }],
    [
      'transient, first attempted a horizon ago: retries exhausted',
      failed('network_error'),
      7,
      horizonAgo(),
      { kind: 'dead_letter', reason: 'retries_exhausted' },
    ],
    [
      'transient, beyond the horizon on its first attempt here',
      failed('lb_transient_state'),
      0,
      horizonAgo(60_000),
      { kind: 'dead_letter' },
    ],
    ['permanent beyond the horizon: still its own reason', failed('permissions_denied'), 3, horizonAgo(), { reason: 'permanent_error' }],
    ['beyond the horizon but applied: done', { status: 'applied' }, 9, horizonAgo(), { kind: 'done', outcome: 'applied' }],
    [
      'transient at the safety cap (LBSYNC_MAX_ATTEMPTS), inside the horizon',
      failed('network_error'),
      99,
      inMs(-1000),
      { reason: 'retries_exhausted' },
    ],
    [
      'asserted serverIps never confirmed, at the horizon: its own reason',
      failed('untrusted_server_ips'),
      4,
      horizonAgo(),
      { kind: 'dead_letter', reason: 'untrusted_server_ips' },
    ],
    [
      'transient one second inside the horizon: retried',
      failed('network_error'),
      12,
      horizonAgo(-1000),
      { kind: 'requeue', delayMs: 1000 },
    ],
  ] as const)('%s', (_name, result, attempt, firstAttemptAt, expected) => {
    expect(afterReconcile(result, attempt, hold, 0.5, firstAttemptAt)).toMatchObject(expected);
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
    ['transient: half of base * 2^attempt for sure, the other half drawn', failed('api_transient_state'), 2, 0.5, 2000 + 1000],
    ['other transient errors have no floor', failed('network_error'), 0, 0, 500],
    ["a 429's reset hint is a floor, the backoff above it", failed('rate_limited', 9000), 0, 0.1, 9000 + 500 + 50],
    [
      'a 429 without a reset hint (the real gateway): the 1 s floor, the backoff above it',
      failed('rate_limited'),
      3,
      0.25,
      1000 + 4000 + 1000,
    ],
    ['a vanished backend is retried (the next attempt creates it)', failed('backend_not_found'), 0, 0, 500],
    ['asserted serverIps not confirmed yet: retried', failed('untrusted_server_ips'), 3, 0.5, 4000 + 2000],
    ['a reset hint above the cap is honoured up to 15 minutes', failed('rate_limited', 3_600_000), 0, 0.9, MAX_SERVER_HINT_MS + 500 + 450],
  ] as const)('%s', (_name, result, attempt, draw, delayMs) => {
    const decided = afterReconcile(result, attempt, hold, draw);
    expect(decided).toEqual({
      kind: 'requeue',
      holdMs: 0,
      delayMs,
      // The first retry stamps the first attempt's time (this one: it began `now`).
      next: { ...event, attempt: attempt + 1, firstAttemptAt: now.toISOString(), notBefore: inMs(delayMs) },
      error: result.error,
    });
  });

  it('firstAttemptAt is the time the first attempt began, and every later retry carries it unchanged', () => {
    const startedAt = new Date(now.getTime() - 4_000);
    const first = decideDisposition({ stage: 'reconciled', event, result: failed('network_error'), now, startedAt }, hold, () => 0);
    const stamped = (first as { next: LbSyncEvent }).next;
    expect(stamped.firstAttemptAt).toBe(startedAt.toISOString());
    const later = new Date(now.getTime() + 600_000);
    const second = decideDisposition({ stage: 'reconciled', event: stamped, result: failed('network_error'), now: later }, hold, () => 0);
    expect((second as { next: LbSyncEvent }).next).toMatchObject({ attempt: 2, firstAttemptAt: startedAt.toISOString() });
  });

  it("the last delay is clipped to the horizon's end: the last attempt falls at the horizon, not a cap later", () => {
    const retry = afterReconcile(failed('lb_transient_state'), 20, hold, 0.999, horizonAgo(-7_000));
    expect(retry).toMatchObject({ kind: 'requeue', delayMs: 7_000, next: { notBefore: inMs(7_000) } });
    // ...but a rate limit's reset is waited out even past it: a sooner call would only be refused again.
    expect(afterReconcile(failed('rate_limited', 30_000), 20, hold, 0, horizonAgo(-7_000))).toMatchObject({ delayMs: 30_000 });
  });

  it('native mode: the same retry, with DelaySeconds until due (rounded up, at most 900)', () => {
    expect(afterReconcile(failed('api_transient_state'), 2, native, 0.6)).toMatchObject({
      kind: 'requeue',
      delayMs: 3200,
      delaySeconds: 4,
    });
    expect(afterReconcile(failed('rate_limited', 3_600_000), 0, native, 0)).toMatchObject({
      delayMs: MAX_SERVER_HINT_MS + 500,
      delaySeconds: 900,
    });
    expect(afterReconcile(failed('network_error'), 0, native, 0)).toMatchObject({ delayMs: 500, delaySeconds: 1 });
    expect(afterReconcile(failed('api_transient_state'), 2, hold, 0.6)).not.toHaveProperty('delaySeconds');
  });

  it('no retry is ever scheduled past what the receipt accepts', () => {
    for (const [policy, draw] of [
      [hold, 0.999],
      [{ ...hold, retry: { ...hold.retry, horizonMs: 60_000 } }, 0.999],
      [{ ...hold, retry: { ...hold.retry, capMs: 43_200_000 } }, 0.999],
    ] as const) {
      const retry = afterReconcile(failed('rate_limited', 86_400_000), 29, policy, draw);
      expect(retry.kind).toBe('requeue');
      const next = (retry as { next: LbSyncEvent }).next;
      expect(systemFieldsBeyondHorizon(next, now, policy.retry)).toBeUndefined();
      expect(decideDisposition({ stage: 'received', event: next, targetKnown: true, now, remainingMs: 50_000 }, policy).kind).not.toBe(
        'dead_letter',
      );
    }
  });
});

describe('retryFloorMs and the retry horizon', () => {
  it('a 429 waits its reset time, or at least 1 s; other errors have no floor', () => {
    expect(retryFloorMs(new LbSyncError('rate_limited', 'x'))).toBe(RATE_LIMIT_FLOOR_MS);
    expect(RATE_LIMIT_FLOOR_MS).toBeGreaterThanOrEqual(1000);
    expect(retryFloorMs(new LbSyncError('rate_limited', 'x', { retryAfterMs: 7000 }))).toBe(7000);
    expect(retryFloorMs(new LbSyncError('api_transient_state', 'x'))).toBe(0);
  });

  it('a notBefore reaches at most the cap above a 15-minute hint, within the horizon; a little clock skew is tolerated', () => {
    const reach = retryReachMs(hold.retry);
    expect(reach).toBe(hold.retry.capMs + MAX_SERVER_HINT_MS);
    expect(retryReachMs({ ...hold.retry, horizonMs: 60_000 })).toBe(MAX_SERVER_HINT_MS); // a short horizon: only a hint goes further
    expect(systemFieldsBeyondHorizon({ notBefore: inMs(reach + CLOCK_SKEW_MS) }, now, hold.retry)).toBeUndefined();
    const beyond = systemFieldsBeyondHorizon({ notBefore: inMs(reach + CLOCK_SKEW_MS + 10_000) }, now, hold.retry);
    expect(beyond?.fieldErrors?.[0]?.path).toBe('event.notBefore');
    expect(beyond?.code).toBe('invalid_event');
  });

  it('a firstAttemptAt in the future is not ours (it would stretch the horizon); one in the past, however old, is', () => {
    expect(systemFieldsBeyondHorizon({ firstAttemptAt: inMs(CLOCK_SKEW_MS) }, now, hold.retry)).toBeUndefined();
    expect(systemFieldsBeyondHorizon({ firstAttemptAt: '2001-01-01T00:00:00Z' }, now, hold.retry)).toBeUndefined();
    const later = systemFieldsBeyondHorizon({ firstAttemptAt: inMs(CLOCK_SKEW_MS + 1_000) }, now, hold.retry);
    expect(later?.fieldErrors?.[0]).toMatchObject({ path: 'event.firstAttemptAt', message: expect.stringMatching(/in the future/) });
    expect(decideDisposition(received({ event: { ...event, firstAttemptAt: '2099-01-01T00:00:00Z' } }), hold)).toMatchObject({
      kind: 'dead_letter',
      reason: 'invalid_event',
    });
  });
});
