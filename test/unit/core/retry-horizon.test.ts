// The retry budget is time (LBSYNC_RETRY_HORIZON_MS), not a count: a valid event is never dead-lettered while the LB
// is merely busy for less than the horizon, whatever the jitter draws. Played here on the pure disposition with the
// deployed settings, an LB busy 10 s, 100 s and 15 minutes, and draws that are extreme (always 0, always ~1,
// alternating) or seeded, with and without time spent in each attempt.
import { describe, expect, it } from 'vitest';
import type { DispositionPolicy } from '../../../shared/core/disposition';
import { decideDisposition } from '../../../shared/core/disposition';
import { attemptsWithinHorizon, defaultMaxAttempts, retryReachMs, SKEW_ATTEMPTS } from '../../../shared/core/retry-horizon';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import { runtimeConfigFromEnv } from '../../../shared/platform/config';
import type { LbSyncEvent } from '../../../shared/schemas/event';

const DEPLOYED = runtimeConfigFromEnv({});
const policy: DispositionPolicy = { retry: DEPLOYED.retry, delayMode: 'hold', maxHoldMs: DEPLOYED.maxHoldMs };
const T0 = Date.parse('2026-11-30T10:00:00Z');
const MINUTE = 60_000;

/** A small seeded PRNG (mulberry32), so a failure names the seed that made it. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Ending {
  deadLettered: boolean;
  attempts: number;
  /** When the event was applied or dead-lettered, from its first attempt. */
  atMs: number;
}

/**
 * One event against an LB busy for busyMs from its first attempt: each attempt made while busy fails transiently
 * (lb_transient_state) after spending `spentMs()` in the invocation; the first made after succeeds. Every retry
 * runs exactly when due (notBefore).
 */
function play(busyMs: number, random: () => number, spentMs: () => number = () => 0): Ending {
  let event: LbSyncEvent = {
    version: 1,
    id: 'evt-busy',
    source: 'manual',
    target: 'prod',
    occurredAt: new Date(T0).toISOString(),
    attempt: 0,
  };
  let startedAt = T0;
  for (let attempts = 1; attempts <= 10_000; attempts += 1) {
    if (startedAt - T0 >= busyMs) return { deadLettered: false, attempts, atMs: startedAt - T0 };
    const now = startedAt + spentMs();
    const result = { status: 'failed' as const, error: new LbSyncError('lb_transient_state', 'load-balancer is migrating') };
    const decided = decideDisposition(
      { stage: 'reconciled', event, result, now: new Date(now), startedAt: new Date(startedAt) },
      policy,
      random,
    );
    if (decided.kind === 'dead_letter') return { deadLettered: true, attempts, atMs: now - T0 };
    if (decided.kind !== 'requeue' || !decided.next) throw new Error(`unexpected ${decided.kind}`);
    event = decided.next;
    startedAt = Date.parse(event.notBefore as string);
  }
  throw new Error('never ended');
}

const DRAWS: [string, () => () => number][] = [
  ['always 0', () => () => 0],
  ['always ~1', () => () => 0.999_999_9],
  [
    'alternating 0 / ~1',
    () => {
      let n = 0;
      return () => (n++ % 2 === 0 ? 0 : 0.999_999_9);
    },
  ],
];
const SEEDS = Array.from({ length: 500 }, (_, i) => 20261130 + i);

function deadLetterRate(busyMs: number, spent?: (random: () => number) => () => number): { rate: number; runs: number } {
  const endings = [
    ...DRAWS.map(([, draws]) => play(busyMs, draws(), spent?.(seeded(1)))),
    ...SEEDS.map((seed) => play(busyMs, seeded(seed), spent?.(seeded(seed ^ 0x5eed)))),
  ];
  return { rate: endings.filter((e) => e.deadLettered).length / endings.length, runs: endings.length };
}

describe('the retry horizon with the deployed settings', () => {
  it('is 30 minutes, with base 2 s and cap 300 s; the safety cap on attempts is sized from it', () => {
    expect(DEPLOYED.retry).toMatchObject({ baseMs: 2000, capMs: 300_000, horizonMs: 30 * MINUTE });
    // Every draw at its least: 1, 2, 4 ... 128 s, then 150 s each, the last one clipped to the horizon.
    expect(attemptsWithinHorizon(DEPLOYED.retry)).toBe(20);
    expect(DEPLOYED.retry.maxAttempts).toBe(20 + SKEW_ATTEMPTS);
    expect(defaultMaxAttempts(DEPLOYED.retry)).toBe(DEPLOYED.retry.maxAttempts);
    expect(play(Number.POSITIVE_INFINITY, () => 0).attempts).toBe(attemptsWithinHorizon(DEPLOYED.retry));
    expect(retryReachMs(DEPLOYED.retry)).toBe(300_000 + 900_000);
  });

  it.each([
    ['10 s', 10_000],
    ['100 s (a type migration; two busy periods back to back)', 100_000],
    ['15 minutes', 15 * MINUTE],
    ['29 minutes', 29 * MINUTE],
  ])('an LB busy %s: no valid event dead-lettered, whatever the draws', (_what, busyMs) => {
    expect(deadLetterRate(busyMs)).toEqual({ rate: 0, runs: DRAWS.length + SEEDS.length });
    // Attempts that take time (up to a whole 60 s invocation) only stretch the delays.
    expect(deadLetterRate(busyMs, (r) => () => Math.floor(r() * 60_000)).rate).toBe(0);
    // And it is reconciled soon after the LB is free: within the longest delay the law draws (the cap).
    for (const [, draws] of DRAWS) expect(play(busyMs, draws()).atMs).toBeLessThan(busyMs + DEPLOYED.retry.capMs);
  });

  it('an LB busy past the horizon: dead-lettered, with the last attempt at the horizon and no later, within the safety cap', () => {
    for (const busyMs of [31 * MINUTE, 24 * 60 * MINUTE]) {
      expect(deadLetterRate(busyMs).rate).toBe(1);
      for (const [, draws] of DRAWS) {
        const ending = play(busyMs, draws());
        expect(ending).toMatchObject({ deadLettered: true, atMs: 30 * MINUTE });
        expect(ending.attempts).toBeLessThanOrEqual(DEPLOYED.retry.maxAttempts);
      }
    }
  });

  it('the attempts spread over the whole horizon, whatever the draws: at least 13, at most the sized count', () => {
    for (const [, draws] of DRAWS) {
      const ending = play(Number.POSITIVE_INFINITY, draws());
      expect(ending.attempts).toBeGreaterThanOrEqual(13);
      expect(ending.attempts).toBeLessThanOrEqual(attemptsWithinHorizon(DEPLOYED.retry));
    }
  });
});

describe('LBSYNC_MAX_ATTEMPTS: only a safety cap', () => {
  it('unset, it is sized from the horizon; set below what the horizon needs, the configuration is refused, naming the least', () => {
    expect(runtimeConfigFromEnv({ LBSYNC_RETRY_HORIZON_MS: '600000' }).retry.maxAttempts).toBe(
      defaultMaxAttempts({ baseMs: 2000, capMs: 300_000, horizonMs: 600_000 }),
    );
    expect(runtimeConfigFromEnv({ LBSYNC_MAX_ATTEMPTS: '50' }).retry.maxAttempts).toBe(50);
    expect(() => runtimeConfigFromEnv({ LBSYNC_MAX_ATTEMPTS: '8' })).toThrow(
      expect.objectContaining({
        code: 'invalid_config',
        fieldErrors: [expect.objectContaining({ path: 'LBSYNC_MAX_ATTEMPTS', fix: expect.stringMatching(/at least 22/) })],
      }),
    );
  });

  it('a horizon that would need more than 1000 attempts is refused', () => {
    expect(() =>
      runtimeConfigFromEnv({ LBSYNC_RETRY_BASE_MS: '1', LBSYNC_RETRY_CAP_MS: '10', LBSYNC_RETRY_HORIZON_MS: '86400000' }),
    ).toThrow(expect.objectContaining({ fieldErrors: [expect.objectContaining({ path: 'LBSYNC_RETRY_HORIZON_MS' })] }));
  });
});
