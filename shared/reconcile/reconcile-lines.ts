// What a reconcile logs, through its invocation's context: its plan, its result's figures, and its part of the
// message's final line (log-schema.ts, reconcile_answer). The plan is logged before any write, so the logs read in
// the order things happen.
import { describeAction } from '../core/action-text';
import type { AnswerFigures } from '../core/answer-figures';
import { answerFigures, worstPool } from '../core/answer-figures';
import type { DiscoveredPool } from '../core/desired';
import type { LeavingMember } from '../core/leaving';
import { describeLeaving } from '../core/leaving';
import type { LbPlace } from '../core/lb-identity';
import { placeLabel } from '../core/lb-identity';
import type { Action } from '../core/model';
import type { BackendRollout } from '../core/rollout';
import { describeRollout } from '../core/rollout-text';
import type { Logger } from '../platform/log';
import type { AnswerLine } from './context';
import type { LbReconcile, ReconcileResult } from './reconcile-target';

/** Each planned (or done) write in words; for a target with several LBs, each names its LB. */
export function describePlanned(
  result: Pick<ReconcileResult, 'planned' | 'done' | 'lbs'>,
  which: 'planned' | 'done' = 'planned',
): string[] {
  if (!result.lbs) return result[which].map(describeAction);
  return result.lbs.flatMap((lb) => lb[which].map((action) => `${placeLabel(lb.loadBalancer)}: ${describeAction(action)}`));
}

/** One LB's plan: its leaving servers, its staged removals, then the writes (or a line saying there are none). */
export interface PlanToTell {
  actions: readonly Action[];
  pool: readonly string[];
  rollouts: readonly BackendRollout[];
  leaving: readonly LeavingMember[];
  /** Which LB, for a target with several. */
  lb?: LbPlace;
}

export function logPlan(log: Logger, { actions, pool, rollouts, leaving, lb }: PlanToTell): void {
  // First each leaving server and what its pool does with it, then each removal (now, or deferred) with its reason,
  // then the plan line with the write. For a target with several LBs, each line names its LB.
  const on = lb ? log.child({ lb_zone: lb.zone, ...('id' in lb ? { lb_id: lb.id } : { lb_name: lb.name }) }) : log;
  const at = lb ? ` on load-balancer ${placeLabel(lb)}` : '';
  for (const line of describeLeaving(leaving)) on.info({ leaving: line }, line);
  for (const line of rollouts.flatMap(describeRollout)) on.info({ rollout: line }, line);
  if (actions.length === 0 && rollouts.every((r) => r.rollout.deferred.length === 0))
    on.info({ pool }, `plan${at}: in sync with [${pool.join(', ')}], nothing to do`);
  else if (actions.length === 0) on.info({ pool }, `plan${at}: nothing to write now`);
  else on.info({ plan: actions.map(describeAction) }, `plan${at}: ${actions.map(describeAction).join('; ')}`);
}

export function logResult(log: Logger, result: ReconcileResult): void {
  for (const warning of result.warnings) log.warn({ warning }, warning);
  // Only the figures here: the retry or dead-letter line that follows reports a failure, once.
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

type ReconcileFigures = Pick<
  AnswerLine,
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
  | 'duration_ms'
  | 'lbs'
>;
type LbLineFigures = NonNullable<AnswerLine['lbs']>[number];

/** One LB's figures (for a one-LB target, the target's): its pool after the answer, and what changed in it. */
function lbFigures(part: Omit<LbReconcile, 'loadBalancer'>, pool: DiscoveredPool | undefined, dryRun: boolean): AnswerFigures {
  return answerFigures({
    ...(part.observedBackends && { observedBackends: part.observedBackends }),
    writes: dryRun ? part.planned : part.done,
    ...(part.rollouts && { rollouts: part.rollouts }),
    ...(part.health && { health: part.health }),
    // Count every control plane, leaving ones included. kOps marks them all at once, and while it replaces them the
    // target still needs a majority of them passing.
    ...(pool && { desiredSize: new Set([...pool.ips, ...pool.marked.map((m) => m.ip)]).size }),
    dryRun,
  });
}

/**
 * A target with several LBs. Changes are counted across its LBs: an address added to two LBs is one member added,
 * as with two backends. The pool figures are those of the worst-off LB (worstPool).
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

/**
 * The reconcile's part of the final line: the pool after the answer, what changed in it, the writes (for a dry run,
 * those it would make), the API calls and how long the reconcile took.
 */
export function reconcileFigures(result: ReconcileResult): ReconcileFigures {
  const figures = result.lbs ? targetFigures(result, result.lbs) : lbFigures(result, result.pool, result.dryRun);
  const leaving = [...(result.leaving ?? []), ...(result.lbs ?? []).flatMap((part) => part.leaving ?? [])];
  return {
    ...(figures.poolSize !== undefined && { pool_size: figures.poolSize }),
    ...(figures.poolPassing !== undefined && { pool_passing: figures.poolPassing }),
    ...(figures.poolNeeded !== undefined && { pool_needed: figures.poolNeeded }),
    ...(figures.poolShort !== undefined && { pool_short: figures.poolShort }),
    members_added: figures.added,
    members_removed: figures.removed,
    members_deferred: figures.deferred,
    members_leaving: new Set(leaving.map((m) => m.ip)).size,
    writes: describePlanned(result, result.dryRun ? 'planned' : 'done'),
    api_reads: result.apiCalls.reads,
    api_writes: result.apiCalls.writes,
    ...(result.apiCalls.ms !== undefined && { api_ms: result.apiCalls.ms, api_max_ms: result.apiCalls.maxMs ?? 0 }),
    duration_ms: Math.max(0, Math.round(result.durationMs)),
    ...(result.lbs && { lbs: lbLines(result, result.lbs) }),
  };
}
