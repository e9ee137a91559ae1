/**
 * Which produced event a recorded answer is about, and whether that answer is final. Shared by the driver
 * (backpressure counts finished events) and the accounting (terminal outcome per event).
 */
import type { RecordedAnswer } from './answer-recorder';
import { parseJson } from './json';

/** applied / noop / dry_run / dead_lettered end an event; retry_scheduled does not. */
export function isTerminalOutcome(outcome: string | undefined): boolean {
  return outcome === 'applied' || outcome === 'noop' || outcome === 'dry_run' || outcome === 'dead_lettered';
}

/** The event id an answer is about; for a body that is not an event, the body itself. */
export function answerKey(a: RecordedAnswer): string | undefined {
  if (a.answer?.eventId) return a.answer.eventId;
  const event = parseJson(a.request) as { id?: unknown; target?: unknown } | undefined;
  if (a.answer?.reason === 'invalid_event' || !event || typeof event !== 'object') return `raw:${a.request}`;
  return typeof event.id === 'string' ? event.id : `raw:${a.request}`;
}
