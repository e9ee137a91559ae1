// Servers that someone else has decided to remove. `kops update cluster` tags every server a rolling update will
// replace with noprefix=kops.k8s.io/needs-update. `kops rolling-update` then takes one control plane at a time: it
// removes the server's address from every backend (DeregisterInstance), drains it for minutes and terminates it.
//
// Such a server is leaving. No reconcile, sweep or event's serverIps adds it to a pool, unless the pool would
// otherwise have no passing member: a doomed server is better than none. If it is already in a pool, it stays there.
// kOps marks all of them at once, so removing them for the mark alone would shrink the pool to one. It leaves when it
// stops or is deleted (desired.ts: stopped and stopping servers), or when someone removes it. A target may name its
// own leaving tags (a maintenance tag); the same rule applies. Pure.
import type { WarningCode } from '../errors/lbsync-error';
import type { MarkedServer } from './desired';
import { canonicalIp, normalisePool } from './pool';
import type { MemberHealthView } from './rollout';

/** The tag `kops update cluster` adds to a server whose spec changed (kOps' scalewaytasks/instance.go, TagNeedsUpdate). */
export const KOPS_NEEDS_UPDATE_TAG = 'noprefix=kops.k8s.io/needs-update';

/** Why a server carrying this leaving tag is leaving: kOps' own mark by what kOps does next; any other by its name. */
export function leavingWhy(tag: string): string {
  return tag === KOPS_NEEDS_UPDATE_TAG ? 'marked needs-update; kOps removes it' : `tagged ${tag}: leaving`;
}

/** stays: in the pool, kept; kept_out: not in it, not added; admitted: added all the same (no other member passes). */
export type LeavingVerdict = 'stays' | 'kept_out' | 'admitted';

/** One leaving server as one backend's pool treats it. */
export interface LeavingMember {
  backend: string;
  server: string;
  ip: string;
  /** Why it is leaving (`marked needs-update; kOps removes it`). */
  why: string;
  verdict: LeavingVerdict;
  /** Why this verdict, in the words plan, status and the answer use. */
  because: string;
}

export interface BackendLeaving {
  backend: string;
  /** The pool this backend should hold: the joining servers, the leaving ones already in it, and the admitted ones. */
  pool: string[];
  leaving: LeavingMember[];
}

export interface LeavingInput {
  backend: string;
  /** The addresses of the servers that are not leaving (discovery's pool). */
  joining: readonly string[];
  marked: readonly MarkedServer[];
  /** The backend's pool as read; undefined when the backend does not exist yet. */
  current: readonly string[] | undefined;
  /** The LB's health of the backend's members, once read (decideLeaving asks for it when it needs it). */
  health?: ReadonlyMap<string, MemberHealthView>;
}

const STAYS = 'stays while it is in the pool: it leaves when it stops or is removed';

/**
 * Which leaving servers one backend's pool keeps or admits. The answer can depend on whether the other members pass
 * their health checks (a leaving server is out of the pool, and others could serve). Then it answers `needs_health`,
 * and the caller reads the backend's health once and asks again.
 */
export function decideLeaving(input: LeavingInput): BackendLeaving | 'needs_health' {
  const { backend, marked, current } = input;
  const member = (m: MarkedServer, verdict: LeavingVerdict, because: string): LeavingMember => ({
    backend,
    server: m.server,
    ip: m.ip,
    why: m.why,
    verdict,
    because,
  });
  const inPool = marked.filter((m) => current?.includes(m.ip));
  const out = marked.filter((m) => !current?.includes(m.ip));
  const base = normalisePool([...input.joining, ...inPool.map((m) => m.ip)]);
  const stays = inPool.map((m) => member(m, 'stays', STAYS));
  const decided = (verdict: LeavingVerdict, because: string): BackendLeaving => ({
    backend,
    pool: verdict === 'admitted' ? normalisePool([...base, ...out.map((m) => m.ip)]) : base,
    leaving: [...stays, ...out.map((m) => member(m, verdict, because))],
  });
  if (out.length === 0) return { backend, pool: base, leaving: stays };
  if (base.length === 0) return decided('admitted', 'added all the same: no other server could serve (better a doomed server than none)');
  // A backend about to be created has no health to read: the servers that are not leaving go in alone.
  if (current === undefined) return decided('kept_out', `not added: ${base.join(', ')} can serve`);
  if (input.health === undefined) return 'needs_health';
  const health = input.health;
  const passing = base.filter((ip) => health.get(ip)?.condition === 'passing');
  if (passing.length === 0)
    return decided('admitted', 'added all the same: no other member passes its health check (better a doomed server than none)');
  return decided('kept_out', `not added back: ${passing.join(', ')} ${passing.length === 1 ? 'passes its' : 'pass their'} health check`);
}

/** The addresses an event's serverIps names that are leaving servers': never written, never retried for. */
export function leavingAssertions(asserted: readonly string[] | undefined, marked: readonly MarkedServer[]): MarkedServer[] {
  if (!asserted || asserted.length === 0) return [];
  const named = new Set(asserted.map(canonicalIp));
  return marked.filter((m) => named.has(canonicalIp(m.ip)));
}

/** The one warning of a reconcile that adds leaving servers because nothing else would pass, or undefined. */
export function admittedLeavingWarning(leaving: readonly LeavingMember[]): string | undefined {
  const admitted = leaving.filter((m) => m.verdict === 'admitted');
  if (admitted.length === 0) return undefined;
  const code: WarningCode = 'leaving_admitted';
  const named = admitted.map((m) => `${m.ip} of server ${m.server} to ${m.backend} (${m.why}): ${m.because}`).join('; ');
  return `[${code}] added leaving server(s): ${named}`;
}

/** One log line per leaving server and backend: `leaving lb-backend-https: 51.15.100.11 (server cp-0, marked ...): not added back: ...`. */
export function describeLeaving(leaving: readonly LeavingMember[]): string[] {
  return leaving.map((m) => `leaving ${m.backend}: ${m.ip} (server ${m.server}, ${m.why}): ${m.because}`);
}
