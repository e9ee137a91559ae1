// One target's lines: each LB, its servers and pool, the private network or kOps' addresses, the backends' health,
// and the plan. Every read is the product's own (findLb, discoverPool, observeBackends, the reconciler's dry run),
// made through the gateway the permission ledger watches: what doctor proves is what the functions will do.
import { callGateway } from '../../shared/adapters/api-failure';
import type { ScalewayGateway } from '../../shared/adapters/scaleway';
import type { DiscoveredPool } from '../../shared/core/desired';
import type { LbPlace } from '../../shared/core/lb-identity';
import { atLb, hasSeveralLbs, targetLbs } from '../../shared/core/lb-identity';
import { discoverPool } from '../../shared/reconcile/discover';
import { findLb } from '../../shared/reconcile/observe';
import type { ReconcileSettings } from '../../shared/reconcile/reconcile-target';
import { reconcileTarget } from '../../shared/reconcile/reconcile-target';
import { IP_SOURCE } from '../../shared/schemas/ip-sources';
import type { Target } from '../../shared/schemas/target';
import { type Check, failedWith, skipped } from './check';
import { unlessKeyRefused } from './key-refused';
import { type Attempt, backendChecks, type LbSeen, privateNetworkCheck } from './lb-checks';
import { planCheck } from './plan-line';
import { kopsParityCheck, lbCheck, serversCheck } from './target-lines';

/** How a per-LB line is named: as ever for a one-LB target; `<what>:<name or id>@<zone>` for each LB of several. */
function lbSuffix(target: Target, place: LbPlace): string {
  return hasSeveralLbs(target) ? `:${'id' in place ? place.id : place.name}@${place.zone}` : '';
}

/**
 * kOps' own address rule reads IPAM (zonal IPv4 per server): for the kops ipSource its `kops-parity` line; for the
 * others the read alone, as the functions' key holds IPAMReadOnly either way (a line only if it fails).
 */
async function ipamChecks(gateway: ScalewayGateway, target: Target, pool: DiscoveredPool | undefined, attempt: Attempt): Promise<Check[]> {
  const at = (what: string) => `target:${target.name}:${what}`;
  const parity = IP_SOURCE[target.servers.ipSource].kopsRule ? 'kops-parity' : 'ipam';
  const members = pool?.members ?? [];
  const ips = await attempt(parity, () =>
    callGateway({
      message: `listing IPAM addresses of ${target.zone}`,
      notFound: 'unknown_api_error',
      run: () =>
        gateway.listZonalIpv4(
          target.zone,
          members.map((m) => m.serverId),
        ),
    }),
  );
  if (!ips || parity !== 'kops-parity') return [];
  return [pool ? kopsParityCheck(at(parity), target, members, ips) : skipped(at(parity), `needs the servers (see ${at('servers')})`)];
}

/** Every line of one target, in order; a refused key (401) stops them (KeyRefused). */
export async function targetChecks(gateway: ScalewayGateway, target: Target, settings: ReconcileSettings): Promise<Check[]> {
  const at = (what: string) => `target:${target.name}:${what}`;
  const checks: Check[] = [];
  const attempt: Attempt = async (name, run) => {
    try {
      return await run();
    } catch (error) {
      // A refused permission is its own failed line too: the iam: line says which.
      checks.push(failedWith(at(name), unlessKeyRefused(error)));
      return undefined;
    }
  };

  const lbs: LbSeen[] = [];
  for (const place of targetLbs(target)) {
    const view = atLb(target, place);
    const suffix = lbSuffix(target, place);
    const found = await attempt(`lb${suffix}`, () => findLb(gateway, view));
    if (found) checks.push(lbCheck(at(`lb${suffix}`), view, found));
    lbs.push({ view, suffix, ...(found && { lb: found.lb }) });
  }
  const pool = await attempt('servers', () => discoverPool(gateway, target));
  if (pool) checks.push(serversCheck(at('servers'), target, pool));
  if (IP_SOURCE[target.servers.ipSource].readsIpam)
    for (const seen of lbs) checks.push(await privateNetworkCheck(at(`private-network${seen.suffix}`), gateway, seen, pool));
  else checks.push(...(await ipamChecks(gateway, target, pool, attempt)));

  let unread: string | undefined;
  for (const seen of lbs) {
    const read = await backendChecks(gateway, seen, at, attempt);
    checks.push(...read.checks);
    unread ??= read.unread;
  }
  if (unread || !pool) return [...checks, skipped(at('plan'), unread ?? `needs the servers (see ${at('servers')})`)];
  // What a reconcile would write: the reconciler itself, as a dry run (reads only).
  return [...checks, planCheck(at('plan'), await reconcileTarget(target, { dryRun: true }, { gateway, ...settings }))];
}
