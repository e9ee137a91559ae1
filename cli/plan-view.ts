// Desired vs actual, per target and backend, from a dry-run ReconcileResult and the observed backends.
// Pure: the plan command fetches, this shapes, render* prints.
import type { Action, FieldChange, ObservedBackend } from '../shared/core/model';
import { fieldValueText } from '../shared/core/action-text';
import { comparedFields } from '../shared/core/plan';
import type { DiscoveredPool } from '../shared/core/desired';
import type { LeavingMember } from '../shared/core/leaving';
import type { BackendRollout } from '../shared/core/rollout';
import type { MemberVerdict, RolloutStage } from '../shared/core/rollout';
import type { LbPlace } from '../shared/core/lb-identity';
import { atLb, placeLabel, samePlace } from '../shared/core/lb-identity';
import type { LbReconcile, ReconcileResult } from '../shared/reconcile/reconcile-target';
import { lbResult } from '../shared/reconcile/reconcile-target';
import type { Target } from '../shared/schemas/target';
import type { Colors, DescribedError } from './output';
import type { PlanCoverage } from './plan-coverage';
import { planCoverage } from './plan-coverage';
import { describeError, plural } from './output';

export interface ActionSummary {
  /** A target with several LBs: the LB it is written to, as the target names it. */
  loadBalancer?: LbPlace;
  kind: Action['kind'];
  backend: string;
  backendId?: string;
  pool?: string[];
  added?: string[];
  removed?: string[];
  changes?: FieldChange[];
}

/**
 * One address a pool write would add or remove (or, `keep`, should remove but keeps for now), and why; `leaving`: a
 * leaving server's address (kOps' needs-update mark) that stays while in the pool, or is not added back.
 */
export interface PoolChange {
  ip: string;
  change: 'add' | 'remove' | 'keep' | 'leaving';
  why: string;
}

/** A pool write that removes members, staged by the rolling-update rules (shared/core/rollout.ts). */
export interface RolloutView {
  /** The LB's last health check of each member, as reported (e.g. passed, failed, unknown, "no report"). */
  health: Record<string, string>;
  /** Members that should leave but stay for now, with why. */
  deferred: MemberVerdict[];
  /** This reconcile's write (when there is one), then the writes still to come. */
  stages: RolloutStage[];
}

export interface BackendView {
  /** A target with several LBs: whose backend this is, as the target names the LB. */
  loadBalancer?: LbPlace;
  name: string;
  /** Its state was read and planned (see UncheckedBackendView for one that was not). */
  checked: true;
  id?: string;
  exists: boolean;
  /** False for a backend kept in sync only while the LB has it (createIfMissing false, kopsController "auto"). */
  createIfMissing: boolean;
  /** Undefined when the backends could not be read. */
  actualPool?: string[];
  desiredPool?: string[];
  added: string[];
  removed: string[];
  poolChanges: PoolChange[];
  /** Present when a pool write would remove members: the health read and the staged writes. */
  rollout?: RolloutView;
  changes: FieldChange[];
  /** Fields compared and found equal (an existing backend only). */
  inSync: string[];
  actions: Action['kind'][];
}

/** A backend whose state is unknown: a read its plan needs failed. Shows the failure, never a pool state. */
export interface UncheckedBackendView {
  loadBalancer?: LbPlace;
  name: string;
  checked: false;
  createIfMissing: boolean;
  /** Why: the step the dry run stopped at (coverage.stoppedAt). */
  notChecked: string;
  /** The pool as read, when the backends were read before the run stopped: compared with nothing. */
  actualPool?: string[];
}

/** Why each address would be added or removed: which server it is, or that no selected server has it. */
export function poolChanges(
  added: readonly string[],
  removed: readonly string[],
  pool: DiscoveredPool | undefined,
  rollout?: BackendRollout,
  leaving: readonly LeavingMember[] = [],
): PoolChange[] {
  const serverOf = new Map((pool?.members ?? []).map((m) => [m.ip, m.server]));
  const gone = "no server carrying the target's tags has this address";
  const removedWhy = new Map((rollout?.rollout.removed ?? []).map((r) => [r.ip, r.why]));
  const leavingOf = new Map(leaving.map((m) => [m.ip, m]));
  const addedWhy = (ip: string): string => {
    const m = leavingOf.get(ip);
    if (m) return `address of server ${m.server}, leaving (${m.why}): ${m.because}`;
    return `address of server ${serverOf.get(ip) ?? '?'}, which carries the target's tags`;
  };
  return [
    ...added.map((ip): PoolChange => ({ ip, change: 'add', why: addedWhy(ip) })),
    ...leaving
      .filter((m) => m.verdict !== 'admitted')
      .map((m): PoolChange => ({ ip: m.ip, change: 'leaving', why: `server ${m.server}, leaving (${m.why}): ${m.because}` })),
    ...removed.map((ip): PoolChange => ({ ip, change: 'remove', why: removedWhy.has(ip) ? `${gone}; ${removedWhy.get(ip)}` : gone })),
    ...(rollout?.rollout.deferred ?? []).map((d): PoolChange => ({ ip: d.ip, change: 'keep', why: `${gone}; kept for now: ${d.why}` })),
  ];
}

function rolloutView(r: BackendRollout): RolloutView {
  return {
    health: Object.fromEntries(Object.entries(r.health).map(([ip, v]) => [ip, v.reported])),
    deferred: r.rollout.deferred,
    stages: r.rollout.stages,
  };
}

export interface TargetPlanView {
  target: string;
  zone: string;
  status: ReconcileResult['status'];
  lb?: { id: string; name: string; status: string };
  desiredPool?: string[];
  poolSource?: 'event' | 'tags';
  serverCount?: number;
  backends: (BackendView | UncheckedBackendView)[];
  /** What was read, and where the dry run stopped when a read failed. */
  coverage: PlanCoverage;
  actions: ActionSummary[];
  warnings: string[];
  apiCalls: { reads: number; writes: number };
  error?: DescribedError;
  /**
   * A target with several LBs: each LB's head (its status, how far its plan got, its error); its backends and
   * actions are in `backends` and `actions`, each naming its LB.
   */
  lbs?: LbPlanView[];
}

export interface LbPlanView {
  loadBalancer: LbPlace;
  lb?: { id: string; name: string; status: string };
  status: ReconcileResult['status'];
  coverage: PlanCoverage;
  error?: DescribedError;
}

export function summariseAction(action: Action): ActionSummary {
  const base = { kind: action.kind, backend: action.backend };
  switch (action.kind) {
    case 'CreateBackend':
      return { ...base, pool: action.pool };
    case 'SetBackendServers':
      return { ...base, backendId: action.backendId, pool: action.pool, added: action.added, removed: action.removed };
    case 'UpdateBackend':
    case 'UpdateHealthCheck':
      return { ...base, backendId: action.backendId, changes: action.changes };
    case 'DeleteDuplicateBackend':
      return { ...base, backendId: action.backendId };
  }
}

/** The backends a result read, by name (undefined when it read none). */
export function observedOf(result: Pick<ReconcileResult, 'observedBackends'>): Map<string, ObservedBackend> | undefined {
  const read = result.observedBackends;
  return read && new Map(Object.entries(read).flatMap(([name, b]) => (b ? [[name, b] as const] : [])));
}

export function planView(
  target: Target,
  result: ReconcileResult,
  observed: ReadonlyMap<string, ObservedBackend> | undefined,
  extraWarnings: string[] = [],
): TargetPlanView {
  if (result.lbs) return severalLbsView(target, result, result.lbs, extraWarnings);
  const desiredPool = result.pool?.ips;
  const coverage = planCoverage(result);
  const backends = !coverage.complete
    ? target.backends.map((spec) => uncheckedBackend(spec, coverage, observed))
    : target.backends.map((spec): BackendView => {
        const actual = observed?.get(spec.name);
        const actions = result.planned.filter((a) => a.backend === spec.name);
        const poolAction = actions.find((a) => a.kind === 'SetBackendServers' || a.kind === 'CreateBackend');
        const added =
          poolAction?.kind === 'SetBackendServers' ? poolAction.added : poolAction?.kind === 'CreateBackend' ? poolAction.pool : [];
        const removed = poolAction?.kind === 'SetBackendServers' ? poolAction.removed : [];
        const rollout = result.rollouts?.find((r) => r.backend === spec.name);
        return {
          name: spec.name,
          checked: true,
          ...(actual && { id: actual.id }),
          exists: observed ? actual !== undefined : !actions.some((a) => a.kind === 'CreateBackend'),
          createIfMissing: spec.createIfMissing,
          ...(observed && { actualPool: actual?.pool ?? [] }),
          ...(desiredPool && { desiredPool }),
          added,
          removed,
          poolChanges: poolChanges(
            added,
            removed,
            result.pool,
            rollout,
            (result.leaving ?? []).filter((m) => m.backend === spec.name),
          ),
          ...(rollout && { rollout: rolloutView(rollout) }),
          changes: actions.flatMap((a) => (a.kind === 'UpdateBackend' || a.kind === 'UpdateHealthCheck' ? a.changes : [])),
          inSync: actual
            ? comparedFields(spec).filter(
                (f) =>
                  !actions.some(
                    (a) => (a.kind === 'UpdateBackend' || a.kind === 'UpdateHealthCheck') && a.changes.some((c) => c.field === f),
                  ),
              )
            : [],
          actions: actions.map((a) => a.kind),
        };
      });
  return {
    target: target.name,
    zone: target.zone,
    status: result.status,
    ...(result.lb && { lb: result.lb }),
    ...(desiredPool && { desiredPool, poolSource: result.pool?.source, serverCount: result.pool?.serverCount }),
    backends,
    coverage,
    actions: result.planned.map(summariseAction),
    warnings: [...result.warnings, ...extraWarnings],
    apiCalls: { reads: result.apiCalls.reads, writes: result.apiCalls.writes },
    ...(result.error && { error: describeError(result.error) }),
  };
}

/** A target with several LBs: each LB's view as a one-LB target's, its items naming the LB, under the target's head. */
function severalLbsView(target: Target, result: ReconcileResult, parts: readonly LbReconcile[], extraWarnings: string[]): TargetPlanView {
  const views = parts.map((part) => ({ part, view: planView(atLb(target, part.loadBalancer), lbResult(result, part), observedOf(part)) }));
  const on = <T extends object>(loadBalancer: LbPlace, items: readonly T[]) => items.map((item) => ({ loadBalancer, ...item }));
  const incomplete = views.find(({ view }) => !view.coverage.complete)?.view.coverage;
  const read = (key: keyof PlanCoverage['read']) => views.every(({ view }) => view.coverage.read[key]);
  const desiredPool = result.pool?.ips;
  return {
    target: target.name,
    zone: target.zone,
    status: result.status,
    ...(desiredPool && { desiredPool, poolSource: result.pool?.source, serverCount: result.pool?.serverCount }),
    backends: views.flatMap(({ part, view }) => on(part.loadBalancer, view.backends)),
    coverage: {
      complete: incomplete === undefined,
      read: { lb: read('lb'), backends: read('backends'), servers: read('servers') },
      ...(incomplete?.stoppedAt && { stoppedAt: incomplete.stoppedAt }),
    },
    actions: views.flatMap(({ part, view }) => on(part.loadBalancer, view.actions)),
    warnings: [...result.warnings, ...extraWarnings],
    apiCalls: { reads: result.apiCalls.reads, writes: result.apiCalls.writes },
    ...(result.error && { error: describeError(result.error) }),
    lbs: views.map(({ part, view }) => ({
      loadBalancer: part.loadBalancer,
      ...(view.lb && { lb: view.lb }),
      status: view.status,
      coverage: view.coverage,
      ...(view.error && { error: view.error }),
    })),
  };
}

function uncheckedBackend(
  spec: Target['backends'][number],
  coverage: PlanCoverage,
  observed: ReadonlyMap<string, ObservedBackend> | undefined,
): UncheckedBackendView {
  const actual = observed?.get(spec.name);
  return {
    name: spec.name,
    checked: false,
    createIfMissing: spec.createIfMissing,
    notChecked: `${coverage.stoppedAt?.step ?? 'the plan could not be completed'} [${coverage.stoppedAt?.code ?? 'unknown'}]`,
    ...(actual && { actualPool: actual.pool }),
  };
}

function renderBackend(b: BackendView | UncheckedBackendView, c: Colors): string[] {
  if (!b.checked) return [`  backend ${c.bold(b.name)}  ${c.red('not checked:')} ${b.notChecked}`];
  const head = `  backend ${c.bold(b.name)}${b.id ? c.dim(`  ${b.id}`) : ''}`;
  const why = new Map(b.poolChanges.map((p) => [p.ip, p.why]));
  const because = (ip: string) => (why.has(ip) ? c.dim(`  (${why.get(ip)})`) : '');
  if (!b.exists && b.actions.length === 0 && !b.createIfMissing) {
    return [`${head}  ${c.dim('absent: left alone (synced only while the LB has it; never created)')}`];
  }
  if (!b.exists) {
    return [`${head}  ${c.yellow('missing: would be created')}`, ...b.added.map((ip) => `      ${c.green(`+ ${ip}`)}${because(ip)}`)];
  }
  const kept = new Set(b.rollout?.deferred.map((d) => d.ip));
  const leaving = b.poolChanges.filter((p) => p.change === 'leaving');
  const leavingLines = leaving.map(
    (p) => `      ${c.yellow(`${b.actualPool?.includes(p.ip) ? '=' : 'x'} ${p.ip}`)}  ${c.dim(`(${p.why})`)}`,
  );
  if (b.actions.length === 0 && kept.size === 0) {
    return [
      `${head}  ${c.green('in sync')}${b.actualPool ? c.dim(`  pool ${b.actualPool.join(', ') || '(empty)'}`) : ''}`,
      ...(leaving.length > 0 ? [`      leaving ${c.dim('(= stays while in the pool, x not added back)')}:`, ...leavingLines] : []),
    ];
  }
  const lines = [head];
  if (b.inSync.length > 0) lines.push(`      ${c.dim(`in sync: ${b.inSync.join(', ')}`)}`);
  for (const ch of b.changes)
    lines.push(`      ${ch.field}: ${c.red(fieldValueText(ch.from))} -> ${c.green(fieldValueText(ch.to))}  ${c.dim(`(${ch.reason})`)}`);
  const health = b.rollout?.health ?? {};
  const checked = (ip: string) => (health[ip] ? c.dim(`  [${health[ip]}]`) : '');
  if (b.added.length > 0 || b.removed.length > 0 || kept.size > 0) {
    const removed = new Set(b.removed);
    const added = new Set(b.added);
    const all = [...new Set([...(b.actualPool ?? []), ...b.removed, ...b.added])].sort(compareIps);
    lines.push(b.rollout ? `      pool ${c.dim('(LB health check in brackets; ~ leaves later)')}:` : '      pool:');
    for (const ip of all) {
      if (added.has(ip)) lines.push(`      ${c.green(`+ ${ip}`)}${because(ip)}`);
      else if (removed.has(ip)) lines.push(`      ${c.red(`- ${ip}`)}${checked(ip)}${because(ip)}`);
      else if (kept.has(ip)) lines.push(`      ${c.yellow(`~ ${ip}`)}${checked(ip)}${because(ip)}`);
      else lines.push(`        ${ip}${checked(ip)}`);
    }
  }
  if (leaving.length > 0) lines.push(`      leaving ${c.dim('(= stays while in the pool, x not added back)')}:`, ...leavingLines);
  if (b.rollout && b.rollout.stages.length > 0) {
    lines.push('      staged writes:');
    b.rollout.stages.forEach((s, i) => {
      const change = [...s.added.map((ip) => `+${ip}`), ...s.removed.map((ip) => `-${ip}`)].join(' ');
      lines.push(`        ${i + 1}. ${s.when}: ${change} ${c.dim(`-> [${s.pool.join(', ')}]`)}`);
    });
  }
  return lines;
}

/** Members that should leave but wait (rolling-update safety), over all backends. */
export function deferredCount(v: TargetPlanView): number {
  return v.backends.reduce((n, b) => n + ((b.checked && b.rollout?.deferred.length) || 0), 0);
}

function compareIps(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (Number.isNaN(d)) return a.localeCompare(b);
    if (d !== 0) return d;
  }
  return 0;
}

/** The LB's line of a view (`plan`, `status`): its name, `where` (a zone), its id and its status, `busy` said when not ready. */
export function lbLine(lb: { id: string; name: string; status: string }, c: Colors, where = '', busy = ''): string {
  const status = lb.status === 'ready' ? c.green(lb.status) : c.yellow(`${lb.status}${busy}`);
  return `  load balancer ${lb.name}${where} ${c.dim(lb.id)} ${status}`;
}

const WRITES_WAIT = ' (writes wait until it is ready)';

/** A target's (or, indented, one LB's) error in a view: code, message, hint. */
export function errorBlock(error: DescribedError, c: Colors, indent = '  '): string[] {
  const lines = [`${indent}${c.red('error')} ${c.dim(`[${error.code}]`)} ${error.message.split('\n').join(`\n${indent}  `)}`];
  if (error.hint) lines.push(`${indent}  ${c.dim('hint:')} ${error.hint}`);
  return lines;
}

/** A target with several LBs: each LB, then its backends and its error. */
function renderLbs(v: TargetPlanView, lbs: readonly LbPlanView[], c: Colors): string[] {
  return lbs.flatMap((head) => {
    const where = ` ${c.dim(`(${head.loadBalancer.zone})`)}`;
    const top = head.lb ? lbLine(head.lb, c, where, WRITES_WAIT) : `  load balancer ${placeLabel(head.loadBalancer)}`;
    const backends = v.backends.filter((b) => samePlace(b.loadBalancer, head.loadBalancer));
    return [top, ...backends.flatMap((b) => renderBackend(b, c)), ...(head.error ? errorBlock(head.error, c, '    ') : [])];
  });
}

export function renderPlanView(v: TargetPlanView, c: Colors): string[] {
  const waiting = deferredCount(v);
  const verdict =
    v.status === 'failed'
      ? c.red('error')
      : v.actions.length === 0 && waiting === 0
        ? c.green('in sync')
        : c.yellow(`drift: ${plural(v.actions.length, 'action')}${waiting > 0 ? `, ${plural(waiting, 'removal')} staged for later` : ''}`);
  const lines = [`${c.bold(v.target)} ${c.dim(`(${v.zone})`)}  ${verdict}`];
  if (v.lb) lines.push(lbLine(v.lb, c, '', WRITES_WAIT));
  if (v.desiredPool) {
    const from = v.poolSource === 'event' ? 'given' : `from ${plural(v.serverCount ?? 0, 'server')} matching the tags`;
    lines.push(`  desired pool  ${v.desiredPool.join(', ') || '(empty)'} ${c.dim(from)}`);
  }
  if (v.lbs) lines.push(...renderLbs(v, v.lbs, c));
  else for (const b of v.backends) lines.push(...renderBackend(b, c));
  for (const w of v.warnings) lines.push(`  ${c.yellow('warning:')} ${w}`);
  // Several LBs: each LB's error is told under it; the target's is the one that decides its event.
  if (v.error && !v.lbs) lines.push(...errorBlock(v.error, c));
  if (v.actions.length > 0)
    lines.push(
      `  ${c.dim('would run:')} ${v.actions.map((a) => `${a.kind} ${a.backend}${a.loadBalancer ? ` on ${placeLabel(a.loadBalancer)}` : ''}`).join(', ')}`,
    );
  return lines;
}
