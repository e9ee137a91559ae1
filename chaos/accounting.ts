/**
 * The "accounted" invariant: every event produced (injected, sent, swept, invalid) got a final answer from
 * the reconcile function (applied / noop / dead_lettered with a reason, the dead letter present in the DLQ)
 * or was redriven to the DLQ by the queue itself; none lost. Turns the recorded answers and the dead letters
 * into one terminal outcome per event, and counts outcomes and dead-letter reasons.
 */
import type { DeadLetterRecord } from '../shared/dead-letter';
import type { RecordedAnswer } from './answer-recorder';
import { answerKey, isTerminalOutcome } from './answer-key';
import type { ExpectedOutcome } from './driver';
import { parseJson } from './json';

export type Terminal = 'applied' | 'noop' | 'dead_lettered' | 'redriven';

export interface AccountingInput {
  /** Events the driver produced, by key, in production order. */
  expected: ReadonlyMap<string, ExpectedOutcome>;
  answers: readonly RecordedAnswer[];
  /** Everything read out of the dead-letter queue during and after the run. */
  deadLetters: readonly DeadLetterRecord[];
  /** Events the sweeps said they enqueued. */
  sweepsEnqueued: number;
  /** When the driver had the DLQ deleted (see ChaosDriver.deletionWindows). */
  deletionWindows: readonly [number, number][];
}

export interface Accounting {
  /** Events produced: distinct event ids (and invalid bodies), sweeps' included. */
  events: number;
  lostEvents: string[];
  outcomes: Record<string, number>;
  deadLetterReasons: Record<string, number>;
  /** Dead letters sent in the instant before the driver deleted the DLQ, so gone with it (the function did its part). */
  destroyedByDriver: number;
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
  let destroyedByDriver = 0;

  // Sweeps' own events: learned from the deliveries, checked against what the sweeps said they enqueued.
  const sweepIds = new Set<string>();
  for (const a of input.answers) {
    const event = parseJson(a.request) as { id?: string; source?: string } | undefined;
    if (event?.source === 'sweep' && typeof event.id === 'string') sweepIds.add(event.id);
  }
  for (const id of sweepIds) if (!produced.has(id)) produced.set(id, { key: id, expect: 'valid' });
  if (sweepIds.size !== input.sweepsEnqueued) violations.push(`sweeps enqueued ${input.sweepsEnqueued} events, ${sweepIds.size} were delivered`);

  // Final answers, then the dead-letter queue.
  const outcomes: Record<string, number> = {};
  const deadLetterReasons: Record<string, number> = {};
  const dlqKeys = new Map<string, string>();
  for (const record of input.deadLetters) {
    if (record.kind === 'lbsync.dead-letter') {
      const key = record.eventId ?? (record.rawBody !== undefined ? `raw:${record.rawBody}` : undefined);
      if (key) dlqKeys.set(key, record.reason);
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
      const inWindow = input.deletionWindows.some(([from, to]) => a.at >= from && a.at <= to);
      if (!dlqKeys.has(item.key) && inWindow) destroyedByDriver += 1;
      else if (!dlqKeys.has(item.key)) violations.push(`${item.key}: answered dead_lettered (${a.answer.reason}) but no record in the dead-letter queue`);
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
    if (item.expect !== 'valid' && item.terminal !== 'redriven' && item.reason !== item.expect) {
      violations.push(`${item.key}: expected dead_lettered ${item.expect}, got ${item.terminal} ${item.reason ?? ''}`);
    }
    if (item.expect === 'valid' && item.terminal === 'dead_lettered' && item.reason !== 'permanent_error') {
      violations.push(`${item.key}: a valid event was dead-lettered (${item.reason})`);
    }
  }
  if (lostEvents.length > 0) violations.push(`${lostEvents.length} event(s) without a final outcome: ${lostEvents.slice(0, 5).join(', ')}`);

  return { events: produced.size, lostEvents, outcomes, deadLetterReasons, destroyedByDriver, violations };
}
