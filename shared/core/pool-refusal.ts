// A pool write the LB API refused for its IPv6 members. No recording shows an IPv6 address in a backend pool. The
// API may take one (Scaleway's docs say `server_ip` takes IPv4 or IPv6 addresses), or answer 400 invalid_arguments
// naming it. Such a refusal will not pass by itself: the same pool would be refused again. So it is reported as
// ipv6_pool_refused (permanent, with what to change), not retried or reported as any other 400. Pure.
import type { Action } from './model';
import { isIpv4 } from './pool';

const SERVER_IP = /^server_ip(?:\.(\d+))?$/;

/** The addresses one pool write sends in `server_ip`, in the order sent (a changes-only write: the added, its first call). */
export function addressesSent(action: Action): readonly string[] {
  if (action.kind === 'CreateBackend') return action.pool;
  if (action.kind === 'SetBackendServers') return action.changesOnly ? action.added : action.pool;
  return [];
}

/**
 * The IPv6 members a 400 refused: it names `server_ip.<n>` entries that are IPv6 addresses of what was sent, or
 * `server_ip` itself while IPv6 addresses were sent. None (an empty list) when the 400 is about anything else: an
 * entry that is IPv4, another field, or a write that sent no IPv6.
 */
export function refusedIpv6Members(sent: readonly string[], argumentNames: readonly string[]): string[] {
  const ipv6 = sent.filter((ip) => !isIpv4(ip) && ip.includes(':'));
  if (ipv6.length === 0) return [];
  const refused = new Set<string>();
  for (const name of argumentNames) {
    const match = SERVER_IP.exec(name);
    if (!match) continue;
    const named = match[1] === undefined ? ipv6 : [sent[Number(match[1])]];
    for (const ip of named) if (ip !== undefined && ipv6.includes(ip)) refused.add(ip);
  }
  return ipv6.filter((ip) => refused.has(ip));
}
