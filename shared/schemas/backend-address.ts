// Which addresses may ever be named as a backend server. The others are refused at the edge, before anything else
// looks at them: inject answers 400, and the reconcile dead-letters the event as invalid_event. None of them can be
// a server a load balancer should send traffic to, and some would point it at something else: the LB's own host,
// the Scaleway metadata service (169.254.42.42, fd00:42::42), or every host at once.
import { BlockList, isIP } from 'node:net';
import { ipSchema } from './primitives';

interface RefusedRange {
  what: string;
  v4?: [string, number][];
  v6?: [string, number][];
}

// Order matters only for the message: an IPv4-mapped IPv6 address is named as such first.
const REFUSED: readonly RefusedRange[] = [
  { what: 'an IPv4-mapped IPv6 address (give the IPv4 address itself)', v6: [['::ffff:0:0', 96]] },
  { what: 'the unspecified address', v4: [['0.0.0.0', 8]], v6: [['::', 128]] },
  { what: 'a loopback address', v4: [['127.0.0.0', 8]], v6: [['::1', 128]] },
  { what: 'the Scaleway metadata service', v4: [['169.254.42.42', 32]], v6: [['fd00:42::42', 128]] },
  { what: 'a link-local address', v4: [['169.254.0.0', 16]], v6: [['fe80::', 10]] },
  { what: 'a multicast address', v4: [['224.0.0.0', 4]], v6: [['ff00::', 8]] },
  { what: 'a reserved address (240.0.0.0/4, the broadcast address 255.255.255.255 included)', v4: [['240.0.0.0', 4]] },
];

function blockList(subnets: [string, number][] | undefined, family: 'ipv4' | 'ipv6'): BlockList | undefined {
  if (!subnets) return undefined;
  const list = new BlockList();
  for (const [address, prefix] of subnets) list.addSubnet(address, prefix, family);
  return list;
}

// Built on first use, not at load: only events that carry serverIps need them, and every function loads this module.
let lists: { what: string; v4?: BlockList | undefined; v6?: BlockList | undefined }[] | undefined;
const refusedLists = () =>
  (lists ??= REFUSED.map((range) => ({ what: range.what, v4: blockList(range.v4, 'ipv4'), v6: blockList(range.v6, 'ipv6') })));

/**
 * Why this address can never be a backend server, or undefined when it may be one (or is not an IP
 * at all: the syntax is checked elsewhere). Private (RFC 1918, ULA) addresses are allowed: ipam-private
 * targets use them.
 */
export function refusedBackendAddress(ip: string): string | undefined {
  const family = isIP(ip);
  if (family === 0) return undefined;
  if (ip.includes('%')) return 'has a zone index (%...); give a global address';
  for (const list of refusedLists()) {
    // A BlockList matches IPv4 input against IPv4-mapped IPv6 rules too, so each family is asked of its own rules only.
    const hit = family === 4 ? list.v4?.check(ip, 'ipv4') : list.v6?.check(ip, 'ipv6') || list.v4?.check(ip, 'ipv6');
    if (hit) return `is ${list.what}, never a server to send traffic to`;
  }
  return undefined;
}

/** A syntactically valid IP that may name a backend server. */
export const backendIpSchema = ipSchema.superRefine((ip, ctx) => {
  const why = refusedBackendAddress(ip);
  if (why) ctx.addIssue({ code: 'custom', message: why, input: ip });
});

/** An address family as node:net's isIP numbers it: what a target's ipSource asks each server for (core/desired.ts). */
export type AddressFamily = 4 | 6;

/**
 * Why an address an API gave for a server cannot go into a pool as an address of this family, or undefined when it
 * can. It must be of the family asked for: an `inet6` entry that is not an IPv6 address is left out, and so is an
 * IPv4 one taken for IPv6. And it must not be one of the addresses refusedBackendAddress names.
 */
export function unusablePoolAddress(ip: string, family: AddressFamily): string | undefined {
  if (isIP(ip) !== family) return `is not an IPv${family} address`;
  return refusedBackendAddress(ip);
}
