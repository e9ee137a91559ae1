// One invocation, as every step of a reconcile sees it (like controller-runtime's ctx): its logger, its clock, its
// deadline (an AbortSignal with the time left), its event, and the final line the steps add to. The context is passed
// down, never called back up: each step logs and records what it did itself.
//
// The final line (shared/platform/log-schema.ts, reconcile_answer) is a wide event, in Powertools' style. Each step
// adds what it knows: the event's source and age, the reconcile's figures and duration, the disposition's outcome.
// The handler writes it once, at the end.
import type { Clock, Deadline } from '../platform/deadline';
import { NO_DEADLINE, realClock } from '../platform/deadline';
import type { Logger } from '../platform/log';
import { createLogger } from '../platform/log';
import type { LineFields } from '../platform/log-schema';

export interface InvocationContext {
  /** The invocation's logger, with the event's keys once it is decoded. */
  logger: Logger;
  clock: Clock;
  /** When the invocation must hand the event on: every wait is clipped to it. */
  deadline: Deadline;
  /** The event's id, once decoded (the gateway's User-Agent carries it). */
  eventId?: string;
  /** The message's final line, built up by the steps and written once by the handler. */
  answer: AnswerRecord;
}

/** The final line's fields, as a handler passes them to the logger. */
export type AnswerLine = LineFields<'reconcile_answer'>;

/** The figures a line carries when no reconcile ran (the event was refused or sent back before one). */
const NO_RECONCILE: Pick<AnswerLine, 'members_added' | 'members_removed' | 'members_deferred' | 'members_leaving' | 'writes'> = {
  members_added: 0,
  members_removed: 0,
  members_deferred: 0,
  members_leaving: 0,
  writes: [],
};

export interface AnswerRecord {
  /** Adds to the line (a later step's field replaces an earlier one's). */
  add(fields: Partial<AnswerLine>): void;
  /** The line as it stands. */
  line(): AnswerLine;
  /** Writes the line, once: a second write throws (one message, one final line). */
  write(logger: Logger, level: 'info' | 'warn' | 'error', message: string): void;
}

export function answerRecord(): AnswerRecord {
  const fields: Partial<AnswerLine> = {};
  let written = false;
  const line = (): AnswerLine => ({ log_type: 'reconcile_answer', ...NO_RECONCILE, ...fields }) as AnswerLine;
  return {
    add: (more) => void Object.assign(fields, more),
    line,
    write(logger, level, message) {
      if (written) throw new Error('the final line of this message was written already');
      written = true;
      logger[level](line(), message);
    },
  };
}

let quiet: Logger | undefined;
const quietLogger = (): Logger => {
  quiet ??= createLogger({ service: 'lbsync', level: 'silent' });
  return quiet;
};

/**
 * A context with defaults for what is not given, because the CLI and tests reconcile outside any invocation: a silent
 * logger, the real clock, no deadline, and a final line nobody writes.
 */
export function invocationContext(parts: Partial<InvocationContext> = {}): InvocationContext {
  return {
    logger: parts.logger ?? quietLogger(),
    clock: parts.clock ?? realClock,
    deadline: parts.deadline ?? NO_DEADLINE,
    ...(parts.eventId !== undefined && { eventId: parts.eventId }),
    answer: parts.answer ?? answerRecord(),
  };
}
