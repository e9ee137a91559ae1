// The chaos run under the deployed queue and retry settings, in its own file: the functions read their
// environment once per process, as on the platform, so one stack per test file.
import { describe, expect, it } from 'vitest';
import { runChaos, summaryLine } from '../../chaos/run';

const SEED = 20261129;

describe('chaos (CI size, production settings)', () => {
  it('production settings (maxReceiveCount 4, a 5 s retry horizon): retries really run out (the LB busy at each attempt) and the queue really redrives, every answer still backed', async () => {
    const report = await runChaos({ seed: SEED, events: 60, targets: 4, idleTimeoutMs: 30_000, profile: 'production' });
    const line = summaryLine(report);
    expect(report.violations, line).toEqual([]);
    expect(report.deadLetterReasons.retries_exhausted, line).toBeGreaterThan(0);
    expect(report.deadLetterReasons.queue_redrive, line).toBeGreaterThan(0);
    expect(report.converged).toBe(4);
    expect(report.unbackedAnswers).toBe(0);
    expect(report.unsafeShrinks).toBe(0);
    expect(report.ok).toBe(true);
  }, 90_000);
});
