import type { ScalewayGateway } from '../adapters/scaleway';
import { kopsMessage, wrapApiFailure } from '../adapters/api-failure';
import type { LeavingServer, PoolMember, SeveralAddresses, SkippedServer } from '../core/desired';
import { selectServerIps } from '../core/desired';
import { targetLbIdentity } from './observe';
import type { Target } from '../schemas/target';

export interface DiscoveredPool {
  ips: string[];
  /** Always the target's own discovery: an event's serverIps never replaces it (see asserted-ips.ts). */
  source: 'tags';
  serverCount: number;
  /** Which server each address comes from. */
  members: PoolMember[];
  skipped: SkippedServer[];
  several: SeveralAddresses[];
  /** Servers with the tags that are stopped or stopping, and their addresses. */
  leaving: LeavingServer[];
}

export function regionOf(zone: string): string {
  return zone.replace(/-\d+$/, '');
}

/** The desired pool: the addresses of the servers carrying all the target's tags. */
export async function discoverPool(gateway: ScalewayGateway, target: Target): Promise<DiscoveredPool> {
  let servers;
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
