/**
 * The "accounted" invariant: every event produced (injected, sent, swept, invalid) got a final answer from
 * the reconcile function (applied / noop / dry_run / dead_lettered with a reason) or was redriven to the DLQ by the
 * queue itself; none lost, and each ended the way its kind allows. Turns the recorded answers and the dead
 * letters into one terminal outcome per event, and counts outcomes and dead-letter reasons. Whether each
 * answer is backed by evidence (the calls made for it, its dead letter) is evidence.ts.
 */
import type { DeadLetterRecord } from '../shared/handlers/dead-letter';
import type { RecordedAnswer } from './answer-recorder';
import { answerKey, isTerminalOutcome } from './answer-key';
import type { ExpectedOutcome } from './driver';
import { parseJson } from './json';

export type Terminal = 'applied' | 'noop' | 'dry_run' | 'dead_lettered' | 'redriven';

export interface AccountingInput {
  /** Events the driver produced, by key, in production order. */
  expected: ReadonlyMap<string, ExpectedOutcome>;
  answers: readonly RecordedAnswer[];
  /** Everything read out of the dead-letter queue during and after the run. */
  deadLetters: readonly DeadLetterRecord[];
  /** Events the sweeps said they enqueued. */
  sweepsEnqueued: number;
  /**
   * Events whose asserted addresses were confirmed by discovery at no point they could be: one of them stopped being a
   * control plane after the event was sent. Only these valid events may end untrusted_server_ips.
   */
  assertionsOvertaken: ReadonlySet<string>;
}

export interface Accounting {
  /** Events produced: distinct event ids (and invalid bodies), sweeps' included. */
  events: number;
  lostEvents: string[];
  outcomes: Record<string, number>;
  deadLetterReasons: Record<string, number>;
  violations: string[];
}

interface ProducedEvent {
  key: string;
  expect: ExpectedOutcome;
  terminal?: Terminal;
  reason?: string;
}

export function accountEvents(input: AccountingInput): Accounting {
  const violations: string[] = [];
  const produced = new Map<string, ProducedEvent>([...input.expected].map(([key, expect]) => [key, { key, expect }]));

  // Sweeps' own events: learned from the deliveries, checked against what the sweeps said they enqueued.
  const sweepIds = new Set<string>();
  for (const a of input.answers) {
    const event = parseJson(a.request) as { id?: string; source?: string } | undefined;
    if (event?.source === 'sweep' && typeof event.id === 'string') sweepIds.add(event.id);
  }
  for (const id of sweepIds) if (!produced.has(id)) produced.set(id, { key: id, expect: 'valid' });
  if (sweepIds.size !== input.sweepsEnqueued)
    violations.push(`sweeps enqueued ${input.sweepsEnqueued} events, ${sweepIds.size} were delivered`);

  // Final answers, then the dead-letter queue.
  const outcomes: Record<string, number> = {};
  const deadLetterReasons: Record<string, number> = {};
  for (const record of input.deadLetters) {
    if (record.kind === 'lbsync.dead-letter') {
      deadLetterReasons[record.reason] = (deadLetterReasons[record.reason] ?? 0) + 1;
    } else {
      // Redriven by the queue's RedrivePolicy: the raw message itself.
      const raw = (record as unknown as { __raw: string }).__raw;
      const event = parseJson(raw) as { id?: string } | undefined;
      const key = typeof event?.id === 'string' && produced.has(event.id) ? event.id : `raw:${raw}`;
      const item = produced.get(key);
      if (item && !item.terminal) Object.assign(item, { terminal: 'redriven', reason: 'queue_redrive' });
      deadLetterReasons.queue_redrive = (deadLetterReasons.queue_redrive ?? 0) + 1;
    }
  }
  for (const a of input.answers) {
    if (a.status !== 200 || !a.answer?.outcome) continue;
    outcomes[a.answer.outcome] = (outcomes[a.answer.outcome] ?? 0) + 1;
    const key = answerKey(a);
    const item = key ? produced.get(key) : undefined;
    if (!item || !isTerminalOutcome(a.answer.outcome)) continue;
    if (a.answer.outcome === 'dead_lettered') {
      item.terminal = 'dead_lettered';
      item.reason = a.answer.reason;
    } else if (item.terminal !== 'dead_lettered') {
      item.terminal = a.answer.outcome as Terminal;
    }
  }
  const lostEvents: string[] = [];
  for (const item of produced.values()) {
    if (!item.terminal) {
      lostEvents.push(item.key);
      continue;
    }
    const problem = judgeEnding(item, input.assertionsOvertaken.has(item.key));
    if (problem) violations.push(`${item.key}: ${problem}`);
  }
  if (lostEvents.length > 0) violations.push(`${lostEvents.length} event(s) without a final outcome: ${lostEvents.slice(0, 5).join(', ')}`);

  return { events: produced.size, lostEvents, outcomes, deadLetterReasons, violations };
}

/** Whether an event ended as its kind allows; undefined when it did. A redrive (the queue's own) is always allowed. */
function judgeEnding(item: ProducedEvent, overtaken: boolean): string | undefined {
  if (item.terminal === 'redriven') return undefined;
  const dead = item.terminal === 'dead_lettered';
  switch (item.expect) {
    case 'invalid_event':
    case 'unknown_target':
      return dead && item.reason === item.expect
        ? undefined
        : `expected dead_lettered ${item.expect}, got ${item.terminal} ${item.reason ?? ''}`;
    case 'untrusted':
      // Never applied nor noop: its addresses are never confirmed. A fault on its last attempt may name another reason.
      if (!dead) return `asserted addresses outside the target, yet answered ${item.terminal}`;
      return ['untrusted_server_ips', 'retries_exhausted', 'permanent_error'].includes(item.reason ?? '')
        ? undefined
        : `asserted addresses outside the target, dead-lettered ${item.reason}`;
    case 'valid':
      // retries_exhausted only once each attempt failed for a cause the call log shows, for a whole retry horizon:
      // evidence.ts judges it
      // (an lb_stuck longer than the production profile's horizon makes it so).
      if (!dead || item.reason === 'permanent_error' || item.reason === 'retries_exhausted') return undefined;
      // Its asserted address left before discovery could confirm it: the event is retried until it runs out, and
      // ends untrusted_server_ips, or retries_exhausted when a fault hit its last attempt.
      if (overtaken && (item.reason === 'untrusted_server_ips' || item.reason === 'retries_exhausted')) return undefined;
      return `a valid event was dead-lettered (${item.reason})`;
  }
}
