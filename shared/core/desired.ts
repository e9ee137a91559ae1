import type { Target } from '../schemas/target';
import type { WarningCode } from '../errors/lbsync-error';
import { admitPrivateIps } from './discovery-check';
import type { IpamIpView } from './kops-rule';
import type { DesiredBackend, ObservedServer, RefusedAnswer } from './model';
import { leavingWhy } from './leaving';
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

/**
 * A running server carrying one of the target's leaving tags (kOps' needs-update: it will be replaced): never added
 * to a pool, kept while it is in one (shared/core/leaving.ts decides per backend).
 */
export interface MarkedServer {
  server: string;
  serverId: string;
  ip: string;
  /** The leaving tag it carries. */
  tag: string;
  /** Why it is leaving, as plan, status and the answer tell it: `marked needs-update; kOps removes it`. */
  why: string;
}

/** An address the API gave for a server that no pool may hold (not a unicast IPv4 address): left out, and why. */
export interface UnusableAddress {
  server: string;
  ip: string;
  why: string;
}

/**
 * Why an address an API gave cannot go into a pool, or undefined when it can. The shells pass
 * `unusablePoolAddress` (shared/schemas/backend-address.ts), the rules every backend address is held to.
 */
export type AddressCheck = (ip: string) => string | undefined;

export interface ServerIps {
  ips: string[];
  /** Which server each address comes from. */
  members: PoolMember[];
  skipped: SkippedServer[];
  several: SeveralAddresses[];
  /** Servers with the tags that are stopped or stopping, and their addresses. */
  leaving: LeavingServer[];
  /** Running servers with the tags that carry a leaving tag: not in `ips` (nor `members`), see core/leaving.ts. */
  marked: MarkedServer[];
  /** Addresses left out because no pool may hold them. */
  unusable: UnusableAddress[];
}

/** The desired pool of a target as discovery found it. */
export interface DiscoveredPool extends ServerIps {
  /** Always the target's own discovery: an event's serverIps never replaces it (see asserted-ips.ts). */
  source: 'tags';
  /** The servers that are the target's (discovery-check.ts), whatever their state or addresses. */
  serverCount: number;
  /** What the API answered that is not the target's: servers, IPAM addresses (discovery-check.ts). */
  refused: RefusedAnswer[];
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
 * One IP per server, chosen deterministically (the lowest when a server has several), among the addresses
 * `check` lets through. `privateIpsByNic` holds the IPAM addresses of private NICs, for ipSource "ipam-private".
 * A running server carrying one of `leavingTags` is `marked`, not a member.
 */
export function selectServerIps(
  servers: readonly ObservedServer[],
  ipSource: IpSource,
  privateIpsByNic: ReadonlyMap<string, readonly string[]>,
  check: AddressCheck,
  leavingTags: readonly string[] = [],
): ServerIps {
  const members: PoolMember[] = [];
  const marked: MarkedServer[] = [];
  const skipped: SkippedServer[] = [];
  const several: SeveralAddresses[] = [];
  const leaving: LeavingServer[] = [];
  const unusable: UnusableAddress[] = [];
  const usable = (server: ObservedServer): string[] =>
    normalisePool(candidatesOf(server, ipSource, privateIpsByNic)).filter((ip) => {
      const why = check(ip);
      if (why !== undefined) unusable.push({ server: server.name, ip, why });
      return why === undefined;
    });
  for (const server of servers) {
    const candidates = usable(server);
    if (EXCLUDED_SERVER_STATES.has(server.state)) {
      skipped.push({ server: server.name, reason: `state is ${server.state}` });
      leaving.push({ server: server.name, state: server.state, ips: candidates });
      continue;
    }
    const ip = candidates[0];
    if (ip === undefined) {
      skipped.push({ server: server.name, reason: NO_ADDRESS[ipSource] });
      continue;
    }
    if (candidates.length > 1) several.push({ server: server.name, chosen: ip, candidates });
    const tag = leavingTags.find((t) => server.tags.includes(t));
    if (tag !== undefined) {
      marked.push({ server: server.name, serverId: server.id, ip, tag, why: leavingWhy(tag) });
      continue;
    }
    members.push({ server: server.name, serverId: server.id, ip });
  }
  return { ips: normalisePool(members.map((m) => m.ip)), members, skipped, several, leaving, marked, unusable };
}

/**
 * The desired pool from discovery's answers, checked: the servers admitServers found to be the target's (and those
 * it refused), and for ipam-private IPAM's answer for their private NICs, itself checked by admitPrivateIps.
 */
export function discoveredPool(
  ipSource: IpSource,
  servers: { admitted: readonly ObservedServer[]; refused: readonly RefusedAnswer[] },
  privateNicIps: readonly IpamIpView[],
  check: AddressCheck,
  leavingTags: readonly string[] = [],
): DiscoveredPool {
  const ipam = admitPrivateIps(
    privateNicIps,
    servers.admitted.flatMap((s) => s.privateNicIds),
  );
  return {
    ...selectServerIps(servers.admitted, ipSource, ipam.byNic, check, leavingTags),
    source: 'tags',
    serverCount: servers.admitted.length,
    refused: [...servers.refused, ...ipam.refused],
  };
}

/** The one warning of a reconcile for every address left out as unusable, or undefined when there is none. */
export function unusableAddressWarning(unusable: readonly UnusableAddress[]): string | undefined {
  if (unusable.length === 0) return undefined;
  const named = unusable.map((u) => `${u.ip} of server ${u.server} ${u.why}`).join('; ');
  const code: WarningCode = 'unusable_address';
  return `[${code}] left out of the pool: ${named}`;
}

export function desiredBackends(target: Target, pool: readonly string[]): DesiredBackend[] {
  const normalised = normalisePool(pool);
  return target.backends.map((spec) => ({ spec, pool: normalised }));
}
