// An event's serverIps is an assertion ("these addresses should be in the pool"), never a pool: the
// pool is always what the target's own discovery returns. What discovery does not (yet) show is not
// written; the event is retried (a server that just booted may not be listed with its address yet)
// and dead-lettered as untrusted_server_ips when it never shows up.
import { LbSyncError } from '../errors/lbsync-error';

/**
 * One spelling per address (IPv6 lower-case and compressed), so "2001:DB8:0::1" matches "2001:db8::1". The WHATWG
 * URL parser does the IPv6 canonicalisation (core imports no node:* module); what it refuses is left as it is.
 */
export function canonicalIp(ip: string): string {
  if (!ip.includes(':')) return ip;
  try {
    return new URL(`http://[${ip}]`).hostname.slice(1, -1);
  } catch {
    return ip;
  }
}

/** The asserted addresses discovery did not return, in the order given. */
export function unconfirmedServerIps(asserted: readonly string[] | undefined, discovered: readonly string[]): string[] {
  if (!asserted || asserted.length === 0) return [];
  const known = new Set(discovered.map(canonicalIp));
  return [...new Set(asserted.map(canonicalIp))].filter((ip) => !known.has(ip));
}

export function untrustedServerIpsError(unconfirmed: readonly string[], target: string, discovered: readonly string[]): LbSyncError {
  return new LbSyncError(
    'untrusted_server_ips',
    `event serverIps ${unconfirmed.join(', ')} not returned by the discovery of target ${target} (it found ${discovered.join(', ') || 'none'}); ` +
      'they are not written, the pool stays the discovered one',
  );
}
