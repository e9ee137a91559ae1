import { callGateway } from '../adapters/api-failure';
import type { ScalewayGateway } from '../adapters/scaleway';
import type { DiscoveredPool } from '../core/desired';
import { discoveredPool, nicsOnNetwork } from '../core/desired';
import type { ServerScope } from '../core/discovery-check';
import { admitServers } from '../core/discovery-check';
import type { IpamIpView } from '../core/kops-rule';
import { targetLbIdentity } from '../core/lb-identity';
import { regionOf } from '../core/locality';
import type { ObservedServer } from '../core/model';
import { targetPrivateNetwork } from '../core/private-network';
import { kopsMessage } from '../errors/kops-messages';
import { unusablePoolAddress } from '../schemas/backend-address';
import { IP_SOURCE } from '../schemas/ip-sources';
import type { Target } from '../schemas/target';

/** Where the target's servers must be: its tags and zone, and its project (its own, else the deployment's), if any. */
export function serverScope(gateway: Pick<ScalewayGateway, 'projectId'>, target: Target): ServerScope {
  return { zone: target.zone, tags: target.servers.tags, projectId: target.projectId ?? gateway.projectId };
}

/** The two reads discovery makes, each with errors already in its step's words. */
export interface DiscoveryReads {
  servers(): Promise<ObservedServer[]>;
  /** IPAM's addresses of these private NICs (ipam-private); `serverNames` names the servers they are of. */
  privateNicIps(nicIds: string[], serverNames: string[]): Promise<IpamIpView[]>;
}

/**
 * The desired pool from the two reads: the servers carrying all the target's tags, and for ipam-private only the
 * addresses of their NICs on the target's private network. We check the servers again on our side
 * (core/discovery-check.ts): one that is not the target's, or that the answer contradicts itself on, is left out and
 * named.
 */
export async function discoverWith(target: Target, projectId: string | undefined, reads: DiscoveryReads): Promise<DiscoveredPool> {
  const checked = admitServers(await reads.servers(), serverScope({ projectId }, target));
  if (!IP_SOURCE[target.servers.ipSource].readsIpam) return discoveredPool(target.servers, checked, [], unusablePoolAddress);
  const serverNames = checked.admitted.map((s) => s.name);
  const step = kopsMessage.serverIp(serverNames.join(','));
  const privateNetworkId = targetPrivateNetwork(target.servers.privateNetworkId, checked.admitted, targetLbIdentity(target), step);
  const nicIds = checked.admitted.flatMap((s) => nicsOnNetwork(s, privateNetworkId));
  const privateNicIps = await reads.privateNicIps(nicIds, serverNames);
  return discoveredPool({ ...target.servers, privateNetworkId }, checked, privateNicIps, unusablePoolAddress);
}

/** The desired pool, read through the gateway: one ListServers, and for ipam-private one IPAM ListIPs. */
export function discoverPool(gateway: ScalewayGateway, target: Target): Promise<DiscoveredPool> {
  const lb = targetLbIdentity(target);
  return discoverWith(target, gateway.projectId, {
    servers: () =>
      callGateway({
        message: kopsMessage.listServers(),
        notFound: 'unknown_api_error',
        lb,
        run: () => gateway.listServersByTags(target.zone, target.servers.tags),
      }),
    privateNicIps: (nicIds, serverNames) =>
      callGateway({
        message: kopsMessage.serverIp(serverNames.join(',')),
        notFound: 'lb_not_found',
        lb,
        run: () => gateway.listPrivateNicIps(regionOf(target.zone), nicIds),
      }),
  });
}
