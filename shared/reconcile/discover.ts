import type { ScalewayGateway } from '../adapters/scaleway';
import { kopsMessage, wrapApiFailure } from '../api-errors';
import type { LeavingServer, PoolMember, SeveralAddresses, SkippedServer } from '../desired';
import { selectServerIps } from '../desired';
import { normalisePool } from '../pool';
import { targetLbIdentity } from './observe';
import type { LbSyncEvent } from '../schemas/event';
import type { Target } from '../schemas/target';

export interface DiscoveredPool {
  ips: string[];
  source: 'event' | 'tags';
  serverCount: number;
  /** Which server each address comes from (empty when the event gave the pool). */
  members: PoolMember[];
  skipped: SkippedServer[];
  several: SeveralAddresses[];
  /** Servers with the tags that are stopped or stopping, and their addresses. */
  leaving: LeavingServer[];
}

export function regionOf(zone: string): string {
  return zone.replace(/-\d+$/, '');
}

/** The desired pool: the event's explicit serverIps, else the servers carrying all the target's tags. */
export async function discoverPool(gateway: ScalewayGateway, target: Target, event?: Pick<LbSyncEvent, 'serverIps'>): Promise<DiscoveredPool> {
  if (event?.serverIps) {
    return { ips: normalisePool(event.serverIps), source: 'event', serverCount: event.serverIps.length, members: [], skipped: [], several: [], leaving: [] };
  }
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
