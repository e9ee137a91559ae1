/**
 * Routed IPv6 as the APIs show them. The server's own address (its `public_ips[]` entry, family inet6) is its SLAAC
 * address: the IP's /64 prefix and the EUI-64 of the server's MAC (instance-server-ipv6 #0 prefix
 * 2001:bc8:711:4014::/64, #5 MAC de:00:01:27:16:ab, address 2001:bc8:711:4014:dc00:1ff:fe27:16ab). IPAM lists the
 * /64 prefix, not the address (ipam-ipamip-reverse-dns-basic #13), with the API's two default reverse names, one
 * for the prefix and one for the address.
 */
import { randomBytes } from 'node:crypto';

/** The eight 16-bit groups of an IPv6 address (no prefix length), as numbers. */
function groupsOf(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const part = (text: string) => (text === '' ? [] : text.split(':').map((group) => Number.parseInt(group, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** RFC 5952 text: lower case, no leading zeros, the longest run of two or more zero groups as `::`. */
function textOf(groups: readonly number[]): string {
  let best = { at: -1, length: 1 };
  for (let at = 0; at < groups.length; ) {
    let length = 0;
    while (groups[at + length] === 0) length += 1;
    if (length > best.length) best = { at, length };
    at += Math.max(length, 1);
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}

/** The /64 prefix holding an address, in CIDR form: `2001:bc8:711:4b81:dc00:1ff:fe27:167d` -> `2001:bc8:711:4b81::/64`. */
export function prefix64(address: string): string {
  return `${textOf([...groupsOf(address).slice(0, 4), 0, 0, 0, 0])}/64`;
}

/** The reverses IPAM lists for a routed IPv6: the prefix's (`...-0-0-0-0.rev.scw.cloud.`) and the address's. */
export function defaultReverses(address: string): { address: string | null; hostname: string }[] {
  const groups = groupsOf(address).map((group) => group.toString(16));
  const network = [...groups.slice(0, 4), '0', '0', '0', '0'];
  return [
    { address: null, hostname: `${network.join('-')}.rev.scw.cloud.` },
    { address, hostname: `${[...groups].reverse().join('-')}.instances.scw.cloud.` },
  ];
}

/** The EUI-64 interface id of a MAC (`de:00:01:27:16:ab` -> `dc00:1ff:fe27:16ab`): the universal/local bit flipped, ff:fe inserted. */
function eui64(mac: string): number[] {
  const bytes = mac.split(':').map((byte) => Number.parseInt(byte, 16));
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = bytes;
  return [((a ^ 0x02) << 8) | b, (c << 8) | 0xff, 0xfe00 | d, (e << 8) | f];
}

/**
 * The gateway of a server's routed IPv6: the link-local EUI-64 address of the MAC after the server's (recorded:
 * instance-server-ipv6 #5, MAC de:00:01:27:16:ab, gateway fe80::dc00:1ff:fe27:16ac; the same in
 * instance-ip-routed-ipv6-attached and cli-instance-test-create-server-ips-with-ipv6-and-ipv4).
 */
export function routedIpv6Gateway(mac: string): string {
  const next = (Number.parseInt(mac.replaceAll(':', ''), 16) + 1) % 2 ** 48;
  const bytes = next.toString(16).padStart(12, '0').match(/../g) ?? [];
  return textOf([0xfe80, 0, 0, 0, ...eui64(bytes.join(':'))]);
}

/**
 * A new routed IPv6 for a server with this MAC: a /64 of Scaleway's 2001:bc8:710::/48 (as recorded in
 * cli-instance-test-create-server-ips-with-ipv6-and-ipv4 #5) and the server's SLAAC address in it.
 */
export function newRoutedIpv6(mac: string): string {
  const [high = 0, low = 0] = randomBytes(2);
  return textOf([0x2001, 0x0bc8, 0x0710, (high << 8) | low, ...eui64(mac)]);
}
