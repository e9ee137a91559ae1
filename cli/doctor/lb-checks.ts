// One LB's reads beyond finding it: its attachment to the pool's private network, its backends and their health.
// Every read is the product's own step (shared/reconcile), through the gateway the ledger watches.
import type { ScalewayGateway } from '../../shared/adapters/scaleway';
import type { DiscoveredPool } from '../../shared/core/desired';
import type { ObservedLb } from '../../shared/core/model';
import { memberHealth } from '../../shared/core/rollout';
import { assertLbOnNetwork, observeBackends } from '../../shared/reconcile/observe';
import { readBackendHealth } from '../../shared/reconcile/stage-removals';
import type { Target } from '../../shared/schemas/target';
import { type Check, fail, ok, skipped } from './check';
import { type HealthReport, healthCheck } from './health-line';
import { unlessKeyRefused } from './key-refused';

/** Runs one check's reads; a failure comes back undefined, told as its own failed line. */
export type Attempt = <T>(name: string, run: () => Promise<T>) => Promise<T | undefined>;

/** One LB of a target, as its own steps see it (`view`: its zone), the suffix of its lines, and what was found of it. */
export interface LbSeen {
  view: Target;
  suffix: string;
  lb?: ObservedLb;
}

/**
 * ipam-private: the LB's attachment to the private network the pool's addresses are on (ListLbPrivateNetworks), the
 * check a reconcile makes before it writes; its code is in the line, as a reconcile's answer carries it.
 */
export async function privateNetworkCheck(
  name: string,
  gateway: ScalewayGateway,
  { view, lb }: LbSeen,
  pool: DiscoveredPool | undefined,
): Promise<Check> {
  if (!lb) return skipped(name, `needs the load balancer (see ${name.replace(/private-network$/, 'lb')})`);
  if (!pool) return skipped(name, `needs the servers (see ${name.replace(/private-network$/, 'servers')})`);
  const network = pool.privateNetworkId;
  if (network === undefined) return skipped(name, 'no server of the target has a private NIC: no private network to check');
  try {
    await assertLbOnNetwork(gateway, view.zone, lb, network);
    return ok(name, `${lb.name} is attached to private network ${network} (ready): it reaches the pool's addresses there`);
  } catch (error) {
    const failure = unlessKeyRefused(error);
    return fail(name, `[${failure.code}] ${failure.message}`, failure.hint);
  }
}

/** One LB's backends and the health of their members (its `backends` and `health` lines); why not, when unread. */
export async function backendChecks(
  gateway: ScalewayGateway,
  { view, suffix, lb }: LbSeen,
  at: (what: string) => string,
  attempt: Attempt,
): Promise<{ checks: Check[]; unread?: string }> {
  const backends = lb && (await attempt(`backends${suffix}`, async () => [...(await observeBackends(gateway, view, lb)).byName.values()]));
  const name = at(`health${suffix}`);
  if (!backends) {
    const unread = lb ? `needs the backends (see ${at(`backends${suffix}`)})` : `needs the load balancer (see ${at(`lb${suffix}`)})`;
    return { checks: [skipped(name, unread)], unread };
  }
  if (backends.length === 0) {
    const names = view.backends.map((b) => b.name).join(', ');
    return { checks: [skipped(name, `nothing to check, the LB has none of the target's backends yet (${names})`)] };
  }
  const reports = await attempt(`health${suffix}`, async () => {
    const read: HealthReport[] = [];
    for (const backend of backends) {
      const { reports: own, leftOut } = await readBackendHealth(gateway, view, lb, backend.id);
      read.push({ backend, health: memberHealth(own), leftOut });
    }
    return read;
  });
  return { checks: reports ? [healthCheck(name, reports)] : [] };
}
