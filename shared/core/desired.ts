import type { Target } from '../schemas/target';
import type { DesiredBackend, ObservedServer } from './model';
import { normalisePool } from './pool';

/** Servers on their way out (or off) are not sent traffic; booting ones are, the health check gates them. */
const EXCLUDED_SERVER_STATES = new Set(['stopped', 'stopped in place', 'stopping']);

export interface SkippedServer {
  server: string;
  reason: string;
}

/** A server whose address goes into the pool. */
export interface PoolMember {
  server: string;
  serverId: string;
  ip: string;
}

/** A server with several qualifying addresses: the lowest is taken, the others are named. */
export interface SeveralAddresses {
  server: string;
  chosen: string;
  candidates: string[];
}

/** A server carrying the target's tags that is stopped or stopping: its addresses may leave a pool at once. */
export interface LeavingServer {
  server: string;
  state: string;
  ips: string[];
}

export interface ServerIps {
  ips: string[];
  /** Which server each address comes from. */
  members: PoolMember[];
  skipped: SkippedServer[];
  several: SeveralAddresses[];
  /** Servers with the tags that are stopped or stopping, and their addresses. */
  leaving: LeavingServer[];
}

/** The desired pool of a target as discovery found it. */
export interface DiscoveredPool extends ServerIps {
  /** Always the target's own discovery: an event's serverIps never replaces it (see asserted-ips.ts). */
  source: 'tags';
  serverCount: number;
}

/** Strips the mask IPAM puts on addresses ("10.0.0.2/22" -> "10.0.0.2"). */
export function stripCidr(address: string): string {
  const slash = address.indexOf('/');
  return slash === -1 ? address : address.slice(0, slash);
}

type IpSource = Target['servers']['ipSource'];

const NO_ADDRESS: Record<IpSource, string> = {
  public: 'has no public IPv4 address',
  'ipam-private': 'has no ipam-private IPv4 address',
  kops: "has no routed public IPv4 in IPAM (kOps' GetServerIP would find none)",
};

function candidatesOf(server: ObservedServer, ipSource: IpSource, privateIpsByNic: ReadonlyMap<string, readonly string[]>): string[] {
  switch (ipSource) {
    case 'public':
      return server.publicIpv4;
    case 'kops':
      return server.routedIpv4;
    case 'ipam-private':
      return server.privateNicIds.flatMap((nic) => privateIpsByNic.get(nic) ?? []).map(stripCidr);
  }
}

/**
 * One IP per server, chosen deterministically (the lowest when a server has several).
 * `privateIpsByNic` holds the IPAM addresses of private NICs, for ipSource "ipam-private".
 */
export function selectServerIps(
  servers: readonly ObservedServer[],
  ipSource: IpSource,
  privateIpsByNic: ReadonlyMap<string, readonly string[]> = new Map(),
): ServerIps {
  const members: PoolMember[] = [];
  const skipped: SkippedServer[] = [];
  const several: SeveralAddresses[] = [];
  const leaving: LeavingServer[] = [];
  for (const server of servers) {
    if (EXCLUDED_SERVER_STATES.has(server.state)) {
      skipped.push({ server: server.name, reason: `state is ${server.state}` });
      leaving.push({ server: server.name, state: server.state, ips: normalisePool(candidatesOf(server, ipSource, privateIpsByNic)) });
      continue;
    }
    const candidates = normalisePool(candidatesOf(server, ipSource, privateIpsByNic));
    const ip = candidates[0];
    if (ip === undefined) {
      skipped.push({ server: server.name, reason: NO_ADDRESS[ipSource] });
      continue;
    }
    members.push({ server: server.name, serverId: server.id, ip });
    if (candidates.length > 1) several.push({ server: server.name, chosen: ip, candidates });
  }
  return { ips: normalisePool(members.map((m) => m.ip)), members, skipped, several, leaving };
}

export function desiredBackends(target: Target, pool: readonly string[]): DesiredBackend[] {
  const normalised = normalisePool(pool);
  return target.backends.map((spec) => ({ spec, pool: normalised }));
}
