import type { DesiredBackend, ObservedServer } from './model';
import { compareIps, normalisePool } from './pool';
import type { Target } from './schemas/target';

/** Servers on their way out (or off) are not sent traffic; booting ones are, the health check gates them. */
const EXCLUDED_SERVER_STATES = new Set(['stopped', 'stopped in place', 'stopping']);

export interface SkippedServer {
  server: string;
  reason: string;
}

export interface ServerIps {
  ips: string[];
  skipped: SkippedServer[];
}

/** Strips the mask IPAM puts on addresses ("10.0.0.2/22" -> "10.0.0.2"). */
export function stripCidr(address: string): string {
  const slash = address.indexOf('/');
  return slash === -1 ? address : address.slice(0, slash);
}

function lowest(ips: readonly string[]): string | undefined {
  return [...ips].sort(compareIps)[0];
}

/**
 * One IP per server, chosen deterministically (the lowest when a server has several).
 * `privateIpsByNic` holds the IPAM addresses of private NICs, for ipSource "ipam-private".
 */
export function selectServerIps(
  servers: readonly ObservedServer[],
  ipSource: Target['servers']['ipSource'],
  privateIpsByNic: ReadonlyMap<string, readonly string[]> = new Map(),
): ServerIps {
  const ips: string[] = [];
  const skipped: SkippedServer[] = [];
  for (const server of servers) {
    if (EXCLUDED_SERVER_STATES.has(server.state)) {
      skipped.push({ server: server.name, reason: `state is ${server.state}` });
      continue;
    }
    const candidates =
      ipSource === 'public'
        ? server.publicIpv4
        : server.privateNicIds.flatMap((nic) => privateIpsByNic.get(nic) ?? []).map(stripCidr);
    const ip = lowest(candidates);
    if (ip === undefined) skipped.push({ server: server.name, reason: `has no ${ipSource} IPv4 address` });
    else ips.push(ip);
  }
  return { ips: normalisePool(ips), skipped };
}

export function desiredBackends(target: Target, pool: readonly string[]): DesiredBackend[] {
  const normalised = normalisePool(pool);
  return target.backends.map((spec) => ({ spec, pool: normalised }));
}
