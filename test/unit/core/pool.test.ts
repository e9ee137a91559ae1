import { isIPv4, isIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalIp, compareIps, isIpv4, normalisePool, poolDiff, samePool } from '../../../shared/core/pool';

describe('normalisePool', () => {
  it('sorts IPv4 numerically (10.0.0.2 before 10.0.0.10), then the rest as text, and drops repeats', () => {
    expect(normalisePool(['2001:db8::2', '10.0.0.2', '10.0.0.10', '10.0.0.2', '2001:db8::1'])).toEqual([
      '10.0.0.2',
      '10.0.0.10',
      '2001:db8::1',
      '2001:db8::2',
    ]);
    expect(normalisePool(['51.15.100.13', '9.9.9.9', '51.15.100.2'])).toEqual(['9.9.9.9', '51.15.100.2', '51.15.100.13']);
    expect(normalisePool([])).toEqual([]);
  });
  it('is the same whatever the input order (the order every reconcile agrees on)', () => {
    const ip = fc.oneof(fc.ipV4(), fc.ipV6());
    fc.assert(
      fc.property(fc.array(ip, { maxLength: 20 }), (ips) => {
        expect(normalisePool([...ips].reverse())).toEqual(normalisePool(ips));
        expect(normalisePool(normalisePool(ips))).toEqual(normalisePool(ips));
      }),
    );
  });
});

describe('canonicalIp', () => {
  it('one spelling per IPv6 address (lower case, compressed); IPv4 as it is', () => {
    expect(canonicalIp('2001:DB8:0::1')).toBe('2001:db8::1');
    expect(canonicalIp('2001:0db8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(canonicalIp('51.15.100.11')).toBe('51.15.100.11');
  });
  it('every spelling of one IPv6 address agrees, and what the URL parser refuses is left as it is (no throw)', () => {
    fc.assert(fc.property(fc.ipV6(), (ip) => canonicalIp(ip.toUpperCase()) === canonicalIp(ip) && isIPv6(canonicalIp(ip))));
    for (const odd of ['fe80::1%eth0', 'not:an:address', '::g']) expect(canonicalIp(odd)).toBe(odd);
  });
});

describe('one spelling per member', () => {
  it('an IPv6 the LB API spells otherwise is the same member: no drift, no change to write', () => {
    expect(normalisePool(['2001:BC8:711:4014:DC00:1FF:FE27:16AB', '2001:bc8:711:4014:dc00:1ff:fe27:16ab'])).toEqual([
      '2001:bc8:711:4014:dc00:1ff:fe27:16ab',
    ]);
    expect(samePool(['2001:0db8:0000:0000:0000:0000:0000:0001', '51.15.1.2'], ['51.15.1.2', '2001:db8::1'])).toBe(true);
    expect(poolDiff(['2001:DB8::1'], ['2001:db8::1', '2001:db8::2'])).toEqual({ added: ['2001:db8::2'], removed: [] });
  });
});

/** An IPv6 address as one 128-bit number: the reference the pool's IPv6 order is held to. */
function ipv6Number(ip: string): bigint {
  const [head = '', tail] = canonicalIp(ip).split('::');
  const groups = (text: string) => (text === '' ? [] : text.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((n, group) => (n << 16n) + BigInt(Number.parseInt(group, 16)), 0n);
}

describe('compareIps', () => {
  it('IPv4 before anything else, numerically', () => {
    expect(compareIps('1.2.3.4', '::1')).toBeLessThan(0);
    expect(compareIps('::1', '1.2.3.4')).toBeGreaterThan(0);
    expect(compareIps('10.0.0.9', '10.0.0.10')).toBeLessThan(0);
    expect(compareIps('10.0.0.10', '10.0.0.10')).toBe(0);
  });
  it('IPv6 numerically, whatever the spelling: "the lowest" of a server\'s IPv6 is the lowest number', () => {
    expect(normalisePool(['2001:db8::10', '2001:db8::9', '2001:bc8:710:10::1', '2001:bc8:710:9::1'])).toEqual([
      '2001:bc8:710:9::1',
      '2001:bc8:710:10::1',
      '2001:db8::9',
      '2001:db8::10',
    ]);
    expect(compareIps('2001:DB8::9', '2001:db8:0:0::10')).toBeLessThan(0);
    expect(compareIps('::1', 'not-an-ip')).toBeLessThan(0);
    const ip = fc.ipV6().map(canonicalIp);
    fc.assert(
      fc.property(ip, ip, (a, b) => {
        const byNumber = ipv6Number(a) < ipv6Number(b) ? -1 : ipv6Number(a) > ipv6Number(b) ? 1 : 0;
        expect(Math.sign(compareIps(a, b))).toBe(byNumber);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('isIpv4 (no node:* import in core)', () => {
  it('decides exactly as node:net isIPv4', () => {
    const candidates = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.tuple(fc.nat(999), fc.nat(999), fc.nat(999), fc.nat(999)).map((parts) => parts.join('.')),
      fc
        .array(fc.constantFrom('0', '1', '9', '25', '255', '256', '01', '00', '.', ' ', 'a'), { maxLength: 9 })
        .map((parts) => parts.join('')),
      fc.string({ maxLength: 16 }),
    );
    fc.assert(
      fc.property(candidates, (text) => isIpv4(text) === isIPv4(text)),
      { numRuns: 2_000 },
    );
    for (const text of ['0.0.0.0', '255.255.255.255', '01.2.3.4', '1.2.3', '1.2.3.4.5', '1.2.3.4\n', ' 1.2.3.4', '256.1.1.1'])
      expect(isIpv4(text), text).toBe(isIPv4(text));
  });
});

describe('samePool and poolDiff', () => {
  it('compare as sets, whatever the order or repeats', () => {
    expect(samePool(['10.0.0.2', '10.0.0.1'], ['10.0.0.1', '10.0.0.2', '10.0.0.1'])).toBe(true);
    expect(samePool(['10.0.0.1'], ['10.0.0.1', '10.0.0.2'])).toBe(false);
    expect(samePool([], [])).toBe(true);
  });
  it('name what a write adds and removes, each sorted', () => {
    expect(poolDiff(['10.0.0.3', '10.0.0.1'], ['10.0.0.10', '10.0.0.2', '10.0.0.1'])).toEqual({
      added: ['10.0.0.2', '10.0.0.10'],
      removed: ['10.0.0.3'],
    });
    expect(poolDiff(['10.0.0.1'], ['10.0.0.1'])).toEqual({ added: [], removed: [] });
  });
});
