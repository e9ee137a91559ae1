// An event's serverIps is an assertion ("these addresses should be in the pool"), never a pool. The pool is always
// what the target's own discovery returns. An address discovery does not (yet) show is not written. The event is
// retried, since a server that just booted may not be listed with its address yet. If the address never shows up,
// the event is dead-lettered as untrusted_server_ips.
import { LbSyncError } from '../errors/lbsync-error';
import { canonicalIp } from './pool';

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
