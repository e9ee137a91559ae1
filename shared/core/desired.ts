import type { AddressFamily } from '../schemas/backend-address';
import { IP_SOURCE, type IpSource } from '../schemas/ip-sources';
import type { Target } from '../schemas/target';
import type { WarningCode } from '../errors/lbsync-error';
import { admitPrivateIps } from './discovery-check';
import { type IpamIpView, stripCidr } from './kops-rule';
import type { DesiredBackend, ObservedServer, LeftOutAnswer } from './model';
import { leavingWhy } from './leaving';
import { compareIps, normalisePool } from './pool';

/** The states of a server that may take traffic: running, or booting (the LB's health check gates it). */
const SERVING_STATES = new Set(['running', 'starting']);

/** Servers on their way off: not sent traffic, and their addresses may leave a pool at once. */
const STOPPED_STATES = new Set(['stopped', 'stopped in place', 'stopping']);

/**
 * Why a server in any other state takes no new traffic. `locked` is Scaleway's own lock: the Terraform provider
 * answers "server is locked, please contact Scaleway support", and the Go SDK's WaitForServer stops waiting on it.
 * No user action changes it, and only the LB's health check can tell whether the server still serves. So a locked
 * server is never added. One already in a pool leaves like a serving member: once the others pass their checks, and
 * never the last passing one.
 */
function notServingReason(state: string): string {
  if (state === 'locked')
    return 'state is locked (a lock only Scaleway support lifts): never added; in a pool it leaves once the other members pass their health checks';
  return `state is ${state === '' ? 'empty' : state}, neither running nor starting: never added; in a pool it leaves once the other members pass their health checks`;
}

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

/** A server with several qualifying addresses of one family: the lowest is taken, the others are named. */
export interface SeveralAddresses {
  server: string;
  family: AddressFamily;
  chosen: string;
  candidates: string[];
}

/** public-dual: a server in the pool by one family only, as it has no usable address of the other. */
export interface OneFamily {
  server: string;
  has: AddressFamily;
  lacks: AddressFamily;
}

/** A server carrying the target's tags that is stopped or stopping: its addresses may leave a pool at once. */
export interface LeavingServer {
  server: string;
  state: string;
  ips: string[];
}

/**
 * A running server carrying one of the target's leaving tags (kOps' needs-update: it will be replaced): never added
 * to a pool, kept while it is in one (shared/core/leaving.ts decides per backend). A dual-stack one is marked once
 * per address.
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

/** An address the API gave for a server that cannot be a pool member (not a unicast address of its family), and why. */
export interface UnusableAddress {
  server: string;
  ip: string;
  why: string;
}

/**
 * Why an address an API gave cannot go into a pool as an address of this family, or undefined when it can. The
 * shells pass `unusablePoolAddress` (shared/schemas/backend-address.ts): the rules every backend address must meet.
 */
export type AddressCheck = (ip: string, family: AddressFamily) => string | undefined;

export interface ServerIps {
  ips: string[];
  /** Which server each address comes from. */
  members: PoolMember[];
  skipped: SkippedServer[];
  several: SeveralAddresses[];
  /** public-dual: servers in the pool by one family only. */
  oneFamily: OneFamily[];
  /** Servers with the tags that are stopped or stopping, and their addresses. */
  leaving: LeavingServer[];
  /** Running servers with the tags that carry a leaving tag: not in `ips` (nor `members`), see core/leaving.ts. */
  marked: MarkedServer[];
  /** Addresses left out because they cannot be pool members. */
  unusable: UnusableAddress[];
}

/** The desired pool of a target as discovery found it. */
export interface DiscoveredPool extends ServerIps {
  /** Always the target's own discovery: an event's serverIps never replaces it (see asserted-ips.ts). */
  source: 'tags';
  /** The servers that are the target's (discovery-check.ts), whatever their state or addresses. */
  serverCount: number;
  /** What the API answered that is not the target's: servers, IPAM addresses (discovery-check.ts). */
  leftOut: LeftOutAnswer[];
  /** Servers the answer listed more than once, differently: left out (discovery-check.ts, `oneCopyPerServer`). */
  contradicted: LeftOutAnswer[];
  /** ipam-private: the private network whose NIC addresses were taken, which the LB must be attached to. */
  privateNetworkId?: string;
}

/** How a target picks its servers' addresses: the ipSource, and for ipam-private the private network. */
export interface AddressSource {
  ipSource: IpSource;
  /** ipam-private: only the address of the NIC on this private network (the target's, or the one its servers share). */
  privateNetworkId?: string | undefined;
}

function noAddress(source: AddressSource): string {
  const { noAddress: said, readsIpam } = IP_SOURCE[source.ipSource];
  return readsIpam && source.privateNetworkId !== undefined ? `${said} on private network ${source.privateNetworkId}` : said;
}

/** The private NICs of a server whose IPAM addresses count: those on the target's private network, when it has one. */
export function nicsOnNetwork(server: ObservedServer, privateNetworkId: string | undefined): string[] {
  return server.privateNics
    .filter((nic) => privateNetworkId === undefined || nic.privateNetworkId === privateNetworkId)
    .map((nic) => nic.id);
}

/** The server's addresses of the ipSource and family; a public address the answer does not say is attached is set aside, with why. */
function candidatesOf(
  server: ObservedServer,
  source: AddressSource,
  family: AddressFamily,
  privateIpsByNic: ReadonlyMap<string, readonly string[]>,
  notAttached: (ip: string, state: string) => void,
): string[] {
  const attached = (ips: readonly string[]) =>
    ips.filter((ip) => {
      const state = server.ipStates[ip] ?? 'none';
      if (state !== 'attached') notAttached(ip, state);
      return state === 'attached';
    });
  switch (IP_SOURCE[source.ipSource].candidates) {
    case 'public':
      return attached(family === 4 ? server.publicIpv4 : server.publicIpv6);
    case 'routed-ipv4':
      return attached(server.routedIpv4);
    case 'private-nics':
      return nicsOnNetwork(server, source.privateNetworkId)
        .flatMap((nic) => privateIpsByNic.get(nic) ?? [])
        .map(stripCidr);
  }
}

/**
 * Picks one IP per server for each family the ipSource takes, among the addresses `check` lets through. The pick is
 * deterministic: the lowest, when a server has several. `privateIpsByNic` maps private NICs to their IPAM addresses,
 * for ipSource "ipam-private". Only a running or starting server is a candidate. A running server carrying one of
 * `leavingTags` is `marked`, not a member. A public address counts only if the answer says it is attached.
 */
export function selectServerIps(
  servers: readonly ObservedServer[],
  ipSource: IpSource | AddressSource,
  privateIpsByNic: ReadonlyMap<string, readonly string[]>,
  check: AddressCheck,
  leavingTags: readonly string[] = [],
): ServerIps {
  const source = typeof ipSource === 'string' ? { ipSource } : ipSource;
  // public-dual puts both addresses of a dual-stack server in the pool, as two members (docs/reconcile.md, "IPv6 and dual-stack pools").
  const { families } = IP_SOURCE[source.ipSource];
  const members: PoolMember[] = [];
  const marked: MarkedServer[] = [];
  const skipped: SkippedServer[] = [];
  const several: SeveralAddresses[] = [];
  const oneFamily: OneFamily[] = [];
  const leaving: LeavingServer[] = [];
  const unusable: UnusableAddress[] = [];
  const usable = (server: ObservedServer, family: AddressFamily): string[] => {
    const notAttached = (ip: string, state: string) =>
      unusable.push({ server: server.name, ip, why: `is ${state === 'none' ? 'of no stated state' : state}, not attached to it` });
    // Check the addresses as the API spelled them, so one left out is named that way; then normalise them for the pool.
    const candidates = [...new Set(candidatesOf(server, source, family, privateIpsByNic, notAttached))].sort(compareIps);
    return normalisePool(
      candidates.filter((ip) => {
        const why = check(ip, family);
        if (why !== undefined) unusable.push({ server: server.name, ip, why });
        return why === undefined;
      }),
    );
  };
  for (const server of servers) {
    if (STOPPED_STATES.has(server.state)) {
      skipped.push({ server: server.name, reason: `state is ${server.state}` });
      leaving.push({ server: server.name, state: server.state, ips: families.flatMap((family) => usable(server, family)) });
      continue;
    }
    if (!SERVING_STATES.has(server.state)) {
      skipped.push({ server: server.name, reason: notServingReason(server.state) });
      continue;
    }
    const chosen: string[] = [];
    const lacking: AddressFamily[] = [];
    for (const family of families) {
      const candidates = usable(server, family);
      const ip = candidates[0];
      if (ip === undefined) {
        lacking.push(family);
        continue;
      }
      chosen.push(ip);
      if (candidates.length > 1) several.push({ server: server.name, family, chosen: ip, candidates });
    }
    if (chosen.length === 0) {
      skipped.push({ server: server.name, reason: noAddress(source) });
      continue;
    }
    for (const lacks of lacking) oneFamily.push({ server: server.name, has: lacks === 4 ? 6 : 4, lacks });
    const tag = leavingTags.find((t) => server.tags.includes(t));
    if (tag !== undefined) {
      for (const ip of chosen) marked.push({ server: server.name, serverId: server.id, ip, tag, why: leavingWhy(tag) });
      continue;
    }
    for (const ip of chosen) members.push({ server: server.name, serverId: server.id, ip });
  }
  return { ips: normalisePool(members.map((m) => m.ip)), members, skipped, several, oneFamily, leaving, marked, unusable };
}

/**
 * The desired pool from discovery's checked answers. It takes the servers admitServers found to be the target's, and
 * reports those it left out or found contradicted. For ipam-private it also takes IPAM's answer for their NICs on the
 * private network, which admitPrivateIps checks.
 */
export function discoveredPool(
  selector: AddressSource & { leavingTags?: readonly string[] },
  servers: { admitted: readonly ObservedServer[]; leftOut: readonly LeftOutAnswer[]; contradicted?: readonly LeftOutAnswer[] },
  privateNicIps: readonly IpamIpView[],
  check: AddressCheck,
): DiscoveredPool {
  const ipam = admitPrivateIps(
    privateNicIps,
    servers.admitted.flatMap((s) => nicsOnNetwork(s, selector.privateNetworkId)),
  );
  const source: AddressSource = {
    ipSource: selector.ipSource,
    ...(selector.privateNetworkId !== undefined && { privateNetworkId: selector.privateNetworkId }),
  };
  return {
    ...selectServerIps(servers.admitted, source, ipam.byNic, check, selector.leavingTags ?? []),
    source: 'tags',
    serverCount: servers.admitted.length,
    leftOut: [...servers.leftOut, ...ipam.leftOut],
    contradicted: [...(servers.contradicted ?? [])],
    ...(source.privateNetworkId !== undefined && { privateNetworkId: source.privateNetworkId }),
  };
}

const FAMILY_NAME: Record<AddressFamily, string> = { 4: 'IPv4', 6: 'IPv6' };

/**
 * What a reconcile (and doctor) tells about the addresses it chose. It names a server with several addresses of one
 * family: IPv4 for the kops ipSource (kOps may choose another), and IPv6 for every ipSource. It also names a
 * public-dual server that is in the pool by one family only.
 */
export function addressChoiceNotes(pool: Pick<ServerIps, 'several' | 'oneFamily'>, ipSource: IpSource): string[] {
  const several = pool.several
    .filter((s) => s.family === 6 || IP_SOURCE[ipSource].kopsRule)
    .map((s) => {
      const told = `server ${s.server} has ${s.candidates.length} routed public ${FAMILY_NAME[s.family]} addresses (${s.candidates.join(', ')}); using ${s.chosen}, the lowest`;
      // kOps' GetServerIP takes the newest (IPAM created_at desc). The server list does not show which that is, so say so.
      return s.family === 4
        ? `${told}. kOps' GetServerIP takes the most recently created one, so \`kops update cluster\` may write another`
        : told;
    });
  const oneFamily = pool.oneFamily.map(
    (o) =>
      `server ${o.server} is in the pool by its ${FAMILY_NAME[o.has]} address only: it has no usable ${o.lacks === 6 ? 'routed public IPv6' : 'public IPv4'} address`,
  );
  return [...several, ...oneFamily];
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
