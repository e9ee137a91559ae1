/**
 * A routed IPv6 as IPAM lists it (recorded: ipam-ipamip-reverse-dns-basic #13): the server's /64 prefix, not its
 * address, with the API's two default reverse names, one for the prefix and one for the address.
 */

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
