// One octet as node:net's isIPv4 accepts it: 0-255, no leading zero (core imports no node:* module).
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]\\d|\\d)';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/** A dotted-quad IPv4 address, exactly as node:net's isIPv4 decides (test/unit/core/pool.test.ts checks both agree). */
export function isIpv4(ip: string): boolean {
  return IPV4.test(ip);
}

/** Sorted, de-duplicated, in a stable order (IPv4 numerically, then the rest as text). */
export function normalisePool(ips: readonly string[]): string[] {
  return [...new Set(ips)].sort(compareIps);
}

function ipv4Key(ip: string): number {
  return ip.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

export function compareIps(a: string, b: string): number {
  const a4 = isIpv4(a);
  const b4 = isIpv4(b);
  if (a4 && b4) return ipv4Key(a) - ipv4Key(b);
  if (a4 !== b4) return a4 ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function samePool(a: readonly string[], b: readonly string[]): boolean {
  const left = normalisePool(a);
  const right = normalisePool(b);
  return left.length === right.length && left.every((ip, i) => ip === right[i]);
}

export function poolDiff(from: readonly string[], to: readonly string[]): { added: string[]; removed: string[] } {
  const before = new Set(from);
  const after = new Set(to);
  return {
    added: normalisePool(to.filter((ip) => !before.has(ip))),
    removed: normalisePool(from.filter((ip) => !after.has(ip))),
  };
}
