import { isIPv4 } from 'node:net';

/** Sorted, de-duplicated, in a stable order (IPv4 numerically, then the rest as text). */
export function normalisePool(ips: readonly string[]): string[] {
  return [...new Set(ips)].sort(compareIps);
}

function ipv4Key(ip: string): number {
  return ip.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

export function compareIps(a: string, b: string): number {
  const a4 = isIPv4(a);
  const b4 = isIPv4(b);
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
