import type { EventQueue } from '../adapters/queue';
import type { ScalewayGateway } from '../adapters/scaleway';
import { withoutWrites } from '../adapters/scaleway';
import { describeAction } from '../core/action-text';
import type { DeadLetter, DeadLetterReason, DispositionPolicy, Done, Hold, Requeue } from '../core/disposition';
import { decideDisposition } from '../core/disposition';
import type { LbPlace } from '../core/lb-identity';
import type { LeavingMember } from '../core/leaving';
import type { Action } from '../core/model';
import type { LbIdentity } from '../errors/lbsync-error';
import { LbSyncError } from '../errors/lbsync-error';
import type { Scrubber } from '../outbound/scrub';
import { createScrubber } from '../outbound/scrub';
import type { RuntimeConfig } from '../platform/config';
import type { Clock } from '../platform/deadline';
import { invocationDeadline, realClock } from '../platform/deadline';
import type { Logger } from '../platform/log';
import type { PlatformResponse } from '../platform/request-response';
import { jsonResponse } from '../platform/request-response';
import type { AnswerLine, InvocationContext } from '../reconcile/context';
import { invocationContext } from '../reconcile/context';
import type { LbReconcile, ReconcileResult, ReconcileStatus } from '../reconcile/reconcile-target';
import { describePlanned } from '../reconcile/reconcile-lines';
import { reconcileSettings, reconcileTarget } from '../reconcile/reconcile-target';
import type { LbSyncEvent } from '../schemas/event';
import { decodeEvent } from '../schemas/event';
import type { Target } from '../schemas/target';
import { deadLetterRecord } from './dead-letter';

export type ReconcileOutcome = 'applied' | 'noop' | 'dry_run' | 'retry_scheduled' | 'dead_lettered';

export interface ReconcileMessageDeps {
  targets: ReadonlyMap<string, Target>;
  /**
   * Makes the invocation's gateway once the event names its target, so the call count is this message's alone. Its
   * requests use the target's key (shared/platform/target-keys.ts), stop at the deadline and carry the event id in
   * their User-Agent. It throws an LbSyncError when the target's key cannot be read: only that target's event fails.
   */
  gateway: (target: Target, invocation: Pick<InvocationContext, 'deadline' | 'eventId'>) => ScalewayGateway;
  /** Where the event is sent back (a retry, an early event) and where its dead letter goes. */
  queues: { client: () => EventQueue; reconcileQueueUrl: string; deadLetterQueueUrl: string };
  runtime: RuntimeConfig;
  logger: Logger;
  /** Default: the real clock. */
  clock?: Clock;
  random?: () => number;
  /** Applied to dead-letter records (the answer is scrubbed by the function shell); default: URL credentials only. */
  scrubber?: Scrubber;
  /** This deployment's owner id (LBSYNC_OWNER_ID): a pool_contested warning names both deployments. */
  ownerId?: string;
}

/** The reconcile function's answer: its keys are a contract (docs/architecture.md, "The functions' answers"). */
export interface ReconcileAnswerBody {
  /** With a 500: handoff_failed when a send to a queue failed; function_failed when the function could not run at all. */
  outcome: ReconcileOutcome | 'handoff_failed' | 'function_failed';
  target?: string;
  eventId?: string;
  reason?: DeadLetterReason;
  attempt?: number;
  /** A dead letter's recordId: the same for every dead letter of this event (id, target and body). */
  recordId?: string;
  actions?: Action['kind'][];
  /** A dry run's answer: the writes it would make, one line each (none made). */
  planned?: string[];
  /** A shadow deployment's answer (LBSYNC_MODE=shadow): nothing was written, whatever the event asked. */
  mode?: 'shadow';
  apiCalls?: { reads: number; writes: number };
  retryInMs?: number;
  warnings?: string[];
  /** Leaving servers (kOps' needs-update mark): per backend, whether it stays, is kept out or was admitted, and why. */
  leaving?: LeavingMember[];
  error?: ErrorSummary;
  /** A target with several LBs: each LB's part, in the target's order (the fields above tell the target). */
  lbs?: AnswerLb[];
}

type ErrorSummary = { code: string; message: string; hint: string; lb?: LbIdentity };

/** One LB of a target with several, in the reconcile's answer. */
export interface AnswerLb {
  /** The LB as the target names it: its zone, and its name or id. */
  loadBalancer: LbPlace;
  /** The LB as found. */
  lb?: { id: string; name: string };
  /** What its reconcile did: applied, noop, planned (a dry run that would write) or failed. */
  status: ReconcileStatus;
  /** The writes made on it. */
  actions: Action['kind'][];
  /** A dry run: the writes it would make on it. */
  planned?: string[];
  leaving?: LeavingMember[];
  /** Why it is not done: the error that stopped it (failed), or its deferred removals. */
  error?: ErrorSummary;
}

/** The message names the LB only as kOps does, by id or by name, so `lb` gives both. */
function errorSummary(error: LbSyncError): ErrorSummary {
  return { code: error.code, message: error.message, hint: error.hint, ...(error.lb && { lb: error.lb }) };
}

/** Each LB's part of the answer, for a target with several. */
function answerLbs(lbs: readonly LbReconcile[], dryRun: boolean): AnswerLb[] {
  return lbs.map((part) => ({
    loadBalancer: part.loadBalancer,
    ...(part.lb && { lb: { id: part.lb.id, name: part.lb.name } }),
    status: part.status,
    actions: part.done.map((a) => a.kind),
    ...(dryRun && { planned: part.planned.map(describeAction) }),
    ...(part.leaving && { leaving: part.leaving }),
    ...(part.error && { error: errorSummary(part.error) }),
  }));
}

/** decodeEvent throws only invalid_event. Anything else is wrapped as one, so it is dead-lettered all the same. */
function asInvalidEvent(error: unknown): LbSyncError {
  return error instanceof LbSyncError
    ? error
    : new LbSyncError('invalid_event', `event is invalid: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}

/** A failed send to a queue: the only failure this handler answers 500 for itself (`handoff_failed`). */
class HandOffFailed extends Error {
  constructor(readonly failure: unknown) {
    super('hand-off to the queue failed', { cause: failure });
  }
}

/** The handler's answer, and the fields the outcome adds to the final log line. */
interface Answer {
  status: 200 | 500;
  body: ReconcileAnswerBody;
  level: 'info' | 'warn' | 'error';
  message: string;
  line: Partial<AnswerLine>;
}

/**
 * Handles one queue message end to end. It decodes the event, decides what to do (shared/core/disposition.ts),
 * reconciles if told to, decides again, and carries the decision out: hold, send back, dead-letter or answer done.
 * Every step adds fields to one final log line, which is written once, here, at the end.
 */
export async function handleReconcileMessage(rawBody: string, deps: ReconcileMessageDeps): Promise<PlatformResponse> {
  const clock = deps.clock ?? realClock;
  const receivedAt = clock.now();
  // Every wait below is clipped to this, so the invocation hands the event on before the platform's timeout.
  const deadline = invocationDeadline(receivedAt, deps.runtime.functionTimeoutMs, deps.runtime.deadlineMarginMs, clock);
  const ctx = invocationContext({ logger: deps.logger, clock, deadline });
  const message = new Message(rawBody, deps, ctx);
  let answer: Answer;
  try {
    answer = await message.handle(receivedAt);
  } catch (thrown) {
    if (!(thrown instanceof HandOffFailed)) throw thrown;
    answer = handOffFailed(thrown.failure);
  }
  ctx.answer.add(answer.line);
  ctx.answer.write(ctx.logger, answer.level, answer.message);
  return jsonResponse(answer.status, answer.body);
}

/** One message's handling: the steps in order, then the disposition carried out. */
class Message {
  private readonly policy: DispositionPolicy;
  private readonly scrubber: Scrubber;

  constructor(
    private readonly rawBody: string,
    private readonly deps: ReconcileMessageDeps,
    private readonly ctx: InvocationContext,
  ) {
    this.policy = { retry: deps.runtime.retry, delayMode: deps.runtime.delayMode, maxHoldMs: deps.runtime.maxHoldMs };
    this.scrubber = deps.scrubber ?? createScrubber();
  }

  private now(): Date {
    return new Date(this.ctx.clock.now());
  }

  async handle(receivedAt: number): Promise<Answer> {
    const { ctx, deps, policy } = this;
    let event: LbSyncEvent;
    try {
      event = decodeEvent(this.rawBody);
    } catch (error) {
      return this.carryOut(decideDisposition({ stage: 'undecodable', error: asInvalidEvent(error) }, policy));
    }
    ctx.eventId = event.id;
    ctx.logger = ctx.logger.child({ event_id: event.id, target: event.target, attempt: event.attempt });
    ctx.answer.add({ source: event.source, ...ageAtReceipt(event, receivedAt) });
    ctx.logger.info({ source: event.source, dry_run: event.dryRun ?? false }, 'event received');

    const target = deps.targets.get(event.target);
    const onReceipt = decideDisposition(
      { stage: 'received', event, targetKnown: target !== undefined, now: this.now(), remainingMs: ctx.deadline.remainingMs() },
      policy,
    );
    if (onReceipt.kind !== 'dead_letter') await this.holdEarly(onReceipt);
    if (onReceipt.kind !== 'hold') return this.carryOut(onReceipt, event);

    const startedAt = this.now();
    // An unknown target was dead-lettered above: the target is known here.
    const result = await this.reconcile(target as Target, event);
    const verdict = result instanceof LbSyncError ? { status: 'failed' as const, error: result } : result;
    const disposition = decideDisposition({ stage: 'reconciled', event, result: verdict, now: this.now(), startedAt }, policy, deps.random);
    return this.carryOut(disposition, event, result instanceof LbSyncError ? undefined : result);
  }

  /** An early event waits here until it is due, or for as long as the invocation allows, then is reconciled or sent back. */
  private async holdEarly(disposition: Hold | Requeue): Promise<void> {
    const { holdMs } = disposition;
    if (holdMs === 0 && disposition.kind === 'hold') return;
    const waitMs = holdMs + (disposition.kind === 'requeue' ? disposition.delayMs : 0);
    this.ctx.logger.debug({ wait_ms: waitMs, hold_ms: holdMs }, 'holding early event until due');
    await this.ctx.clock.sleep(holdMs);
  }

  /** Returns the error, not the result, when the target's own key cannot be read (unset or malformed): that target fails for good. */
  private async reconcile(target: Target, event: LbSyncEvent): Promise<ReconcileResult | LbSyncError> {
    const { deps, ctx } = this;
    let gateway: ScalewayGateway;
    try {
      gateway = deps.gateway(target, ctx);
    } catch (error) {
      // A bad deployment key breaks every target, so it is thrown: the shell answers 500 and the message is redelivered.
      if (!(error instanceof LbSyncError) || !target.credentials) throw error;
      return error;
    }
    // LBSYNC_MODE=shadow reads and plans as usual but writes nothing. The plan and a gateway without writes both enforce it.
    const shadow = deps.runtime.mode === 'shadow';
    return reconcileTarget(
      target,
      event,
      {
        gateway: shadow ? withoutWrites(gateway) : gateway,
        shadow,
        // The sweep's events read every backend's health: each target's passing members are logged every period.
        readHealth: event.source === 'sweep',
        ...reconcileSettings(deps.runtime),
        ...(deps.ownerId && { ownerId: deps.ownerId }),
      },
      ctx,
    );
  }

  /** Marks a failed send as HandOffFailed. Any other error reaches the function shell, which answers 500. */
  private async handOff(...args: Parameters<EventQueue['send']>): Promise<void> {
    const queue = this.deps.queues.client();
    try {
      await queue.send(...args);
    } catch (error) {
      throw new HandOffFailed(error);
    }
  }

  /** Carries out what was decided for this event (after its reconcile, when there was one: `result`). */
  private async carryOut(disposition: Done | Requeue | DeadLetter, event?: LbSyncEvent, result?: ReconcileResult): Promise<Answer> {
    switch (disposition.kind) {
      case 'done':
        return this.done(disposition, event as LbSyncEvent, result);
      case 'dead_letter':
        return this.deadLetter(disposition, event);
      case 'requeue':
        return this.requeue(disposition, event as LbSyncEvent, result);
    }
  }

  private done({ outcome }: Done, event: LbSyncEvent, result: ReconcileResult | undefined): Answer {
    const common = this.common(event, result);
    if (outcome !== 'dry_run') {
      const line = { outcome, ...convergence(event, this.now()) };
      return { status: 200, body: { outcome, ...common }, level: 'info', message: `outcome: ${outcome}`, line };
    }
    const planned = result ? describePlanned(result) : [];
    const writes = planned.length > 0 ? planned.join('; ') : 'nothing';
    const body = { outcome, ...common, planned };
    if (result?.shadow) {
      const message = `outcome: dry_run (shadow mode, nothing written), would write: ${writes}`;
      return { status: 200, body, level: 'info', message, line: { outcome, shadow_writes: planned.length } };
    }
    return { status: 200, body, level: 'info', message: `outcome: dry_run, would write: ${writes}`, line: { outcome } };
  }

  private async deadLetter({ reason, error }: DeadLetter, event?: LbSyncEvent): Promise<Answer> {
    const { scrubber } = this;
    // Scrub first: `lbsync dlq` recomputes the recordId from the scrubbed record, so the id must be made from it too.
    const kept = event ? { event: scrubber.value(event) } : { rawBody: scrubber.text(this.rawBody) };
    const record = deadLetterRecord({ reason, error, ...kept, now: this.now() });
    await this.handOff(this.deps.queues.deadLetterQueueUrl, scrubber.text(JSON.stringify(record)));
    return {
      status: 200,
      body: {
        outcome: 'dead_lettered',
        reason,
        target: event?.target,
        eventId: event?.id,
        attempt: event?.attempt,
        recordId: record.recordId,
        error: errorSummary(error),
      },
      level: 'warn',
      message: `dead-lettered: ${reason}: ${error.message}`,
      line: { outcome: 'dead_lettered', reason, code: error.code, record_id: record.recordId, error },
    };
  }

  /** Sends the event back: a retry (`next`, with its error), or an early event unchanged, after holding it as long as allowed. */
  private async requeue(disposition: Requeue, event: LbSyncEvent, result: ReconcileResult | undefined): Promise<Answer> {
    const { delayMs, delaySeconds, next, error } = disposition;
    const sent = next ? JSON.stringify(next) : this.rawBody;
    await this.handOff(this.deps.queues.reconcileQueueUrl, sent, delaySeconds === undefined ? {} : { delaySeconds });
    const body = { outcome: 'retry_scheduled' as const, ...this.common(event, result), retryInMs: delayMs };
    if (!next || !error) {
      const line = { outcome: 'retry_scheduled' as const, retry_in_ms: delayMs };
      return { status: 200, body, level: 'info', message: 'not due yet: re-enqueued unchanged', line };
    }
    return {
      status: 200,
      body: { ...body, error: errorSummary(error) },
      level: 'info',
      message: `retry ${next.attempt} in ${delayMs} ms: ${error.message}`,
      line: { outcome: 'retry_scheduled', code: error.code, retry_in_ms: delayMs, next_attempt: next.attempt, error },
    };
  }

  /** What every answer but a dead letter's tells: the event, and what its reconcile did. */
  private common(event: LbSyncEvent, result: ReconcileResult | undefined) {
    return {
      target: event.target,
      eventId: event.id,
      attempt: event.attempt,
      ...(this.deps.runtime.mode === 'shadow' && { mode: 'shadow' as const }),
      ...(result && {
        actions: result.done.map((a) => a.kind),
        apiCalls: { reads: result.apiCalls.reads, writes: result.apiCalls.writes },
        ...(result.warnings.length > 0 && { warnings: result.warnings }),
        ...(result.leaving && { leaving: result.leaving }),
        ...(result.lbs && { lbs: answerLbs(result.lbs, result.dryRun) }),
      }),
    };
  }
}

/** A failed hand-off: answered 5xx so the platform redelivers and nothing is lost. */
function handOffFailed(error: unknown): Answer {
  return {
    status: 500,
    body: {
      outcome: 'handoff_failed',
      error: {
        code: 'queue_unavailable',
        message: (error as Error)?.message ?? String(error),
        hint: 'The message stays on the queue and is redelivered.',
      },
    },
    level: 'error',
    message: 'hand-off to the queue failed; answering 500 so the message is redelivered',
    line: { outcome: 'handoff_failed', code: 'queue_unavailable', error },
  };
}

/** How late the event was received: from when it was due (its notBefore, else its occurredAt) to its receipt. */
function ageAtReceipt(event: LbSyncEvent, receivedAt: number): { age_ms?: number } {
  const due = Date.parse(event.notBefore ?? event.occurredAt);
  return Number.isFinite(due) ? { age_ms: Math.max(0, Math.round(receivedAt - due)) } : {};
}

/** Time from the first event's occurredAt (every retry keeps it) to this answer. */
function convergence(event: LbSyncEvent, at: Date): { convergence_ms?: number } {
  const ms = at.getTime() - Date.parse(event.occurredAt);
  return Number.isFinite(ms) ? { convergence_ms: Math.max(0, Math.round(ms)) } : {};
}
