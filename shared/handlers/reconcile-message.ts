import type { ScalewayGateway } from '../adapters/scaleway';
import type { EventQueue } from '../adapters/queue';
import type { RuntimeConfig } from '../platform/config';
import type { DeadLetterReason } from '../errors/dead-letter';
import { deadLetterRecord } from '../errors/dead-letter';
import type { Deadline } from '../platform/deadline';
import { invocationDeadline } from '../platform/deadline';
import { dispose } from '../core/disposition';
import type { LbIdentity } from '../errors/lbsync-error';
import { LbSyncError } from '../errors/lbsync-error';
import type { Logger } from '../platform/log';
import type { Action } from '../core/model';
import type { PlatformResponse } from '../platform/request-response';
import { jsonResponse } from '../platform/request-response';
import type { ReconcileResult } from '../reconcile/reconcile-target';
import { reconcileTarget } from '../reconcile/reconcile-target';
import type { Sleep } from '../reconcile/readiness';
import type { BackendRollout } from '../reconcile/stage-removals';
import { describeRollout } from '../core/rollout-text';
import { realSleep } from '../reconcile/readiness';
import { notBeforeBeyondHorizon } from '../core/retry-horizon';
import type { LbSyncEvent } from '../schemas/event';
import { decodeEvent } from '../schemas/event';
import type { Target } from '../schemas/target';
import type { Scrubber } from '../platform/scrub';
import { createScrubber } from '../platform/scrub';

export type ReconcileOutcome = 'applied' | 'noop' | 'retry_scheduled' | 'dead_lettered';

export interface ReconcileMessageDeps {
  targets: ReadonlyMap<string, Target>;
  /**
   * A fresh gateway per message, so its call count is this message's; its requests end by the deadline and carry
   * the event id in their User-Agent.
   */
  gateway: (deadline: Deadline, eventId: string) => ScalewayGateway;
  queue: () => EventQueue;
  reconcileQueueUrl: string;
  deadLetterQueueUrl: string;
  runtime: RuntimeConfig;
  logger: Logger;
  now?: () => Date;
  sleep?: Sleep;
  random?: () => number;
  /** Applied to dead-letter records (the answer is scrubbed by the function shell); default: URL credentials only. */
  scrubber?: Scrubber;
}

export interface ReconcileAnswerBody {
  outcome: ReconcileOutcome | 'handoff_failed';
  target?: string;
  eventId?: string;
  reason?: DeadLetterReason;
  attempt?: number;
  /** A dead letter's recordId: the same for every dead letter of this (event id, attempt). */
  recordId?: string;
  actions?: Action['kind'][];
  apiCalls?: { reads: number; writes: number };
  retryInMs?: number;
  warnings?: string[];
  error?: { code: string; message: string; hint: string; lb?: LbIdentity };
}

/** kOps' message, plus the LB's id and name side by side (the message carries only the one kOps uses). */
function errorSummary(error: LbSyncError) {
  return { code: error.code, message: error.message, hint: error.hint, ...(error.lb && { lb: error.lb }) };
}

function asLbSyncError(error: unknown): LbSyncError {
  return error instanceof LbSyncError ? error : new LbSyncError('queue_unavailable', (error as Error)?.message ?? String(error), { cause: error });
}

/** One queue message, end to end: decode, hold if early, reconcile, then done / re-enqueue / dead-letter. */
export async function handleReconcileMessage(rawBody: string, deps: ReconcileMessageDeps): Promise<PlatformResponse> {
  const now = deps.now ?? (() => new Date());
  const sleep = deps.sleep ?? realSleep;
  const scrubber = deps.scrubber ?? createScrubber();
  // Every wait below is clipped to this, so the invocation hands the event on before the platform's timeout.
  const deadline = invocationDeadline(now().getTime(), deps.runtime.functionTimeoutMs, deps.runtime.deadlineMarginMs, () => now().getTime());
  let log = deps.logger;

  const deadLetter = async (reason: DeadLetterReason, error: LbSyncError, event?: LbSyncEvent): Promise<PlatformResponse> => {
    const record = deadLetterRecord({ reason, error, ...(event ? { event } : { rawBody: scrubber.text(rawBody) }), now: now() });
    await deps.queue().send(deps.deadLetterQueueUrl, scrubber.text(JSON.stringify(record)));
    log.warn({ outcome: 'dead_lettered', reason, record_id: record.recordId, error: errorSummary(error) }, `dead-lettered: ${reason}: ${error.message}`);
    return jsonResponse(200, {
      outcome: 'dead_lettered', reason, target: event?.target, eventId: event?.id, attempt: event?.attempt, recordId: record.recordId, error: errorSummary(error),
    } satisfies ReconcileAnswerBody);
  };

  try {
    let event: LbSyncEvent;
    try {
      event = decodeEvent(rawBody);
    } catch (error) {
      return await deadLetter('invalid_event', asLbSyncError(error));
    }
    log = log.child({ event_id: event.id, target: event.target, attempt: event.attempt });
    log.info({ source: event.source, dryRun: event.dryRun ?? false }, 'event received');
    const tooFar = notBeforeBeyondHorizon(event.notBefore, now(), deps.runtime.retry.capMs);
    if (tooFar) return await deadLetter('invalid_event', tooFar, event);

    const target = deps.targets.get(event.target);
    if (!target) {
      return await deadLetter('unknown_target', new LbSyncError('unknown_target', `no target named "${event.target}" in the configuration`), event);
    }

    if (event.notBefore) {
      const waitMs = Date.parse(event.notBefore) - now().getTime();
      if (waitMs > 0) {
        const holdMs = Math.min(waitMs, deps.runtime.maxHoldMs, deadline.remainingMs());
        log.debug({ waitMs, holdMs }, 'holding early event until due');
        await sleep(holdMs);
        if (holdMs < waitMs) {
          await deps.queue().send(deps.reconcileQueueUrl, rawBody);
          log.info({ dueInMs: waitMs - holdMs }, 'not due yet: re-enqueued unchanged');
          return jsonResponse(200, { outcome: 'retry_scheduled', target: event.target, eventId: event.id, attempt: event.attempt, retryInMs: waitMs - holdMs } satisfies ReconcileAnswerBody);
        }
      }
    }

    const result = await reconcileTarget(target, event, {
      gateway: deps.gateway(deadline, event.id),
      deadline,
      now: () => now().getTime(),
      waitBudgetMs: deps.runtime.waitBudgetMs,
      transientWaitMs: deps.runtime.transientWaitMs,
      duplicateGraceMs: deps.runtime.duplicateGraceMs,
      sleep,
      onPlanned: (actions, pool, rollouts) => logPlan(log, actions, pool.ips, rollouts),
    });
    logResult(log, result);
    const disposition = dispose(event, result, deps.runtime.retry, now(), deps.random);
    const common = {
      target: event.target,
      eventId: event.id,
      attempt: event.attempt,
      actions: result.done.map((a) => a.kind),
      apiCalls: { reads: result.apiCalls.reads, writes: result.apiCalls.writes },
      ...(result.warnings.length > 0 && { warnings: result.warnings }),
    };
    switch (disposition.kind) {
      case 'done':
        log.info({ outcome: disposition.outcome, apiCalls: common.apiCalls }, `outcome: ${disposition.outcome}`);
        return jsonResponse(200, { outcome: disposition.outcome, ...common } satisfies ReconcileAnswerBody);
      case 'retry': {
        const delaySeconds = deps.runtime.delayMode === 'native' ? Math.min(900, Math.ceil(disposition.delayMs / 1000)) : undefined;
        await deps.queue().send(deps.reconcileQueueUrl, JSON.stringify(disposition.next), delaySeconds === undefined ? {} : { delaySeconds });
        log.info(
          { outcome: 'retry_scheduled', retryInMs: disposition.delayMs, nextAttempt: disposition.next.attempt, error: errorSummary(disposition.error) },
          `retry ${disposition.next.attempt} in ${disposition.delayMs} ms: ${disposition.error.message}`,
        );
        return jsonResponse(200, { outcome: 'retry_scheduled', ...common, retryInMs: disposition.delayMs, error: errorSummary(disposition.error) } satisfies ReconcileAnswerBody);
      }
      case 'dead_letter':
        return await deadLetter(disposition.reason, disposition.error, event);
    }
  } catch (error) {
    // Only a failed hand-off lands here: answer 5xx so the platform redelivers and nothing is lost.
    log.error({ error: { message: (error as Error)?.message } }, 'hand-off to the queue failed; answering 500 so the message is redelivered');
    return jsonResponse(500, { outcome: 'handoff_failed', error: { code: 'queue_unavailable', message: (error as Error)?.message ?? String(error), hint: 'The message stays on the queue and is redelivered.' } } satisfies ReconcileAnswerBody);
  }
}

function describeAction(action: Action): string {
  switch (action.kind) {
    case 'CreateBackend':
      return `CreateBackend ${action.backend} pool=[${action.pool.join(', ')}]`;
    case 'DeleteDuplicateBackend':
      return `DeleteDuplicateBackend ${action.backend} ${action.backendId} (keeping ${action.keptId})`;
    case 'SetBackendServers':
      return `SetBackendServers ${action.backend} +[${action.added.join(', ')}] -[${action.removed.join(', ')}]`;
    case 'UpdateBackend':
    case 'UpdateHealthCheck':
      return `${action.kind} ${action.backend} ${action.changes.map((c) => `${c.field}: ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}`).join(', ')}`;
  }
}

function logPlan(log: Logger, actions: readonly Action[], pool: readonly string[], rollouts: readonly BackendRollout[]): void {
  // Each removal (now, or held back) with its reason, before the plan line that carries the write.
  for (const line of rollouts.flatMap(describeRollout)) log.info({ rollout: line }, line);
  if (actions.length === 0 && rollouts.every((r) => r.rollout.deferred.length === 0)) log.info({ pool }, `plan: in sync with [${pool.join(', ')}], nothing to do`);
  else if (actions.length === 0) log.info({ pool }, 'plan: nothing to write now');
  else log.info({ plan: actions.map(describeAction) }, `plan: ${actions.map(describeAction).join('; ')}`);
}

function logResult(log: Logger, result: ReconcileResult): void {
  for (const warning of result.warnings) log.warn({ warning }, warning);
  // A failure is told once, by the retry or dead-letter line that follows; here only the figures.
  log[result.error ? 'debug' : 'info'](
    { status: result.status, done: result.done.map((a) => a.kind), apiCalls: result.apiCalls, durationMs: result.durationMs, ...(result.error && { error: errorSummary(result.error) }) },
    `reconcile ${result.status}: ${result.done.length} write(s), ${result.apiCalls.reads} read(s), ${result.durationMs} ms`,
  );
}

export { describeAction };
