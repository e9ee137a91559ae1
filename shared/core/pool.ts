// One octet as node:net's isIPv4 accepts it: 0-255, no leading zero (core imports no node:* module).
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]\\d|\\d)';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/** A dotted-quad IPv4 address, exactly as node:net's isIPv4 decides (test/unit/core/pool.test.ts checks both agree). */
export function isIpv4(ip: string): boolean {
  return IPV4.test(ip);
}

/**
 * One spelling per address (IPv6 lower-case and compressed), so "2001:DB8:0::1" matches "2001:db8::1". The WHATWG
 * URL parser does the IPv6 canonicalisation (core imports no node:* module); what it cannot parse is left as it is.
 */
export function canonicalIp(ip: string): string {
  if (!ip.includes(':')) return ip;
  try {
    return new URL(`http://[${ip}]`).hostname.slice(1, -1);
  } catch {
    return ip;
  }
}

/**
 * Sorted, de-duplicated, in a stable order (IPv4 numerically, then IPv6 numerically, then the rest as text), each
 * address in one spelling:
 * an IPv6 the LB API spelled otherwise than the Instance API is the same member, never a change to write.
 */
export function normalisePool(ips: readonly string[]): string[] {
  return [...new Set(ips.map(canonicalIp))].sort(compareIps);
}

function ipv4Key(ip: string): number {
  return ip.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

/** The eight 16-bit groups of an IPv6 address written in hex groups (any case, `::` once), or undefined for anything else. */
function ipv6Groups(ip: string): number[] | undefined {
  const halves = ip.split('::');
  if (halves.length > 2 || !/^[0-9a-f:]+$/i.test(ip)) return undefined;
  const part = (text: string) => (text === '' ? [] : text.split(':'));
  const [head = '', tail] = halves;
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0) || [...left, ...right].some((g) => g === '' || g.length > 4)) return undefined;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((group) => Number.parseInt(group, 16));
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A pool's order: IPv4 numerically, then IPv6 numerically (so the lowest of a server's IPv6 is), then the rest as text. */
export function compareIps(a: string, b: string): number {
  const a4 = isIpv4(a);
  const b4 = isIpv4(b);
  if (a4 && b4) return ipv4Key(a) - ipv4Key(b);
  if (a4 !== b4) return a4 ? -1 : 1;
  const a6 = ipv6Groups(a);
  const b6 = ipv6Groups(b);
  if (a6 && b6) return a6.reduce((order, group, i) => order || group - (b6[i] ?? 0), 0) || byText(a, b);
  if (a6 || b6) return a6 ? -1 : 1;
  return byText(a, b);
}

export function samePool(a: readonly string[], b: readonly string[]): boolean {
  const left = normalisePool(a);
  const right = normalisePool(b);
  return left.length === right.length && left.every((ip, i) => ip === right[i]);
}

export function poolDiff(from: readonly string[], to: readonly string[]): { added: string[]; removed: string[] } {
  const before = normalisePool(from);
  const after = normalisePool(to);
  return {
    added: after.filter((ip) => !before.includes(ip)),
    removed: before.filter((ip) => !after.includes(ip)),
  };
}
