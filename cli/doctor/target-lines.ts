// What one target's reads say, as doctor's lines: its LB, its servers and the pool they give, kOps' own addresses.
import type { DiscoveredPool, PoolMember } from '../../shared/core/desired';
import { addressChoiceNotes, unusableAddressWarning } from '../../shared/core/desired';
import { contradictionWarning, filterMismatchWarning } from '../../shared/core/discovery-check';
import type { IpamIpView } from '../../shared/core/kops-rule';
import { kopsServerIp } from '../../shared/core/kops-rule';
import { TRANSIENT_LB_STATUSES } from '../../shared/core/model';
import { ERROR_CATALOG, WARNING_CATALOG } from '../../shared/errors/lbsync-error';
import type { FoundLb } from '../../shared/reconcile/observe';
import type { Target } from '../../shared/schemas/target';
import { type Check, fail, ok, skipped, warn } from './check';

export function lbCheck(name: string, target: Target, { lb, leftOut }: FoundLb): Check {
  const how = target.loadBalancer && 'id' in target.loadBalancer ? 'found by id' : `the only LB named exactly so in ${target.zone}`;
  const what = `${lb.name} (${lb.id}) is ${lb.status}`;
  const mismatch = filterMismatchWarning(leftOut);
  if (lb.status === 'ready' && mismatch) return warn(name, `${what}; ${how}; ${mismatch}`, WARNING_CATALOG.discovery_filter_mismatch.hint);
  if (lb.status === 'ready') return ok(name, `${what}; ${how}`);
  if ((TRANSIENT_LB_STATUSES as readonly string[]).includes(lb.status))
    return warn(name, `${what}: writes wait until it is ready again`, ERROR_CATALOG.lb_transient_state.hint);
  return fail(name, `${what}: nothing can be written`, ERROR_CATALOG.lb_not_ready.hint);
}

export function serversCheck(name: string, target: Target, pool: DiscoveredPool): Check {
  const notes = [
    filterMismatchWarning(pool.leftOut),
    contradictionWarning(pool.contradicted),
    unusableAddressWarning(pool.unusable),
    ...pool.skipped.map((s) => `${s.server} left out: ${s.reason}`),
    ...addressChoiceNotes(pool, target.servers.ipSource),
  ].filter((line) => line !== undefined);
  const leaving = pool.marked.map((m) => `${m.server} (${m.ip}) leaving: ${m.why}, never added back while another member passes`);
  const detail = [
    `${pool.serverCount} server(s) carry ${target.servers.tags.join(' + ')}; the pool would be [${pool.ips.join(', ')}] (ipSource ${target.servers.ipSource})`,
    ...leaving,
  ].join('; ');
  if (pool.ips.length === 0 && pool.marked.length === 0 && !target.allowEmptyPool)
    return fail(name, [detail, ...notes].join('; '), ERROR_CATALOG.no_servers.hint);
  if (pool.leftOut.length > 0) return warn(name, `${detail}; ${notes.join('; ')}`, WARNING_CATALOG.discovery_filter_mismatch.hint);
  if (pool.contradicted.length > 0) return warn(name, `${detail}; ${notes.join('; ')}`, WARNING_CATALOG.contradictory_answer.hint);
  if (notes.length > 0) return warn(name, `${detail}; ${notes.join('; ')}`);
  return ok(name, detail);
}

/** For the kops ipSource: the address kOps' own GetServerIP would take for each server, from IPAM. */
export function kopsParityCheck(name: string, target: Target, members: readonly PoolMember[], ips: readonly IpamIpView[]): Check {
  if (members.length === 0) return skipped(name, 'no server gives an address to compare with what kOps would write');
  const differing = members.flatMap((m) => {
    const theirs = kopsServerIp(m.serverId, target.zone, ips);
    return theirs === m.ip ? [] : [`${m.server}: ours ${m.ip}, kOps' ${theirs ?? 'none (kOps would fail: could not find IP for server)'}`];
  });
  if (differing.length > 0) {
    return warn(
      name,
      `kOps' GetServerIP (IPAM, zonal IPv4) would write other addresses: ${differing.join('; ')}`,
      "kOps and scw-lb-sync would rewrite each other's pool on every `kops update cluster`; see docs/kops-parity.md",
    );
  }
  return ok(name, `the ${members.length} address(es) are the ones kOps' GetServerIP reads from IPAM for the same servers`);
}
