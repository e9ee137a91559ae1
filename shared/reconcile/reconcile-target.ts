import type { ApiCallCount, ScalewayGateway } from '../adapters/scaleway';
import { unconfirmedServerIps, untrustedServerIpsError } from '../core/asserted-ips';
import type { DiscoveredPool } from '../core/desired';
import { addressChoiceNotes, unusableAddressWarning } from '../core/desired';
import type { LeavingMember } from '../core/leaving';
import { admittedLeavingWarning, leavingAssertions } from '../core/leaving';
import { contestWarning } from '../core/contest';
import { contradictionWarning, filterMismatchWarning } from '../core/discovery-check';
import type { LbPlace } from '../core/lb-identity';
import { atLb, identityOf, placeLabel, targetLbs } from '../core/lb-identity';
import type { Action, ObservedBackend, ObservedLb, LeftOutAnswer } from '../core/model';
import { judgeAllDuplicates, plan, planDuplicateCleanup } from '../core/plan';
import type { BackendRollout, MemberHealthView } from '../core/rollout';
import { memberHealth } from '../core/rollout';
import { kopsMessage } from '../errors/kops-messages';
import { asLbSyncError, LbSyncError } from '../errors/lbsync-error';
import type { RuntimeConfig } from '../platform/config';
import type { LbSyncEvent } from '../schemas/event';
import type { Target } from '../schemas/target';
import { desiredWithLeaving } from './admit-leaving';
import { applyActions } from './apply';
import { discoverPool } from './discover';
import { healthReadOnce } from './health-read-once';
import { assertLbOnNetwork, assertWritable, findLb, observeBackends } from './observe';
import type { InvocationContext } from './context';
import { invocationContext } from './context';
import { waitUntilApplied, waitWhileTransient } from './readiness';
import { logPlan, logResult, reconcileFigures } from './reconcile-lines';
import { readBackendHealth, stageRemovals } from './stage-removals';

export type ReconcileStatus = 'applied' | 'noop' | 'planned' | 'failed';

/** What one reconcile did; never thrown, so callers map it to queue operations. */
export interface ReconcileResult {
  target: string;
  eventId?: string;
  status: ReconcileStatus;
  /** Nothing was written: the event was a dry run, or the deployment is in shadow mode. */
  dryRun: boolean;
  /** A shadow deployment's reconcile of an event that was no dry run: every read a write would make, no write. */
  shadow: boolean;
  lb?: Pick<ObservedLb, 'id' | 'name' | 'status'>;
  pool?: DiscoveredPool;
  /** The backends as read, by target backend name (null: missing), for showing desired vs actual. */
  observedBackends?: Record<string, ObservedBackend | null>;
  /** What the planner asked for, pool writes cut down to what is safe now (stage-removals.ts). */
  planned: Action[];
  /** For each pool write that removes members: what leaves now, what waits and why, the stages to come. */
  rollouts?: BackendRollout[];
  /** The leaving servers (kOps' needs-update mark, or the target's own leaving tags), per backend, and their verdict. */
  leaving?: LeavingMember[];
  /** The LB's health checks of each backend's members, where this reconcile read them (a removal, or readHealth). */
  health?: { backend: string; health: Record<string, MemberHealthView> }[];
  /** What was written (a prefix of planned when a write failed). */
  done: Action[];
  warnings: string[];
  apiCalls: ApiCallCount;
  durationMs: number;
  /** Why the event is not done: if failed, what stopped it; else what it still carries (deferred removals, unconfirmed addresses). */
  error?: LbSyncError;
  /**
   * A target with several LBs (loadBalancers): each LB's own reconcile, in the target's order. The fields above then
   * describe the whole target: the status and error combined from its LBs (combineLbs), the pool, every write
   * (planned, done), the warnings (each naming its LB) and the calls. Each LB's backends, health, rollouts and leaving
   * servers are in its own entry.
   */
  lbs?: LbReconcile[];
}

/** One LB's part of a reconcile of a target with several: as the target names it, and what its reconcile did. */
export type LbReconcile = Pick<
  ReconcileResult,
  'status' | 'lb' | 'observedBackends' | 'planned' | 'rollouts' | 'leaving' | 'health' | 'done' | 'warnings' | 'error'
> & { loadBalancer: LbPlace };

export interface ReconcileOptions {
  gateway: ScalewayGateway;
  waitBudgetMs: number;
  /** How long to wait in this invocation for an LB in a transient state before giving up with a retry. */
  transientWaitMs?: number;
  /** Unused duplicates of a managed backend younger than this are left for now (default 30 s). */
  duplicateGraceMs?: number;
  /** This deployment's owner id (LBSYNC_OWNER_ID), to name both deployments in a pool_contested warning. */
  ownerId?: string;
  /**
   * LBSYNC_MODE=shadow: read and plan as a writing deployment would (it waits while the LB is busy and refuses one
   * that is not writable, as before a write), then write nothing: the plan is the result (status planned).
   */
  shadow?: boolean;
  /**
   * Read the LB's health checks of every existing backend's members even when no removal needs them (one
   * ListBackendStats per backend): the sweep's events do, so every target's passing members are logged each period.
   */
  readHealth?: boolean;
}

export const DEFAULT_DUPLICATE_GRACE_MS = 30_000;

/** The part of ReconcileOptions that comes from configuration. */
export type ReconcileSettings = Required<Pick<ReconcileOptions, 'waitBudgetMs' | 'transientWaitMs' | 'duplicateGraceMs'>>;

/**
 * Reads the reconcile's settings from configuration. The reconcile function, `lbsync reconcile`, `lbsync plan` and
 * `lbsync doctor` all use it, so a dry run judges duplicates with the same grace period as a real run.
 */
export function reconcileSettings(config: Pick<RuntimeConfig, 'waitBudgetMs' | 'transientWaitMs' | 'duplicateGraceMs'>): ReconcileSettings {
  return { waitBudgetMs: config.waitBudgetMs, transientWaitMs: config.transientWaitMs, duplicateGraceMs: config.duplicateGraceMs };
}

type EventPart = Partial<Pick<LbSyncEvent, 'id' | 'serverIps' | 'dryRun' | 'contested'>>;

/** Reads the health of existing backends that no removal has read yet. A failed read becomes a warning, not an error. */
async function healthOfTheRest(
  gateway: ScalewayGateway,
  target: Target,
  lb: ObservedLb,
  byName: ReadonlyMap<string, ObservedBackend>,
  read: readonly { backend: string }[],
  warnings: string[],
): Promise<{ backend: string; health: Record<string, MemberHealthView> }[]> {
  const found: { backend: string; health: Record<string, MemberHealthView> }[] = [];
  for (const spec of target.backends) {
    const backend = byName.get(spec.name);
    if (!backend || backend.pool.length === 0 || read.some((r) => r.backend === spec.name)) continue;
    try {
      const { reports } = await readBackendHealth(gateway, target, lb, backend.id);
      found.push({ backend: spec.name, health: Object.fromEntries(memberHealth(reports)) });
    } catch (error) {
      warnings.push(`the LB's health checks of ${spec.name} could not be read: ${asLbSyncError(error).message}`);
    }
  }
  return found;
}

/**
 * If a pool keeps leaving servers, its write sends only the changes. Writing the whole pool, read just before kOps
 * deregistered one of them, would put that server back.
 */
function writtenAsChanges(action: Action, leaving: readonly LeavingMember[]): Action {
  if (action.kind !== 'SetBackendServers') return action;
  const holdsLeaving = leaving.some((m) => m.backend === action.backend && m.verdict === 'stays');
  return holdsLeaving && !action.changesOnly ? { ...action, changesOnly: 'leaving_servers' } : action;
}

/** A reconcile that could not start because the target's key cannot be read (unset or malformed): failed, nothing read. */
export function notStarted(target: Target, event: EventPart, error: LbSyncError): ReconcileResult {
  return {
    target: target.name,
    ...(event.id && { eventId: event.id }),
    status: 'failed',
    dryRun: event.dryRun === true,
    shadow: false,
    planned: [],
    done: [],
    warnings: [],
    apiCalls: { reads: 0, writes: 0, byOperation: {} },
    durationMs: 0,
    error,
  };
}

/** What one LB's reconcile shares with the target's other LBs. */
interface LbRun {
  gateway: ScalewayGateway;
  options: ReconcileOptions;
  context: InvocationContext;
  started: number;
  /** The servers, discovered once for the target (in parallel with the first LB's lookup). */
  pool: Promise<DiscoveredPool>;
  /**
   * Whether this LB's result reports the pool's and the event's warnings (servers left out, contested writers,
   * leaving servers the event names). True for a one-LB target. A target with several reports them once, itself.
   */
  tellsPool: boolean;
  /** Several LBs: the LB ids found so far, with the entry that named each, so no LB is reconciled twice. */
  claimed?: Map<string, LbPlace>;
  /** Several LBs: this LB, as the target names it. */
  place?: LbPlace;
}

/** The warnings of the pool itself, told once per reconcile: answers left out, contradictions, unusable addresses. */
function poolWarnings(target: Target, pool: DiscoveredPool, leftOut: readonly LeftOutAnswer[]): string[] {
  const mismatch = filterMismatchWarning(leftOut);
  return [
    ...(mismatch ? [mismatch] : []),
    ...[contradictionWarning(pool.contradicted), unusableAddressWarning(pool.unusable)].filter((w) => w !== undefined),
    ...pool.skipped.map((s) => `server ${s.server} left out of the pool: ${s.reason}`),
    ...addressChoiceNotes(pool, target.servers.ipSource),
  ];
}

/** The warnings the event carries: the writers the watcher found us reverting on the target. */
function eventWarnings(target: Target, event: EventPart, ownerId: string | undefined): string[] {
  return (event.contested ?? []).map((c) => contestWarning({ ...c, target: target.name }, ownerId));
}

function namedLeavingWarnings(namedLeaving: readonly { ip: string; server: string; why: string }[]): string[] {
  return namedLeaving.map(
    (m) => `event serverIps names ${m.ip} of server ${m.server}, which is leaving (${m.why}): it is not added for the event`,
  );
}

/** An event asserting addresses discovery lacks (untrusted_server_ips), and the leaving servers' addresses it names. */
function assertedAgainst(target: Target, event: EventPart, pool: DiscoveredPool) {
  // Discovery knows a leaving server's address, so it is not unconfirmed. It is still never written or retried for.
  const namedLeaving = leavingAssertions(event.serverIps, pool.marked);
  const unlisted = unconfirmedServerIps(event.serverIps, [...pool.ips, ...namedLeaving.map((m) => m.ip)]);
  // Such an event is retried, but only after the discovered pool is written (or planned).
  const unconfirmed = unlisted.length > 0 ? untrustedServerIpsError(unlisted, target.name, pool.ips) : undefined;
  return { namedLeaving, unconfirmed };
}

/**
 * Level-triggered: re-reads the LB, its backends and the servers, plans the difference and writes only that.
 * The event only names the target; we never trust it as a description of the world. Its serverIps are checked
 * against discovery and never written. The discovered pool is written, since it is the truth either way. An address
 * discovery lacks is then carried as untrusted_server_ips, like deferred removals, so the event is retried.
 *
 * A target with several LBs (loadBalancers) discovers its servers once. It then reconciles each LB in turn by the
 * same steps: find, wait while busy, read its backends, plan, stage removals by its own health checks, write, wait.
 * The results are combined (combineLbs), and one LB failing never stops the others.
 */
export async function reconcileTarget(
  target: Target,
  event: EventPart,
  options: ReconcileOptions,
  context: Partial<InvocationContext> = {},
): Promise<ReconcileResult> {
  const ctx = invocationContext(context);
  const result = await reconcileLbs(target, event, options, ctx);
  logResult(ctx.logger, result);
  ctx.answer.add(reconcileFigures(result));
  return result;
}

async function reconcileLbs(target: Target, event: EventPart, options: ReconcileOptions, ctx: InvocationContext): Promise<ReconcileResult> {
  // The leaving servers' check and the staging of removals may both need a backend's health: one read serves both.
  const { gateway } = healthReadOnce(options.gateway);
  const now = ctx.clock.now;
  const run = { gateway, options, context: ctx, started: now() };
  const places = targetLbs(target);
  // The LB lookup and server discovery do not depend on each other, so they run in parallel.
  const pool = discoverPool(gateway, target);
  pool.catch(() => undefined);
  if (places.length === 1) return reconcileLb(atLb(target, places[0] as LbPlace), target, event, { ...run, pool, tellsPool: true });
  const claimed = new Map<string, LbPlace>();
  const results: ReconcileResult[] = [];
  for (const place of places)
    results.push(await reconcileLb(atLb(target, place), target, event, { ...run, pool, tellsPool: false, claimed, place }));
  const discovered = await pool.catch(() => undefined);
  const warnings = [
    ...eventWarnings(target, event, options.ownerId),
    ...(discovered
      ? [
          ...namedLeavingWarnings(assertedAgainst(target, event, discovered).namedLeaving),
          ...poolWarnings(target, discovered, discovered.leftOut),
        ]
      : []),
  ];
  const lbs = places.map((place, i) => lbPart(place, results[i] as ReconcileResult));
  return {
    target: target.name,
    ...(event.id && { eventId: event.id }),
    ...combineLbs(lbs),
    dryRun: results.some((r) => r.dryRun),
    shadow: results.some((r) => r.shadow),
    ...(discovered && { pool: discovered }),
    planned: lbs.flatMap((lb) => lb.planned),
    done: lbs.flatMap((lb) => lb.done),
    warnings: [...warnings, ...lbs.flatMap((lb) => lb.warnings.map((w) => `load-balancer ${placeLabel(lb.loadBalancer)}: ${w}`))],
    apiCalls: gateway.calls(),
    durationMs: now() - run.started,
    lbs,
  };
}

/** One LB's part of a multi-LB target, shaped as a one-LB result for the CLI's views (with the target's pool, calls and event). */
export function lbResult(result: ReconcileResult, part: LbReconcile): ReconcileResult {
  // Drop the target's error: it may come from another LB. The LB's part carries its own, if any.
  const { lbs: _all, error: _target, ...shared } = result;
  const { loadBalancer: _place, ...own } = part;
  return { ...shared, ...own };
}

function lbPart(place: LbPlace, r: ReconcileResult): LbReconcile {
  return {
    loadBalancer: place,
    status: r.status,
    ...(r.lb && { lb: r.lb }),
    ...(r.observedBackends && { observedBackends: r.observedBackends }),
    planned: r.planned,
    ...(r.rollouts && { rollouts: r.rollouts }),
    ...(r.leaving && { leaving: r.leaving }),
    ...(r.health && { health: r.health }),
    done: r.done,
    warnings: r.warnings,
    ...(r.error && { error: r.error }),
  };
}

/**
 * A target's status and error, from its LBs'. The status is failed if one LB failed. Writes on the other LBs stay;
 * the retry re-reads them and finds them in sync. Otherwise it is applied if one LB was written, else planned, else
 * noop. The error that decides the event is, in order:
 * - the first permanent one. The event is dead-lettered, naming its LB, for a human to fix; later events still
 *   reconcile the other LBs first;
 * - else the first failure (retried);
 * - else the first carried error (deferred removals, an address discovery lacks).
 */
function combineLbs(lbs: readonly Pick<LbReconcile, 'status' | 'error'>[]): Pick<ReconcileResult, 'status' | 'error'> {
  const statuses = lbs.map((lb) => lb.status);
  const status: ReconcileStatus = statuses.includes('failed')
    ? 'failed'
    : statuses.includes('applied')
      ? 'applied'
      : statuses.includes('planned')
        ? 'planned'
        : 'noop';
  const failures = lbs.filter((lb) => lb.status === 'failed' && lb.error).map((lb) => lb.error as LbSyncError);
  const error = failures.find((e) => e.errorClass === 'permanent') ?? failures[0] ?? lbs.find((lb) => lb.error !== undefined)?.error;
  return { status, ...(error && { error }) };
}

/** One LB's reconcile. `view` is the target as this LB's steps see it (atLb); discovery uses the whole target. */
async function reconcileLb(view: Target, target: Target, event: EventPart, run: LbRun): Promise<ReconcileResult> {
  const { gateway, options, context, started } = run;
  const { now } = context.clock;
  // An operator's dry run plans from what is there now. A shadow deployment also waits and checks, as a write would.
  const askedDryRun = event.dryRun === true;
  const shadow = options.shadow === true && !askedDryRun;
  const dryRun = askedDryRun || shadow;
  const result: ReconcileResult = {
    target: target.name,
    ...(event.id && { eventId: event.id }),
    status: 'noop',
    dryRun,
    shadow,
    planned: [],
    done: [],
    warnings: [],
    apiCalls: gateway.calls(),
    durationMs: 0,
  };
  const finish = (patch: Partial<ReconcileResult>): ReconcileResult =>
    Object.assign(result, patch, { apiCalls: gateway.calls(), durationMs: now() - started });

  // The writers the watcher found us reverting on this target: named once, whatever the reconcile does.
  if (run.tellsPool) result.warnings.push(...eventWarnings(target, event, options.ownerId));
  try {
    let poolPromise = run.pool;
    const { lb: found, leftOut: leftOutLbs } = await findLb(gateway, view);
    const first = run.claimed?.get(found.id);
    if (first && run.place) {
      throw new LbSyncError(
        'invalid_config',
        `loadBalancers names load-balancer ${found.name} (${found.id}) twice, as ${placeLabel(first)} and as ${placeLabel(run.place)}: it is reconciled once, under the first; remove the other entry`,
        { lb: identityOf(found) },
      );
    }
    run.claimed?.set(found.id, run.place as LbPlace);
    let lb = found;
    if (!askedDryRun) lb = await waitWhileTransient(gateway, view.zone, lb, options.transientWaitMs ?? 0, context);
    result.lb = { id: lb.id, name: lb.name, status: lb.status };
    if (!askedDryRun) assertWritable(lb);
    if (lb !== found) {
      // We waited for a busy LB (up to LBSYNC_TRANSIENT_WAIT_MS). Servers may have stopped or started meanwhile, and a
      // member whose server stopped may leave freely. So read the servers again, as they are at the write.
      poolPromise = discoverPool(gateway, target);
      poolPromise.catch(() => undefined);
    }
    // Record each read as it answers, so a reconcile stopped by a later read still reports what it read.
    const observed = await observeBackends(gateway, view, lb);
    result.observedBackends = Object.fromEntries(view.backends.map((b) => [b.name, observed.byName.get(b.name) ?? null]));
    const pool = await poolPromise;
    result.pool = pool;
    // ipam-private: never write or plan addresses the LB cannot reach. Each LB must be attached to the network itself.
    if (pool.privateNetworkId !== undefined) await assertLbOnNetwork(gateway, view.zone, lb, pool.privateNetworkId);
    const { namedLeaving, unconfirmed } = assertedAgainst(target, event, pool);
    if (run.tellsPool) result.warnings.push(...namedLeavingWarnings(namedLeaving));
    const withLeaving = await desiredWithLeaving(gateway, view, lb, pool, observed.byName);
    const { desired } = withLeaving;
    if (withLeaving.leaving.length > 0) result.leaving = withLeaving.leaving;
    const admitted = admittedLeavingWarning(withLeaving.leaving);
    if (admitted) result.warnings.push(admitted);
    const judged = judgeAllDuplicates(desired, observed.duplicates, now(), options.duplicateGraceMs ?? DEFAULT_DUPLICATE_GRACE_MS);
    for (const { duplicates: d, verdicts } of judged) {
      result.warnings.push(
        `backend "${d.name}" exists ${d.others.length + 1} times on load-balancer ${lb.name}; using ${d.kept.id}` +
          verdicts
            .filter((v) => !v.remove)
            .map((v) => `; leaving ${v.backend.id} alone: ${v.reason}`)
            .join(''),
      );
    }
    // One warning per reconcile for every answer left out, from the LB, server, IPAM and health listings. For a target
    // with several LBs, the target reports the servers' part itself.
    const leftOut = [...leftOutLbs, ...(run.tellsPool ? pool.leftOut : []), ...withLeaving.leftOut];
    const told = run.tellsPool ? poolWarnings(target, pool, leftOut) : [filterMismatchWarning(leftOut)].filter((w) => w !== undefined);
    const mismatch = leftOut.length > 0 ? told[0] : undefined;
    result.warnings.push(...told);
    if (pool.ips.length === 0 && pool.marked.length === 0 && !target.allowEmptyPool) {
      throw new LbSyncError(
        'no_servers',
        `${kopsMessage.listServers()}: no server with an address matches tags ${target.servers.tags.join(', ')}; the pool is left as it is`,
        { lb: identityOf(lb) },
      );
    }
    const staged = await stageRemovals(gateway, view, lb, [...plan(desired, observed.byName), ...planDuplicateCleanup(judged)], pool);
    // The leaving servers' check may have read this backend's health already. Name each left-out report only once.
    const stagedLeftOut = staged.leftOut.filter((r) => !withLeaving.leftOut.some((o) => o.what === r.what && o.why === r.why));
    if (stagedLeftOut.length > 0) {
      // This health read came after the warning was made. Its reports about another backend join that one warning.
      const joined = filterMismatchWarning([...leftOut, ...stagedLeftOut]) as string;
      if (mismatch) result.warnings.splice(result.warnings.indexOf(mismatch), 1, joined);
      else result.warnings.push(joined);
    }
    const planned = staged.actions.map((action) => writtenAsChanges(action, withLeaving.leaving));
    result.planned = planned;
    if (staged.rollouts.length > 0) result.rollouts = staged.rollouts;
    const health = staged.rollouts.map((r) => ({ backend: r.backend, health: r.health }));
    if (options.readHealth) health.push(...(await healthOfTheRest(gateway, view, lb, observed.byName, health, result.warnings)));
    if (health.length > 0) result.health = health;
    logPlan(context.logger, {
      actions: planned,
      pool: pool.ips,
      rollouts: staged.rollouts,
      leaving: withLeaving.leaving,
      ...(run.place && { lb: run.place }),
    });
    // The result carries an error beside what was done, so the event is retried. Asserted addresses that discovery
    // lacks come first, with their own, clearer code (also in a dry run). Otherwise deferred removals are carried.
    // A dry run shows them in its plan instead. A shadow deployment adds no member, so it would wait for a member it
    // never added; not carrying them keeps it from dead-lettering what a writing deployment would not. The status
    // still says what was written.
    const carried = unconfirmed ?? (dryRun ? undefined : staged.deferral);
    const carriedError = carried ? { error: carried } : {};
    if (dryRun) return finish({ status: planned.length === 0 && !staged.deferral ? 'noop' : 'planned', ...carriedError });
    if (planned.length === 0) return finish({ status: 'noop', ...carriedError });

    const applied = await applyActions(gateway, view.zone, lb, planned);
    result.done = applied.done;
    result.warnings.push(...applied.notes);
    if (applied.error) return finish({ status: 'failed', error: applied.error });
    await waitUntilApplied(gateway, view.zone, lb, options.waitBudgetMs, context);
    return finish({ status: 'applied', ...carriedError });
  } catch (error) {
    return finish({ status: 'failed', error: asLbSyncError(error) });
  }
}
