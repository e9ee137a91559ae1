// One invocation, as every step of a reconcile sees it (controller-runtime's ctx): its logger, its clock, its
// deadline (an AbortSignal with the time left) and its event, and the final line the steps add to. It is handed
// down, never called back up: a step logs and records what it did itself.
import type { Clock } from '../platform/clock';
import { realClock } from '../platform/clock';
import type { Deadline } from '../platform/deadline';
import { NO_DEADLINE } from '../platform/deadline';
import type { Logger } from '../platform/log';
import { createLogger } from '../platform/log';
import type { AnswerRecord } from './answer-record';
import { answerRecord } from './answer-record';

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

let quiet: Logger | undefined;
const quietLogger = (): Logger => {
  quiet ??= createLogger({ service: 'lbsync', level: 'silent' });
  return quiet;
};

/**
 * A context with defaults for what is not given: the CLI and tests reconcile outside any invocation (a silent
 * logger, the real clock, no deadline, a final line nobody writes).
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
