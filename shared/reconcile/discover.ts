import { wrapApiFailure } from '../adapters/api-failure';
import type { ScalewayGateway } from '../adapters/scaleway';
import type { DiscoveredPool } from '../core/desired';
import type { ObservedServer } from '../core/model';
import { selectServerIps } from '../core/desired';
import { targetLbIdentity } from '../core/lb-identity';
import { regionOf } from '../core/locality';
import { kopsMessage } from '../errors/kops-messages';
import type { Target } from '../schemas/target';

/** The desired pool: the addresses of the servers carrying all the target's tags. */
export async function discoverPool(gateway: ScalewayGateway, target: Target): Promise<DiscoveredPool> {
  let servers: ObservedServer[];
  try {
    servers = await gateway.listServersByTags(target.zone, target.servers.tags);
  } catch (error) {
    throw wrapApiFailure(kopsMessage.listServers(), error, 'unknown_api_error', targetLbIdentity(target));
  }
  let privateIps: Map<string, string[]> | undefined;
  if (target.servers.ipSource === 'ipam-private') {
    const nicIds = servers.flatMap((s) => s.privateNicIds);
    try {
      privateIps = await gateway.listPrivateIpsByNic(regionOf(target.zone), nicIds);
    } catch (error) {
      throw wrapApiFailure(kopsMessage.serverIp(servers.map((s) => s.name).join(',')), error, 'lb_not_found', targetLbIdentity(target));
    }
  }
  const { ips, members, skipped, several, leaving } = selectServerIps(servers, target.servers.ipSource, privateIps);
  return { ips, source: 'tags', serverCount: servers.length, members, skipped, several, leaving };
}
