// `lbsync status`, shaped and drawn: per target the LB, each backend's members with the LB's health of each,
// desired vs current and what is pending and why (the plan's own view, cli/plan-view.ts), then the queues.
// Pure: cli/status-read.ts reads, cli/commands/status.ts prints and refreshes. Only what was read is shown: a
// backend whose read failed shows no members, and a target whose plan failed is never called in sync.
import { fieldValueText } from '../shared/core/action-text';
import type { Action, FieldChange, ObservedBackend } from '../shared/core/model';
import type { Contest, ForeignWrite } from '../shared/core/contest';
import { contestWarning } from '../shared/core/contest';
import { compareIps } from '../shared/core/pool';
import type { LbPlace } from '../shared/core/lb-identity';
import { atLb, placeLabel, samePlace } from '../shared/core/lb-identity';
import type { LbReconcile } from '../shared/reconcile/reconcile-target';
import { lbResult } from '../shared/reconcile/reconcile-target';
import type { Colors, DescribedError } from './output';
import { describeError, EXIT, plural, renderError, table } from './output';
import type { ActionSummary, BackendView, PoolChange } from './plan-view';
import { deferredCount, errorBlock, lbLine, planView } from './plan-view';
import type { QueueDepth, QueueDepths, TargetStatusRead } from './status-read';

/** One address of one backend: in its pool, or to be added to it. */
export interface MemberStatus {
  /** A target with several LBs: the LB whose backend holds it, as the target names the LB. */
  loadBalancer?: LbPlace;
  backend: string;
  ip: string;
  /**
   * The LB's last health check of it, as ListBackendStats reports it: passed, failed, unknown, ... ("passed/failed"
   * when the LB's instances disagree, "no report" for a pool member it says nothing of); null when not read (the
   * read failed) or not asked (an address not in the pool yet).
   */
  health: string | null;
  inPool: boolean;
  /** Whether the target wants it (absent when the plan failed: the desired pool is not known). */
  desired?: boolean;
  /**
   * What a reconcile would do to it: add or remove it now, or keep it for now (it leaves once that is safe); `leaving`:
   * a leaving server (kOps' needs-update mark) that stays while in the pool, or is not added back (`why` says which).
   */
  change?: PoolChange['change'];
  why?: string;
}

/** not_compared: the backend was read, but the target's plan failed, so nothing is said of what it should be. */
export type BackendState = 'in_sync' | 'pending' | 'missing' | 'absent' | 'not_compared';

export interface BackendStatus {
  /** A target with several LBs: whose backend this is. */
  loadBalancer?: LbPlace;
  name: string;
  id?: string;
  state: BackendState;
  /** Fields a reconcile would change. */
  changes: FieldChange[];
  /** The writes a reconcile would make to it now. */
  actions: Action['kind'][];
}

export interface TargetStatus {
  target: string;
  zone: string;
  inSync: boolean;
  state: 'in_sync' | 'pending' | 'failed';
  lb?: { id: string; name: string; status: string };
  desiredPool?: string[];
  poolSource?: 'event' | 'tags';
  serverCount?: number;
  backends: BackendStatus[];
  members: MemberStatus[];
  actions: ActionSummary[];
  warnings: string[];
  /** Pool writes on its backends by anyone else in the last 30 minutes (Audit Trail; absent when it was not read). */
  foreignWrites?: { method: string; writer: string; userAgent: string; at: string }[];
  /** The Scaleway API calls this target's status cost. */
  apiCalls: { reads: number; writes: number; byOperation: Record<string, number> };
  /** A shadow deployment's count for this target, as read from its logs (only in shadow mode). */
  shadow?: ShadowCount;
  error?: DescribedError;
  /** A target with several LBs: each LB's head; its backends, members and actions name their LB. */
  lbs?: LbStatusView[];
}

export interface LbStatusView {
  loadBalancer: LbPlace;
  lb?: { id: string; name: string; status: string };
  state: TargetStatus['state'];
  error?: DescribedError;
}

/**
 * What a shadow deployment logged for a target over `window`: how many of its answers would have written (read
 * from the logs data source with the dashboard's own query); or why it was not read. Never a guess.
 */
export type ShadowCount = { window: string; wouldHaveWritten: number } | { window: string; notRead: string; hint?: string };

export interface StatusSnapshot {
  /** When the read started (ISO 8601). */
  at: string;
  targets: TargetStatus[];
  /** Absent with --no-queue. */
  queues?: QueueDepths;
}

function observedMap(observed: Record<string, ObservedBackend | null>): Map<string, ObservedBackend> {
  return new Map(Object.entries(observed).flatMap(([name, b]) => (b ? [[name, b] as const] : [])));
}

function backendMembers(
  name: string,
  current: ObservedBackend | null,
  view: BackendView | undefined,
  health: ReadonlyMap<string, { reported: string }> | undefined,
  desiredPool: readonly string[] | undefined,
): MemberStatus[] {
  const changeOf = new Map((view?.poolChanges ?? []).map((p) => [p.ip, p]));
  const pool = current?.pool ?? [];
  const leaving = (view?.poolChanges ?? []).filter((p) => p.change === 'leaving').map((p) => p.ip);
  const ips = [...new Set([...pool, ...(view?.added ?? []), ...leaving])].sort(compareIps);
  return ips.map((ip): MemberStatus => {
    const inPool = pool.includes(ip);
    const change = view ? changeOf.get(ip) : undefined;
    // A leaving server in the pool stays there (it is desired where it is); out of it, it is not.
    const desired = change?.change === 'leaving' ? inPool : desiredPool?.includes(ip);
    return {
      backend: name,
      ip,
      health: inPool && health ? (health.get(ip)?.reported ?? 'no report') : null,
      inPool,
      ...(desiredPool && { desired }),
      ...(change && { change: change.change, why: change.why }),
    };
  });
}

/** A target with several LBs: each LB's status as a one-LB target's, its items naming the LB, under the target's head. */
function severalLbsStatus(read: TargetStatusRead, parts: readonly LbReconcile[]): TargetStatus {
  const { target, result } = read;
  const views = parts.map((part, i) => {
    const own = read.lbHealth?.[i];
    const one = targetStatus({
      target: atLb(target, part.loadBalancer),
      result: lbResult(result, part),
      health: own?.health ?? new Map(),
      ...(own?.healthError && { healthError: own.healthError }),
      apiCalls: read.apiCalls,
    });
    return { part, one };
  });
  const on = <T extends object>(loadBalancer: LbPlace, items: readonly T[]) => items.map((item) => ({ loadBalancer, ...item }));
  const failed = views.some(({ one }) => one.state === 'failed') || result.status === 'failed';
  const inSync = !failed && views.every(({ one }) => one.inSync);
  const error = result.error ?? read.healthError;
  const compared = views.every(({ one }) => one.desiredPool !== undefined);
  return {
    target: target.name,
    zone: target.zone,
    inSync,
    state: failed ? 'failed' : inSync ? 'in_sync' : 'pending',
    ...(compared && result.pool && { desiredPool: result.pool.ips, poolSource: result.pool.source, serverCount: result.pool.serverCount }),
    backends: views.flatMap(({ part, one }) => on(part.loadBalancer, one.backends)),
    members: views.flatMap(({ part, one }) => on(part.loadBalancer, one.members)),
    actions: views.flatMap(({ part, one }) => on(part.loadBalancer, one.actions)),
    warnings: [...result.warnings],
    apiCalls: { reads: read.apiCalls.reads, writes: read.apiCalls.writes, byOperation: read.apiCalls.byOperation },
    ...(error && { error: describeError(error) }),
    lbs: views.map(({ part, one }) => ({
      loadBalancer: part.loadBalancer,
      ...(one.lb && { lb: one.lb }),
      state: one.state,
      ...(one.error && { error: one.error }),
    })),
  };
}

/** One target's status from what was read; the plan part is `lbsync plan`'s own view of the same dry run. */
export function targetStatus(read: TargetStatusRead): TargetStatus {
  const { target, result } = read;
  if (result.lbs) return severalLbsStatus(read, result.lbs);
  const observed = result.observedBackends;
  const plan = planView(target, result, observed ? observedMap(observed) : undefined);
  const compared = plan.coverage.complete;
  const failed = !compared || read.healthError !== undefined;
  const inSync = !failed && plan.actions.length === 0 && deferredCount(plan) === 0;
  const backends: BackendStatus[] = [];
  const members: MemberStatus[] = [];
  for (const spec of target.backends) {
    const current = observed?.[spec.name];
    if (current === undefined) continue; // not read: nothing to say
    const planned = plan.backends.find((b) => b.name === spec.name);
    const view = compared && planned?.checked ? planned : undefined;
    const pending = (view?.actions.length ?? 0) > 0 || (view?.rollout?.deferred.length ?? 0) > 0;
    backends.push({
      name: spec.name,
      ...(current && { id: current.id }),
      state: !current ? (spec.createIfMissing ? 'missing' : 'absent') : !view ? 'not_compared' : pending ? 'pending' : 'in_sync',
      changes: view?.changes ?? [],
      actions: view?.actions ?? [],
    });
    members.push(...backendMembers(spec.name, current, view, read.health.get(spec.name), compared ? plan.desiredPool : undefined));
  }
  const error = result.error ?? read.healthError;
  return {
    target: target.name,
    zone: target.zone,
    inSync,
    state: failed ? 'failed' : inSync ? 'in_sync' : 'pending',
    ...(plan.lb && { lb: plan.lb }),
    ...(compared && plan.desiredPool && { desiredPool: plan.desiredPool, poolSource: plan.poolSource, serverCount: plan.serverCount }),
    backends,
    members,
    actions: plan.actions,
    warnings: plan.warnings,
    apiCalls: { reads: read.apiCalls.reads, writes: read.apiCalls.writes, byOperation: read.apiCalls.byOperation },
    ...(error && { error: describeError(error) }),
  };
}

/** Adds what Audit Trail says of the target's other writers: their writes, and a pool_contested warning for a flap. */
export function withWriters(
  t: TargetStatus,
  writers: { ownerId?: string; foreign: readonly ForeignWrite[]; contests: readonly Contest[] },
): void {
  t.foreignWrites = writers.foreign
    .filter((w) => w.target === t.target)
    .map(({ method, writer, userAgent, at }) => ({ method, writer, userAgent, at }));
  for (const c of writers.contests.filter((c) => c.target === t.target)) t.warnings.push(contestWarning(c, writers.ownerId));
}

/** 0 every target in sync, 2 one is not (and none failed), 1 a target or the queues could not be read: as `plan`. */
export function statusExitCode(snapshot: StatusSnapshot): number {
  if (snapshot.targets.some((t) => t.state === 'failed') || (snapshot.queues && 'error' in snapshot.queues)) return EXIT.error;
  return snapshot.targets.every((t) => t.inSync) ? EXIT.ok : EXIT.drift;
}

/** The -o json payload (the envelope adds ok and command). */
export function statusPayload(snapshot: StatusSnapshot): Record<string, unknown> {
  const exitCode = statusExitCode(snapshot);
  return { inSync: snapshot.targets.every((t) => t.inSync), exitCode, ...snapshot };
}

const held = (t: TargetStatus) => t.members.filter((m) => m.change === 'keep').length;

function verdict(t: TargetStatus, c: Colors): string {
  if (t.state === 'failed') return c.red('failed');
  if (t.inSync) return c.green('in sync');
  const parts = [
    ...(t.actions.length > 0 ? [plural(t.actions.length, 'write')] : []),
    ...(held(t) > 0 ? [`${plural(held(t), 'removal')} staged for later`] : []),
  ];
  return c.yellow(`pending: ${parts.join(', ')}`);
}

function paintHealth(health: string | null, c: Colors): string {
  if (health === null) return c.dim('-');
  return health === 'passed' ? c.green(health) : health === 'failed' ? c.red(health) : c.yellow(health);
}

const CHANGE: Record<PoolChange['change'], (c: Colors) => string> = {
  add: (c) => c.green('+ to add:'),
  remove: (c) => c.red('- to remove:'),
  keep: (c) => c.yellow('~ leaves later:'),
  leaving: (c) => c.yellow('leaving:'),
};

function note(m: MemberStatus, c: Colors): string {
  return m.change ? `${CHANGE[m.change](c)} ${c.dim(m.why ?? '')}` : '';
}

const BACKEND_STATE: Record<BackendState, (c: Colors) => string> = {
  in_sync: (c) => c.green('in sync'),
  pending: (c) => c.yellow('pending'),
  missing: (c) => c.yellow('missing: a reconcile creates it'),
  absent: (c) => c.dim('absent: left alone (synced only while the LB has it; never created)'),
  not_compared: (c) => c.dim('as read (not compared: the target failed, see below)'),
};

function renderBackend(t: TargetStatus, b: BackendStatus, c: Colors): string[] {
  const lines = [`  backend ${c.bold(b.name)}${b.id ? c.dim(`  ${b.id}`) : ''}  ${BACKEND_STATE[b.state](c)}`];
  const rows = t.members
    .filter((m) => m.backend === b.name && (!b.loadBalancer || samePlace(m.loadBalancer, b.loadBalancer)))
    .map((m) => [`    ${m.ip}`, paintHealth(m.health, c), note(m, c)]);
  if (rows.length > 0) lines.push(...table([[c.dim('    MEMBER'), c.dim('LB HEALTH'), ''], ...rows]));
  else if (b.id) lines.push(`    ${c.dim('(empty pool)')}`);
  for (const ch of b.changes)
    lines.push(`    ${ch.field}: ${c.red(fieldValueText(ch.from))} -> ${c.green(fieldValueText(ch.to))}  ${c.dim(`(${ch.reason})`)}`);
  if (b.actions.length > 0) lines.push(`    ${c.dim(`a reconcile would run: ${b.actions.join(', ')}`)}`);
  return lines;
}

/** A target with several LBs: each LB, its backends and members, and its error. */
function renderLbs(t: TargetStatus, lbs: readonly LbStatusView[], c: Colors): string[] {
  return lbs.flatMap((head) => {
    const top = head.lb
      ? lbLine(head.lb, c, ` ${c.dim(`(${head.loadBalancer.zone})`)}`)
      : `  load balancer ${placeLabel(head.loadBalancer)}`;
    const backends = t.backends.filter((b) => samePlace(b.loadBalancer, head.loadBalancer));
    return [top, ...backends.flatMap((b) => renderBackend(t, b, c)), ...(head.error ? errorBlock(head.error, c, '    ') : [])];
  });
}

export function renderTargetStatus(t: TargetStatus, c: Colors): string[] {
  const lines = [`${c.bold(t.target)} ${c.dim(`(${t.zone})`)}  ${verdict(t, c)}`];
  if (t.lb) lines.push(lbLine(t.lb, c));
  if (t.desiredPool) {
    const from = t.poolSource === 'event' ? 'given' : `from ${plural(t.serverCount ?? 0, 'server')} matching the tags`;
    lines.push(`  desired pool  ${t.desiredPool.join(', ') || '(empty)'} ${c.dim(from)}`);
  }
  if (t.lbs) lines.push(...renderLbs(t, t.lbs, c));
  else for (const b of t.backends) lines.push(...renderBackend(t, b, c));
  if (t.foreignWrites && t.foreignWrites.length > 0) {
    const counts = new Map<string, number>();
    for (const w of t.foreignWrites) counts.set(w.writer, (counts.get(w.writer) ?? 0) + 1);
    const named = [...counts].map(([writer, n]) => `${writer} (${plural(n, 'write')})`).join(', ');
    lines.push(`  ${c.dim('written by others in the last 30 minutes:')} ${named}`);
  }
  if (t.shadow) lines.push(...renderShadow(t.shadow, c));
  for (const w of t.warnings) lines.push(`  ${c.yellow('warning:')} ${w}`);
  // Several LBs: each LB's error is told under it.
  if (t.error && !t.lbs) lines.push(...errorBlock(t.error, c));
  return lines;
}

/** "shadow: would have written 3 times in the last 24h (read from Cockpit's logs)", or why it is not known. */
function renderShadow(shadow: ShadowCount, c: Colors): string[] {
  if ('notRead' in shadow)
    return [
      `  ${c.yellow('shadow:')} would have written ? times in the last ${shadow.window}: not read (${shadow.notRead})`,
      ...(shadow.hint ? [`    ${c.dim('hint:')} ${shadow.hint}`] : []),
    ];
  const times = plural(shadow.wouldHaveWritten, 'time');
  return [
    `  ${c.yellow('shadow:')} would have written ${times} in the last ${shadow.window} ${c.dim("(LBSYNC_MODE=shadow: nothing written; read from Cockpit's logs)")}`,
  ];
}

const n = (value: number | null) => (value === null ? '?' : String(value));

function depth(d: QueueDepth): string {
  return `${n(d.waiting)} waiting, ${n(d.inFlight)} in flight`;
}

export function renderQueues(q: QueueDepths, c: Colors): string[] {
  if ('error' in q) {
    const [first = '', ...rest] = renderError(q.error, c).trimEnd().split('\n');
    return [`queues  ${first}`, ...rest];
  }
  const dead = q.deadLetter.waiting === 0 && q.deadLetter.inFlight === 0 ? c.green : c.red;
  const readThem = (q.deadLetter.waiting ?? 1) > 0 ? c.dim('  (lbsync dlq list)') : '';
  return [`queues  reconcile: ${depth(q.reconcile)}; dead letters: ${dead(depth(q.deadLetter))}${readThem}`];
}

function summary(s: StatusSnapshot, c: Colors): string {
  const count = (state: TargetStatus['state']) => s.targets.filter((t) => t.state === state).length;
  const [inSync, pending, failed] = [count('in_sync'), count('pending'), count('failed')];
  const reads = s.targets.reduce((sum, t) => sum + t.apiCalls.reads, 0);
  return (
    `${plural(s.targets.length, 'target')}: ${c.green(`${inSync} in sync`)}, ` +
    `${pending > 0 ? c.yellow(`${pending} pending`) : '0 pending'}, ${failed > 0 ? c.red(`${failed} failed`) : '0 failed'}` +
    c.dim(`  (${plural(reads, 'Scaleway API read')})`)
  );
}

/** The snapshot in parts that change independently: each target, the queues, the summary. */
export interface StatusBlock {
  key: string;
  lines: string[];
}

export function statusBlocks(s: StatusSnapshot, c: Colors): StatusBlock[] {
  return [
    ...s.targets.map((t) => ({ key: `target:${t.target}`, lines: renderTargetStatus(t, c) })),
    ...(s.queues ? [{ key: 'queues', lines: renderQueues(s.queues, c) }] : []),
    { key: 'summary', lines: [summary(s, c)] },
  ];
}

/** The whole snapshot as text: targets apart by a blank line, then the queues and the summary. */
export function renderStatus(s: StatusSnapshot, c: Colors): string[] {
  const blocks = statusBlocks(s, c);
  const targets = blocks.filter((b) => b.key.startsWith('target:'));
  const rest = blocks.filter((b) => !b.key.startsWith('target:'));
  return [...targets.flatMap((b, i) => (i > 0 ? ['', ...b.lines] : b.lines)), '', ...rest.flatMap((b) => b.lines)];
}

/** Home and clear the screen: each refresh on a terminal redraws in place, as `watch` does. */
export const REDRAW = '\u001b[H\u001b[2J';

/** "12:00:05Z": the time of a read, as the logs print it (UTC). */
export function clockOf(at: string): string {
  return `${at.slice(11, 19)}Z`;
}

/** One refresh on a terminal: clear, a header line, the whole snapshot. */
export function terminalFrame(s: StatusSnapshot, c: Colors, everySeconds: number): string {
  const header = c.dim(`lbsync status: every ${everySeconds} s, read at ${clockOf(s.at)} (Ctrl-C to stop)`);
  return `${REDRAW}${header}\n\n${renderStatus(s, c).join('\n')}\n`;
}

/**
 * One refresh off a terminal (a pipe, a file, CI): the blocks that changed since the last one, each first line
 * stamped with the time, as `kubectl get -w` appends a line per change. The first refresh prints everything.
 */
export function appendedLines(previous: readonly StatusBlock[] | undefined, next: readonly StatusBlock[], at: string): string[] {
  const before = new Map((previous ?? []).map((b) => [b.key, b.lines.join('\n')]));
  return next
    .filter((b) => before.get(b.key) !== b.lines.join('\n'))
    .flatMap((b) => [`[${clockOf(at)}] ${b.lines[0] ?? ''}`, ...b.lines.slice(1)]);
}
