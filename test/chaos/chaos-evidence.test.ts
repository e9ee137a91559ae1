// The chaos run tested itself: a build that answers `noop` without calling the API for some events must make it
// fail, by its evidence check (unbacked_answers), whatever else it may or may not notice.
import { describe, expect, it } from 'vitest';
import { runChaos, summaryLine } from '../../chaos/run';
import { lyingReconcile } from './support/lying-reconcile';

describe('chaos checks evidence, not answers', () => {
  it('a reconcile that answers noop without looking, for one event in four, fails the run: unbacked_answers', async () => {
    const liar = lyingReconcile(4);
    // Under 20 events: none of the placed faults whose redeliveries take a visibility timeout each.
    const report = await runChaos({ seed: 7, events: 18, targets: 2, idleTimeoutMs: 30_000, reconcileHandler: liar.handle });
    const line = summaryLine(report);
    expect(liar.lies.length, 'the lying build lied').toBeGreaterThan(0);
    expect(report.ok, line).toBe(false);
    expect(report.unbackedAnswers, line).toBe(liar.lies.length);
    expect(report.unbackedSamples.join('\n')).toMatch(
      /answered noop without the reads that prove it \(missing ListLbs\/GetLb, ListBackends, ListServers\)/,
    );
    expect(report.violations.some((v) => v.includes('answer(s) without evidence'))).toBe(true);
    expect(line).toMatch(new RegExp(`unbacked_answers=${liar.lies.length} `));
  }, 120_000);
});
