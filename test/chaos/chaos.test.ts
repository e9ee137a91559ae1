// CI-sized chaos run: the same module as `npm run chaos`, a fixed seed, small enough for every push.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildSchedule } from '../../chaos/schedule';
import { createPrng } from '../../chaos/prng';
import { runChaos, summaryLine } from '../../chaos/run';

const SEED = 20261129;

describe('chaos (CI size)', () => {
  it('npm run chaos -- --help explains the options and every counter of the summary line', () => {
    const help = execFileSync(process.execPath, ['--import', 'tsx', 'chaos/main.ts', '--help'], {
      cwd: new URL('../../', import.meta.url),
      encoding: 'utf8',
    });
    for (const word of [
      '--seed',
      '--events',
      '--targets',
      '--production',
      'unsafe_shrinks',
      'unbacked_answers',
      'converged',
      'api_calls',
      'needless_writes',
      'early_applied',
    ])
      expect(help).toContain(word);
  });

  it('the same seed draws the same schedule', () => {
    const a = buildSchedule(createPrng(SEED), { seed: SEED, events: 60, targets: 4 });
    const b = buildSchedule(createPrng(SEED), { seed: SEED, events: 60, targets: 4 });
    expect(a.hash).toBe(b.hash);
    expect(buildSchedule(createPrng(SEED + 1), { seed: SEED + 1, events: 60, targets: 4 }).hash).not.toBe(a.hash);
  });

  it('60 events over 4 targets under faults: converged before any sweep, nothing lost, every answer backed, no unsafe write', async () => {
    const report = await runChaos({ seed: SEED, events: 60, targets: 4, idleTimeoutMs: 30_000 });
    const line = summaryLine(report);
    expect(report.violations, line).toEqual([]);
    expect(report.faults).toBeGreaterThan(5);
    expect(report.handoffFailures).toBeGreaterThanOrEqual(1);
    expect(report.converged).toBe(4);
    expect(report.lost).toBe(0);
    expect(report.dupBackends).toBe(0);
    expect(report.badPoolWrites).toBe(0);
    expect(report.unsafeShrinks).toBe(0);
    expect(report.unbackedAnswers).toBe(0);
    expect(report.needlessWrites).toBe(0);
    expect(report.earlyApplied).toBe(0);
    expect(report.backedAnswers).toBe(
      (report.outcomes.applied ?? 0) +
        (report.outcomes.noop ?? 0) +
        (report.outcomes.dry_run ?? 0) +
        (report.outcomes.dead_lettered ?? 0) -
        report.destroyedByDriver,
    );
    expect(report.queueEmpty).toBe(true);
    expect(report.apiCalls).toBeLessThanOrEqual(report.apiCallBound);
    expect(report.ok).toBe(true);
    expect(line).toMatch(
      /^chaos: seed=20261129 events=\d+ faults=\d+ converged=4\/4 lost=0 dup_backends=0 bad_pool_writes=0 unsafe_shrinks=0 unbacked_answers=0 api_calls=\d+ needless_writes=0 early_applied=0$/,
    );
  }, 90_000);
});
