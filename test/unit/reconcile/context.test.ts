// The invocation context's final line (shared/reconcile/context.ts): what the steps add, written once.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../shared/platform/log';
import { lineProblems } from '../../../shared/platform/log-schema';
import { answerRecord, invocationContext } from '../../../shared/reconcile/context';

function capture() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ service: 'test', destination: { write: (line: string) => void lines.push(line) } }) };
}

describe('the final line of a message', () => {
  it("carries no reconcile's figures until one adds its own, and what each step adds, a later field winning", () => {
    const record = answerRecord();
    expect(record.line()).toEqual({
      log_type: 'reconcile_answer',
      members_added: 0,
      members_removed: 0,
      members_deferred: 0,
      members_leaving: 0,
      writes: [],
    });
    record.add({ source: 'manual', age_ms: 12 });
    record.add({ members_added: 1, writes: ['a write'], duration_ms: 40 });
    record.add({ outcome: 'applied' });
    expect(record.line()).toMatchObject({ source: 'manual', age_ms: 12, members_added: 1, duration_ms: 40, outcome: 'applied' });
  });

  it('is written once, as the log schema declares it; a second write is refused', () => {
    const { lines, logger } = capture();
    const record = answerRecord();
    record.add({ outcome: 'noop', duration_ms: 3 });
    record.write(logger, 'info', 'outcome: noop');
    expect(lines).toHaveLength(1);
    expect(lineProblems(lines[0] as string)).toEqual([]);
    expect(() => record.write(logger, 'info', 'outcome: noop')).toThrow(/written already/);
    expect(lines).toHaveLength(1);
  });
});

describe('invocationContext', () => {
  it('outside an invocation (the CLI, tests): the real clock, no deadline, its own final line', () => {
    const ctx = invocationContext();
    expect(ctx.clock.now()).toBeGreaterThan(0);
    expect(ctx.deadline.remainingMs()).toBe(Number.POSITIVE_INFINITY);
    expect(ctx.deadline.signal.aborted).toBe(false);
    expect(ctx.answer).not.toBe(invocationContext().answer);
  });
});
