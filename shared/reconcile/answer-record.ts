// The reconcile function's one final line for a message (shared/platform/log-schema.ts, reconcile_answer), as a
// wide event (Powertools' idiom): each step adds what it knows (the event its source and age, the reconcile its
// figures and duration, the disposition its outcome), and the handler writes it once, at the end.
import type { Logger } from '../platform/log';
import type { LineFields } from '../platform/log-schema';

/** The final line's fields, as a handler passes them to the logger. */
export type AnswerLine = LineFields<'reconcile_answer'>;

/** The figures a line carries when no reconcile added its own (the event was refused or sent back before one). */
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
