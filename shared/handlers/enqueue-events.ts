// The one way onto the reconcile queue. Everything that makes events (inject, sweep, watch, `lbsync inject --queue`
// and `lbsync dlq redrive`) hands them to enqueueEvents, so a failed hand-off is reported the same way by all:
// queue_unavailable, answered 503 by a function.
// It is a 503 because the queue could not take the events now, and the caller should try again (inject's caller, or
// the next cron run). A 502 would say that something upstream gave a bad answer, which is not the case.
import type { BatchEntry, BatchResult, EventQueue } from '../adapters/queue';
import { LbSyncError } from '../errors/lbsync-error';
import type { LbSyncEvent } from '../schemas/event';
import { newEventId } from '../schemas/event';

/** The answer's status when a hand-off failed, whichever function made the events. */
export const ENQUEUE_FAILURE_STATUS = 503;

/** An event the functions make themselves (a sweep's, the watcher's): version 1, a new id, the first attempt. */
export function newEvent(
  fields: Pick<LbSyncEvent, 'source' | 'target' | 'occurredAt'> & Partial<Pick<LbSyncEvent, 'dryRun' | 'notBefore' | 'contested'>>,
): LbSyncEvent {
  const { source, target, occurredAt, dryRun, notBefore, contested } = fields;
  return {
    version: 1,
    id: newEventId(),
    source,
    target,
    occurredAt,
    attempt: 0,
    ...(dryRun !== undefined && { dryRun }),
    ...(notBefore !== undefined && { notBefore }),
    ...(contested !== undefined && contested.length > 0 && { contested }),
  };
}

/** An event to hand over; delaySeconds only with QUEUE_DELAY_MODE=native (Scaleway Queues have no DelaySeconds). */
export interface Outgoing {
  event: LbSyncEvent;
  delaySeconds?: number;
}

/** One event the queue refused, named by its target, with the queue's code and message. */
export interface RefusedEvent {
  target: string;
  code: string;
  message: string;
}

/** Why a hand-off failed: the queue could not be reached (error: what was thrown), or it refused some events. */
export interface EnqueueFailure {
  code: 'queue_unavailable';
  message: string;
  failed: RefusedEvent[];
  /** For the log line: what the queue client threw, or the refusal as an LbSyncError. */
  error: unknown;
  /** True when the queue could not be reached at all: what was handed over is unknown, stop sending. */
  unreachable: boolean;
}

export interface Enqueued {
  /** The events the queue took, in the order given. */
  sent: LbSyncEvent[];
  /** SendMessageBatch calls made. */
  calls: number;
  failure?: EnqueueFailure;
}

/** Where the events go: the reconcile queue, its client made only when there is something to send. */
export interface EventSink {
  queue: () => EventQueue;
  reconcileQueueUrl: string;
}

/** Sends the events to the queue, 10 per SendMessageBatch call. Never throws: a failure comes back in `failure`. */
export async function enqueueEvents(sink: EventSink, outgoing: readonly Outgoing[]): Promise<Enqueued> {
  if (outgoing.length === 0) return { sent: [], calls: 0 };
  const entries: BatchEntry[] = outgoing.map(({ event, delaySeconds }, index) => ({
    id: String(index),
    body: JSON.stringify(event),
    ...(delaySeconds !== undefined && { delaySeconds }),
  }));
  let batch: BatchResult;
  try {
    batch = await sink.queue().sendBatch(sink.reconcileQueueUrl, entries);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { sent: [], calls: 0, failure: { code: 'queue_unavailable', message, failed: [], error, unreachable: true } };
  }
  const taken = new Set(batch.sent);
  const sent = outgoing.filter((_, index) => taken.has(String(index))).map((o) => o.event);
  if (batch.failed.length === 0) return { sent, calls: batch.calls };
  const failed = batch.failed.map((f) => ({ target: outgoing[Number(f.id)]?.event.target ?? f.id, code: f.code, message: f.message }));
  return { sent, calls: batch.calls, failure: refusal(failed) };
}

/** A hand-off where the queue answered but refused these events. The events it took are sent. */
export function refusal(failed: RefusedEvent[]): EnqueueFailure {
  const message = `the queue refused ${failed.length} event(s)`;
  const error = new LbSyncError('queue_unavailable', `${message}: ${failed.map((f) => `${f.target} (${f.code})`).join(', ')}`);
  return { code: 'queue_unavailable', message, failed, error, unreachable: false };
}

/** A failed hand-off's answer body, the same for every function: `{error: "queue_unavailable", message, failed?}`. */
export function enqueueFailureBody(failure: Pick<EnqueueFailure, 'code' | 'message' | 'failed'>) {
  return { error: failure.code, message: failure.message, ...(failure.failed.length > 0 && { failed: failure.failed }) };
}
