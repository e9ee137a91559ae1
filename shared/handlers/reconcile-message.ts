import type { EventQueue } from '../adapters/queue';
import type { ScalewayGateway } from '../adapters/scaleway';
import { withoutWrites } from '../adapters/scaleway';
import { describeAction } from '../core/action-text';
import type { AnswerFigures } from '../core/answer-figures';
import { answerFigures, worstPool } from '../core/answer-figures';
import type { DiscoveredPool } from '../core/desired';
import type { LbPlace } from '../core/lb-identity';
import { placeLabel } from '../core/lb-identity';
import type { DeadLetter, DeadLetterReason, Done, Requeue } from '../core/disposition';
import { decideDisposition } from '../core/disposition';
import type { Action } from '../core/model';
import type { LeavingMember } from '../core/leaving';
import { describeLeaving } from '../core/leaving';
import type { BackendRollout } from '../core/rollout';
import { describeRollout } from '../core/rollout-text';
import { deadLetterRecord } from './dead-letter';
import type { LbIdentity } from '../errors/lbsync-error';
import { LbSyncError } from '../errors/lbsync-error';
import type { RuntimeConfig } from '../platform/config';
import type { Deadline } from '../platform/deadline';
import { invocationDeadline } from '../platform/deadline';
import type { Logger } from '../platform/log';
import type { LineFields } from '../platform/log-schema';
import type { PlatformResponse } from '../platform/request-response';
import { jsonResponse } from '../platform/request-response';
import type { Scrubber } from '../outbound/scrub';
import { createScrubber } from '../outbound/scrub';
import type { Sleep } from '../reconcile/readiness';
import { realSleep } from '../reconcile/readiness';
import type { LbReconcile, ReconcileResult, ReconcileStatus } from '../reconcile/reconcile-target';
import { describePlanned, reconcileSettings, reconcileTarget } from '../reconcile/reconcile-target';
import type { LbSyncEvent } from '../schemas/event';
import { decodeEvent } from '../schemas/event';
import type { Target } from '../schemas/target';

export type ReconcileOutcome = 'applied' | 'noop' | 'dry_run' | 'retry_scheduled' | 'dead_lettered';

export interface ReconcileMessageDeps {
  targets: ReadonlyMap<string, Target>;
  /**
   * A fresh gateway per message, so its call count is this message's; its requests authenticate with the target's
   * key (shared/platform/target-keys.ts), end by the deadline and carry the event id in their User-Agent. It throws
   * an LbSyncError when the target's key cannot be read: that target's event fails, and nothing else.
   */
  gateway: (deadline: Deadline, eventId: string, target: Target) => ScalewayGateway;
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
  /** This deployment's owner id (LBSYNC_OWNER_ID): a pool_contested warning names both deployments. */
  ownerId?: string;
}

/** The reconcile function's answer: its keys are a contract (docs/architecture.md, "The functions' answers"). */
export interface ReconcileAnswerBody {
  /** With a 500: handoff_failed (a send to a queue failed), function_failed (not handled: its configuration refused...). */
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
  /** Why it is not done: what stopped it (failed), or what it carries (removals held back). */
  error?: ErrorSummary;
}

/** kOps' message, plus the LB's id and name side by side (the message carries only the one kOps uses). */
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

/** What decodeEvent threw, as the invalid_event it is (it throws nothing else; anything would be dead-lettered so). */
function asInvalidEvent(error: unknown): LbSyncError {
  return error instanceof LbSyncError
    ? error
    : new LbSyncError('invalid_event', `event is invalid: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}

/** A send to a queue that failed: the one failure this handler answers 500 for itself (`handoff_failed`). */
class HandOffFailed extends Error {
  constructor(readonly failure: unknown) {
    super('hand-off to the queue failed', { cause: failure });
  }
}

/**
 * One queue message, end to end: decode, decide (shared/core/disposition.ts), reconcile when told to, decide again,
 * and carry the decision out: hold, send back, dead-letter or answer done.
 */
export async function handleReconcileMessage(rawBody: string, deps: ReconcileMessageDeps): Promise<PlatformResponse> {
  const now = deps.now ?? (() => new Date());
  const sleep = deps.sleep ?? realSleep;
  const scrubber = deps.scrubber ?? createScrubber();
  const policy = { retry: deps.runtime.retry, delayMode: deps.runtime.delayMode, maxHoldMs: deps.runtime.maxHoldMs };
  // LBSYNC_MODE=shadow: read and plan as a write would, write nothing (twice locked: the plan, and the gateway).
  const shadow = deps.runtime.mode === 'shadow';
  // Every wait below is clipped to this, so the invocation hands the event on before the platform's timeout.
  const deadline = invocationDeadline(now().getTime(), deps.runtime.functionTimeoutMs, deps.runtime.deadlineMarginMs, () =>
    now().getTime(),
  );
  let log = deps.logger;
  /**
   * Sends to a queue, a failure marked as the hand-off's. Anything else thrown (a configuration refused while a gateway
   * is made, a bug) is not a hand-off: it leaves this handler as itself, and the function shell answers 500 with its code.
   */
  const handOff = async (...args: Parameters<EventQueue['send']>) => {
    const queue = deps.queue();
    try {
      return await queue.send(...args);
    } catch (error) {
      throw new HandOffFailed(error);
    }
  };

  // Known once decoded and reconciled: the final line's source and pool figures (also when the hand-off fails).
  let decoded: LbSyncEvent | undefined;
  let result: ReconcileResult | undefined;
  const receivedAt = now().getTime();
  /** The message's one final line (shared/platform/log-schema.ts): what it answered, and the pool figures. */
  const answered = (fields: Omit<LineFields<'reconcile_answer'>, keyof AnswerLineFigures | 'log_type' | 'source' | 'age_ms'>) =>
    ({
      log_type: 'reconcile_answer',
      ...(decoded && { source: decoded.source, ...ageAtReceipt(decoded, receivedAt) }),
      ...fields,
      ...answerLineFigures(result),
    }) satisfies LineFields<'reconcile_answer'>;

  const deadLetter = async (reason: DeadLetterReason, error: LbSyncError, event?: LbSyncEvent): Promise<PlatformResponse> => {
    // The event is scrubbed before its recordId is made of it: `lbsync dlq` computes the id again from what is kept.
    const kept = event ? { event: scrubber.value(event) } : { rawBody: scrubber.text(rawBody) };
    const record = deadLetterRecord({ reason, error, ...kept, now: now() });
    await handOff(deps.deadLetterQueueUrl, scrubber.text(JSON.stringify(record)));
    log.warn(
      answered({ outcome: 'dead_lettered', reason, code: error.code, record_id: record.recordId, error }),
      `dead-lettered: ${reason}: ${error.message}`,
    );
    return jsonResponse(200, {
      outcome: 'dead_lettered',
      reason,
      target: event?.target,
      eventId: event?.id,
      attempt: event?.attempt,
      recordId: record.recordId,
      error: errorSummary(error),
    } satisfies ReconcileAnswerBody);
  };

  /** Carries out what was decided for this event (after the reconcile, when there was one: `result`). */
  const carryOut = async (disposition: Done | Requeue | DeadLetter, event: LbSyncEvent): Promise<PlatformResponse> => {
    const common = {
      target: event.target,
      eventId: event.id,
      attempt: event.attempt,
      ...(shadow && { mode: 'shadow' as const }),
      ...(result && {
        actions: result.done.map((a) => a.kind),
        apiCalls: { reads: result.apiCalls.reads, writes: result.apiCalls.writes },
        ...(result.warnings.length > 0 && { warnings: result.warnings }),
        ...(result.leaving && { leaving: result.leaving }),
        ...(result.lbs && { lbs: answerLbs(result.lbs, result.dryRun) }),
      }),
    };
    switch (disposition.kind) {
      case 'done': {
        const { outcome } = disposition;
        if (outcome === 'dry_run') {
          const planned = result ? describePlanned(result) : [];
          const shadowed = result?.shadow ? { shadow_writes: planned.length } : {};
          const writes = planned.length > 0 ? planned.join('; ') : 'nothing';
          if (result?.shadow)
            log.info(answered({ outcome, ...shadowed }), `outcome: dry_run (shadow mode, nothing written), would write: ${writes}`);
          else log.info(answered({ outcome }), `outcome: dry_run, would write: ${writes}`);
          return jsonResponse(200, { outcome, ...common, planned } satisfies ReconcileAnswerBody);
        }
        log.info(answered({ outcome, ...convergence(event, now()) }), `outcome: ${outcome}`);
        return jsonResponse(200, { outcome, ...common } satisfies ReconcileAnswerBody);
      }
      case 'dead_letter':
        return deadLetter(disposition.reason, disposition.error, event);
      case 'requeue': {
        const { holdMs, delayMs, delaySeconds, next, error } = disposition;
        if (holdMs > 0 || !next) {
          log.debug({ wait_ms: holdMs + delayMs, hold_ms: holdMs }, 'holding early event until due');
          await sleep(holdMs);
        }
        await handOff(deps.reconcileQueueUrl, next ? JSON.stringify(next) : rawBody, delaySeconds === undefined ? {} : { delaySeconds });
        if (next && error) {
          log.info(
            answered({ outcome: 'retry_scheduled', code: error.code, retry_in_ms: delayMs, next_attempt: next.attempt, error }),
            `retry ${next.attempt} in ${delayMs} ms: ${error.message}`,
          );
          return jsonResponse(200, {
            outcome: 'retry_scheduled',
            ...common,
            retryInMs: delayMs,
            error: errorSummary(error),
          } satisfies ReconcileAnswerBody);
        }
        log.info(answered({ outcome: 'retry_scheduled', retry_in_ms: delayMs }), 'not due yet: re-enqueued unchanged');
        return jsonResponse(200, { outcome: 'retry_scheduled', ...common, retryInMs: delayMs } satisfies ReconcileAnswerBody);
      }
    }
  };

  try {
    let event: LbSyncEvent;
    try {
      event = decodeEvent(rawBody);
    } catch (error) {
      const { reason, error: invalid } = decideDisposition({ stage: 'undecodable', error: asInvalidEvent(error) }, policy);
      return await deadLetter(reason, invalid);
    }
    decoded = event;
    log = log.child({ event_id: event.id, target: event.target, attempt: event.attempt });
    log.info({ source: event.source, dry_run: event.dryRun ?? false }, 'event received');

    const target = deps.targets.get(event.target);
    const onReceipt = decideDisposition(
      { stage: 'received', event, targetKnown: target !== undefined, now: now(), remainingMs: deadline.remainingMs() },
      policy,
    );
    if (onReceipt.kind !== 'hold') return await carryOut(onReceipt, event);
    if (onReceipt.holdMs > 0) {
      log.debug({ wait_ms: onReceipt.holdMs, hold_ms: onReceipt.holdMs }, 'holding early event until due');
      await sleep(onReceipt.holdMs);
    }

    // An unknown target was dead-lettered above: the target is known here.
    const startedAt = now();
    let gateway: ScalewayGateway;
    try {
      gateway = deps.gateway(deadline, event.id, target as Target);
    } catch (error) {
      // The target's own key could not be read (a variable unset, a malformed key): this target fails, permanently.
      // The deployment's key is the deployment's problem: it leaves as itself, and the message is redelivered.
      if (!(error instanceof LbSyncError) || !(target as Target).credentials) throw error;
      return await carryOut(
        decideDisposition({ stage: 'reconciled', event, result: { status: 'failed', error }, now: now(), startedAt }, policy, deps.random),
        event,
      );
    }
    result = await reconcileTarget(target as Target, event, {
      gateway: shadow ? withoutWrites(gateway) : gateway,
      shadow,
      // The sweep's events read every backend's health: each target's passing members are logged every period.
      readHealth: event.source === 'sweep',
      deadline,
      now: () => now().getTime(),
      ...reconcileSettings(deps.runtime),
      ...(deps.ownerId && { ownerId: deps.ownerId }),
      sleep,
      onPlanned: (actions, pool, rollouts, leaving, lb) => logPlan(log, actions, pool.ips, rollouts, leaving, lb),
    });
    logResult(log, result);
    return await carryOut(decideDisposition({ stage: 'reconciled', event, result, now: now(), startedAt }, policy, deps.random), event);
  } catch (thrown) {
    if (!(thrown instanceof HandOffFailed)) throw thrown;
    // A failed hand-off: answer 5xx so the platform redelivers and nothing is lost.
    const error = thrown.failure;
    log.error(
      answered({ outcome: 'handoff_failed', code: 'queue_unavailable', error }),
      'hand-off to the queue failed; answering 500 so the message is redelivered',
    );
    return jsonResponse(500, {
      outcome: 'handoff_failed',
      error: {
        code: 'queue_unavailable',
        message: (error as Error)?.message ?? String(error),
        hint: 'The message stays on the queue and is redelivered.',
      },
    } satisfies ReconcileAnswerBody);
  }
}

function logPlan(
  log: Logger,
  actions: readonly Action[],
  pool: readonly string[],
  rollouts: readonly BackendRollout[],
  leaving: readonly LeavingMember[],
  lb?: LbPlace,
): void {
  // Each leaving server and what its pool does with it, then each removal (now, or held back) with its reason, before
  // the plan line that carries the write. A target with several LBs: each line names its LB.
  const on = lb ? log.child({ lb_zone: lb.zone, ...('id' in lb ? { lb_id: lb.id } : { lb_name: lb.name }) }) : log;
  const at = lb ? ` on load-balancer ${placeLabel(lb)}` : '';
  for (const line of describeLeaving(leaving)) on.info({ leaving: line }, line);
  for (const line of rollouts.flatMap(describeRollout)) on.info({ rollout: line }, line);
  if (actions.length === 0 && rollouts.every((r) => r.rollout.deferred.length === 0))
    on.info({ pool }, `plan${at}: in sync with [${pool.join(', ')}], nothing to do`);
  else if (actions.length === 0) on.info({ pool }, `plan${at}: nothing to write now`);
  else on.info({ plan: actions.map(describeAction) }, `plan${at}: ${actions.map(describeAction).join('; ')}`);
}

function logResult(log: Logger, result: ReconcileResult): void {
  for (const warning of result.warnings) log.warn({ warning }, warning);
  // A failure is told once, by the retry or dead-letter line that follows; here only the figures.
  log[result.error ? 'debug' : 'info'](
    {
      status: result.status,
      done: result.done.map((a) => a.kind),
      api_calls: result.apiCalls,
      duration_ms: result.durationMs,
      ...(result.error && { error: result.error }),
    },
    `reconcile ${result.status}: ${result.done.length} write(s), ${result.apiCalls.reads} read(s), ${result.durationMs} ms`,
  );
}

type AnswerLineFigures = Pick<
  LineFields<'reconcile_answer'>,
  | 'pool_size'
  | 'pool_passing'
  | 'pool_needed'
  | 'pool_short'
  | 'members_added'
  | 'members_removed'
  | 'members_deferred'
  | 'members_leaving'
  | 'writes'
  | 'api_reads'
  | 'api_writes'
  | 'api_ms'
  | 'api_max_ms'
  | 'lbs'
>;
type LbLineFigures = NonNullable<LineFields<'reconcile_answer'>['lbs']>[number];

/** One LB's figures (a one-LB target's are the target's): its pool after the answer, what changed in it. */
function lbFigures(part: Omit<LbReconcile, 'loadBalancer'>, pool: DiscoveredPool | undefined, dryRun: boolean): AnswerFigures {
  return answerFigures({
    ...(part.observedBackends && { observedBackends: part.observedBackends }),
    writes: dryRun ? part.planned : part.done,
    ...(part.rollouts && { rollouts: part.rollouts }),
    ...(part.health && { health: part.health }),
    // The control planes there are, leaving ones included: kOps marks them all at once, and while it replaces them the
    // target still needs a majority of them passing.
    ...(pool && { desiredSize: new Set([...pool.ips, ...pool.marked.map((m) => m.ip)]).size }),
    dryRun,
  });
}

/**
 * A target with several LBs: the changes are counted over all its LBs (an address added to two LBs is one member
 * added, as over two backends), the pool figures are the worst-off LB's (worstPool).
 */
function targetFigures(result: ReconcileResult, lbs: readonly LbReconcile[]): AnswerFigures {
  const changes = answerFigures({
    writes: lbs.flatMap((part) => (result.dryRun ? part.planned : part.done)),
    rollouts: lbs.flatMap((part) => part.rollouts ?? []),
    dryRun: result.dryRun,
  });
  return { ...changes, ...worstPool(lbs.map((part) => lbFigures(part, result.pool, result.dryRun))) };
}

/** Each LB's own figures, on the final line of a target with several. */
function lbLines(result: ReconcileResult, lbs: readonly LbReconcile[]): LbLineFigures[] {
  return lbs.map((part) => {
    const f = lbFigures(part, result.pool, result.dryRun);
    return {
      zone: part.loadBalancer.zone,
      ...(part.lb
        ? { lb_id: part.lb.id, lb_name: part.lb.name }
        : 'id' in part.loadBalancer
          ? { lb_id: part.loadBalancer.id }
          : { lb_name: part.loadBalancer.name }),
      status: part.status,
      ...(part.error && { code: part.error.code }),
      writes: (result.dryRun ? part.planned : part.done).map(describeAction),
      ...(f.poolSize !== undefined && { pool_size: f.poolSize }),
      ...(f.poolPassing !== undefined && { pool_passing: f.poolPassing }),
      ...(f.poolShort !== undefined && { pool_short: f.poolShort }),
      members_deferred: f.deferred,
    };
  });
}

/** The final line's figures: the pool after the answer, what changed in it, the writes (a dry run's: those it would make). */
function answerLineFigures(result: ReconcileResult | undefined): AnswerLineFigures {
  const writes = result ? describePlanned(result, result.dryRun ? 'planned' : 'done') : [];
  const figures = result?.lbs
    ? targetFigures(result, result.lbs)
    : lbFigures(result ?? { status: 'noop', planned: [], done: [], warnings: [] }, result?.pool, result?.dryRun ?? false);
  const leaving = [...(result?.leaving ?? []), ...(result?.lbs ?? []).flatMap((part) => part.leaving ?? [])];
  return {
    ...(figures.poolSize !== undefined && { pool_size: figures.poolSize }),
    ...(figures.poolPassing !== undefined && { pool_passing: figures.poolPassing }),
    ...(figures.poolNeeded !== undefined && { pool_needed: figures.poolNeeded }),
    ...(figures.poolShort !== undefined && { pool_short: figures.poolShort }),
    members_added: figures.added,
    members_removed: figures.removed,
    members_deferred: figures.deferred,
    members_leaving: new Set(leaving.map((m) => m.ip)).size,
    writes,
    ...(result && { api_reads: result.apiCalls.reads, api_writes: result.apiCalls.writes }),
    ...(result?.apiCalls.ms !== undefined && { api_ms: result.apiCalls.ms, api_max_ms: result.apiCalls.maxMs ?? 0 }),
    ...(result?.lbs && { lbs: lbLines(result, result.lbs) }),
  };
}

/** How late the event was received: from when it was due (its notBefore, else its occurredAt) to its receipt. */
function ageAtReceipt(event: LbSyncEvent, receivedAt: number): { age_ms?: number } {
  const due = Date.parse(event.notBefore ?? event.occurredAt);
  return Number.isFinite(due) ? { age_ms: Math.max(0, Math.round(receivedAt - due)) } : {};
}

/** From the originating event's occurredAt, which every retry carries unchanged, to this answer. */
function convergence(event: LbSyncEvent, at: Date): { convergence_ms?: number } {
  const ms = at.getTime() - Date.parse(event.occurredAt);
  return Number.isFinite(ms) ? { convergence_ms: Math.max(0, Math.round(ms)) } : {};
}
