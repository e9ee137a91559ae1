/**
 * Rolling-update safety for one backend's pool write, as a pure policy. Given the current pool, the pool discovery
 * wants and the LB's health checks of the members, it decides which members may leave in this write and which must
 * wait. The rule is make-before-break:
 * - A member leaves freely if the LB reports it failing, or if discovery lists its server as stopped or stopping.
 * - Any other member may still be serving: unknown, neutral, condpass, mixed or missing reports count as serving,
 *   the safe reading when counting how many may leave. Such a member leaves only when every member of the desired
 *   pool reports strictly `passed`, the safe reading of "is the replacement ready". Even then, at most
 *   `maxUnavailable` leave per write, never the last passing member, and none while discovery looks partial (it
 *   finds fewer than half of the members still serving) unless the target trusts partial discovery.
 * - Additions are never deferred. The first write is current ∪ new; the removals follow once it is safe.
 * The caller retries what is deferred (removal_deferred / discovery_suspect).
 */
import type { ObservedMemberHealth } from './model';
import { canonicalIp, compareIps, normalisePool } from './pool';

/** How the LB's instances, together, see one member. */
export type MemberCondition = 'passing' | 'failing' | 'unsettled';

export interface MemberHealthView {
  condition: MemberCondition;
  /** What the LB reported, e.g. "passed", "failed", "unknown", "passed/failed" (instances disagree), "no report". */
  reported: string;
}

/**
 * Folds every LB instance's report of each address into one view: passing only if every report says
 * `passed`, failing only if every report says `failed`, anything else unsettled. Keyed by the address in the
 * pool's spelling (an IPv6 the LB reports otherwise is the same member).
 */
export function memberHealth(stats: readonly ObservedMemberHealth[]): Map<string, MemberHealthView> {
  const byIp = new Map<string, string[]>();
  for (const s of stats) {
    const ip = canonicalIp(s.ip);
    byIp.set(ip, [...(byIp.get(ip) ?? []), s.status]);
  }
  return new Map(
    [...byIp].map(([ip, statuses]) => {
      const distinct = [...new Set(statuses)].sort();
      const condition: MemberCondition =
        distinct.length === 1 && distinct[0] === 'passed'
          ? 'passing'
          : distinct.length === 1 && distinct[0] === 'failed'
            ? 'failing'
            : 'unsettled';
      return [ip, { condition, reported: distinct.join('/') }];
    }),
  );
}

const NO_REPORT: MemberHealthView = { condition: 'unsettled', reported: 'no report' };

export interface RolloutInput {
  /** The backend's pool as read. */
  current: readonly string[];
  /** The pool discovery wants. */
  desired: readonly string[];
  /** The LB's view of each address (an address it does not report counts as unsettled). */
  health: ReadonlyMap<string, MemberHealthView>;
  /** Addresses of servers discovery lists as stopped or stopping, with why (e.g. "server cp-1 is stopping"). */
  leaving: ReadonlyMap<string, string>;
  maxUnavailable: number;
  trustPartialDiscovery: boolean;
}

/** One address and why it goes now, or why it stays for now. */
export interface MemberVerdict {
  ip: string;
  why: string;
}

/** One pool write of the way from the current pool to the desired one. */
export interface RolloutStage {
  /** "now" for this reconcile's write; else the condition that lets it happen. */
  when: string;
  pool: string[];
  added: string[];
  removed: string[];
}

export type DeferralCode = 'discovery_suspect' | 'removal_deferred';

export interface Rollout {
  /** The pool this reconcile writes (the current pool when nothing is to be written now). */
  pool: string[];
  added: string[];
  removed: MemberVerdict[];
  /** Members that should go but stay for now. */
  deferred: MemberVerdict[];
  /** Why removals are deferred: the error code the caller retries with, and a sentence for the log. */
  deferral?: { code: DeferralCode; reason: string };
  /** This write (when there is one) and the writes still to come, assuming the health checks pass. */
  stages: RolloutStage[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function healthOf(input: RolloutInput, ip: string): MemberHealthView {
  return input.health.get(ip) ?? NO_REPORT;
}

/** Why a member that should go may go at once, or undefined when it may still be serving. */
function downBecause(input: RolloutInput, ip: string): string | undefined {
  const leaving = input.leaving.get(ip);
  if (leaving) return leaving;
  if (healthOf(input, ip).condition === 'failing') return "the LB's health check fails it";
  return undefined;
}

function servingText(view: MemberHealthView): string {
  return view.condition === 'passing' ? 'passes its health check' : `health check ${view.reported}, counted as passing`;
}

/** Members likeliest not to be serving go first: unsettled before passing, then in address order. */
function removalOrder(input: RolloutInput): (a: string, b: string) => number {
  const rank = (ip: string) => (healthOf(input, ip).condition === 'passing' ? 1 : 0);
  return (a, b) => rank(a) - rank(b) || compareIps(a, b);
}

/** The rollout of one backend's pool: what this write does and what waits. Pure. */
export function planRollout(input: RolloutInput): Rollout {
  const current = normalisePool(input.current);
  const desired = normalisePool(input.desired);
  const wanted = new Set(desired);
  const added = desired.filter((ip) => !current.includes(ip));
  const leavingMembers = current.filter((ip) => !wanted.has(ip));

  const removed: MemberVerdict[] = [];
  const candidates: string[] = [];
  for (const ip of leavingMembers) {
    const why = downBecause(input, ip);
    if (why) removed.push({ ip, why });
    else candidates.push(ip);
  }
  candidates.sort(removalOrder(input));

  const serving = current.filter((ip) => !downBecause(input, ip));
  const found = serving.filter((ip) => wanted.has(ip)).length;
  const suspect = !input.trustPartialDiscovery && candidates.length > 0 && found * 2 < serving.length;
  const notReady = desired.filter((ip) => healthOf(input, ip).condition !== 'passing');

  const deferred: MemberVerdict[] = [];
  let deferral: Rollout['deferral'];
  if (candidates.length > 0 && suspect) {
    const reason =
      `discovery found ${found} of the ${plural(serving.length, 'member')} still serving (fewer than half): a partial listing or lost tags look the same as ` +
      'a real shrink, so no serving member is removed in this reconcile (trustPartialDiscovery: true allows it)';
    deferral = { code: 'discovery_suspect', reason };
    for (const ip of candidates) deferred.push({ ip, why: `${servingText(healthOf(input, ip))}; ${reason}` });
  } else if (candidates.length > 0 && notReady.length > 0) {
    const reason = `make-before-break: waiting until ${notReady.join(', ')} ${notReady.length === 1 ? 'passes' : 'pass'} the LB's health check`;
    deferral = { code: 'removal_deferred', reason };
    for (const ip of candidates) deferred.push({ ip, why: `${servingText(healthOf(input, ip))}; ${reason}` });
  } else if (candidates.length > 0) {
    // Every desired member passes and stays, so the count of passing members left after the write starts with them.
    let passingLeft = desired.length + candidates.filter((ip) => healthOf(input, ip).condition === 'passing').length;
    let taken = 0;
    for (const ip of candidates) {
      const view = healthOf(input, ip);
      const passing = view.condition === 'passing';
      if (taken >= input.maxUnavailable) {
        const reason =
          input.maxUnavailable === 0
            ? 'maxUnavailable 0: a serving member is never removed; it goes once its health check fails'
            : `maxUnavailable ${input.maxUnavailable}: at most ${plural(input.maxUnavailable, 'serving member')} ${input.maxUnavailable === 1 ? 'leaves' : 'leave'} per write`;
        deferral ??= { code: 'removal_deferred', reason };
        deferred.push({ ip, why: `${servingText(view)}; ${reason}` });
      } else if (passing && passingLeft <= 1) {
        const reason = 'the last passing member is never removed';
        deferral ??= { code: 'removal_deferred', reason };
        deferred.push({ ip, why: `${servingText(view)}; ${reason}` });
      } else {
        taken += 1;
        if (passing) passingLeft -= 1;
        removed.push({
          ip,
          why: `${servingText(view)}; every desired member passes, ${taken} of at most ${input.maxUnavailable} serving member(s) leaving in this write`,
        });
      }
    }
  }

  const gone = new Set(removed.map((r) => r.ip));
  const pool = normalisePool([...current.filter((ip) => !gone.has(ip)), ...added]);
  const stages: RolloutStage[] = [];
  if (added.length > 0 || removed.length > 0) stages.push({ when: 'now', pool, added, removed: removed.map((r) => r.ip).sort(compareIps) });
  stages.push(
    ...laterStages(
      input,
      pool,
      deferred.map((d) => d.ip),
      notReady,
      suspect,
    ),
  );
  return { pool, added, removed: [...removed].sort((a, b) => compareIps(a.ip, b.ip)), deferred, ...(deferral && { deferral }), stages };
}

/** The writes still to come once the deferral ends, if every desired member passes by then. */
function laterStages(input: RolloutInput, from: string[], waiting: string[], notReady: string[], suspect: boolean): RolloutStage[] {
  const stages: RolloutStage[] = [];
  if (waiting.length === 0) return stages;
  if (input.maxUnavailable === 0) {
    return [
      {
        when: 'once their health checks fail (maxUnavailable 0)',
        pool: from.filter((ip) => !waiting.includes(ip)),
        added: [],
        removed: [...waiting],
      },
    ];
  }
  const first = suspect
    ? 'once discovery finds at least half of the serving members again (or with trustPartialDiscovery: true)'
    : notReady.length > 0
      ? `once ${notReady.join(', ')} ${notReady.length === 1 ? 'passes' : 'pass'} the LB's health check`
      : 'on the next reconcile';
  let pool = from;
  let rest = [...waiting];
  // Desired members are assumed passing by then; the last passing member is never removed.
  const keepOne = input.desired.length === 0;
  while (rest.length > (keepOne ? 1 : 0)) {
    const batch = rest.slice(0, Math.min(input.maxUnavailable, rest.length - (keepOne ? 1 : 0)));
    rest = rest.slice(batch.length);
    pool = pool.filter((ip) => !batch.includes(ip));
    stages.push({
      when: stages.length === 0 ? first : `on the next reconcile (maxUnavailable ${input.maxUnavailable})`,
      pool,
      added: [],
      removed: batch,
    });
  }
  if (rest.length > 0)
    stages.push({
      when: 'not by this tool: the last passing member is never removed (remove it by hand)',
      pool: pool.filter((ip) => !rest.includes(ip)),
      added: [],
      removed: rest,
    });
  return stages;
}

/** One backend's rollout, and the LB's health of its members as read (none when no read was needed). */
export interface BackendRollout {
  backend: string;
  rollout: Rollout;
  health: Record<string, MemberHealthView>;
}
