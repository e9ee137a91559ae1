// The LB's health check of every pool member, as one doctor line: the gate of every rolling update (shared/core/rollout.ts).
import { filterMismatchWarning } from '../../shared/core/discovery-check';
import type { ObservedBackend, LeftOutAnswer } from '../../shared/core/model';
import { normalisePool } from '../../shared/core/pool';
import type { MemberHealthView } from '../../shared/core/rollout';
import { WARNING_CATALOG } from '../../shared/errors/lbsync-error';
import { type Check, ok, warn } from './check';

/** One backend's members as its health check reports them, and the reports that were not of it. */
export type HealthReport = { backend: ObservedBackend; health: Map<string, MemberHealthView>; leftOut: LeftOutAnswer[] };

/** One address as every backend holding it reports it: `51.15.1.2 passed`, or per backend where they differ. */
function memberLine(ip: string, reports: readonly HealthReport[]): string {
  const holding = reports.filter(({ backend }) => backend.pool.includes(ip));
  const seen = holding.map(({ backend, health }) => ({ backend: backend.name, reported: health.get(ip)?.reported ?? 'no report' }));
  const only = holding.length < reports.length ? ` (${seen.map((s) => s.backend).join(', ')} only)` : '';
  if (new Set(seen.map((s) => s.reported)).size === 1) return `${ip} ${seen[0]?.reported}${only}`;
  return `${ip} ${seen.map((s) => `${s.reported} in ${s.backend}`).join(', ')}`;
}

/** Each address is told once, however many backends hold it. */
export function healthCheck(name: string, reports: readonly HealthReport[]): Check {
  const ips = normalisePool(reports.flatMap(({ backend }) => backend.pool));
  const empty = reports.filter(({ backend }) => backend.pool.length === 0).map(({ backend }) => `${backend.name}: empty pool`);
  const passing = (ip: string) =>
    reports.every(({ backend, health }) => !backend.pool.includes(ip) || health.get(ip)?.condition === 'passing');
  const notPassing = ips.filter((ip) => !passing(ip));
  const backends = reports.map(({ backend }) => backend.name).join(', ');
  const members = [...ips.map((ip) => memberLine(ip, reports)), ...empty].join(', ');
  const leftOut = filterMismatchWarning(reports.flatMap((r) => r.leftOut));
  if (notPassing.length === 0 && !leftOut)
    return ok(name, `every member passes the LB's health check (${backends}): ${members || 'no member'}`);
  if (notPassing.length === 0)
    return warn(
      name,
      `every member passes the LB's health check (${backends}): ${members || 'no member'}; ${leftOut}`,
      WARNING_CATALOG.discovery_filter_mismatch.hint,
    );
  return warn(
    name,
    `not passing: ${notPassing.map((ip) => memberLine(ip, reports)).join(', ')}; passing: ${ips.filter(passing).join(', ') || 'none'} (${backends})${leftOut ? `; ${leftOut}` : ''}`,
    "while a desired member does not pass, members that still serve are not removed (removal_deferred); a failing member of a server that is gone leaves on the next reconcile. Check the server's API and the health-check port",
  );
}
