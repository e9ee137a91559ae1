import { isIPv4 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareIps, isIpv4, normalisePool, poolDiff, samePool } from '../../../shared/core/pool';

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

describe('compareIps', () => {
  it('IPv4 before anything else, numerically', () => {
    expect(compareIps('1.2.3.4', '::1')).toBeLessThan(0);
    expect(compareIps('::1', '1.2.3.4')).toBeGreaterThan(0);
    expect(compareIps('10.0.0.9', '10.0.0.10')).toBeLessThan(0);
    expect(compareIps('10.0.0.10', '10.0.0.10')).toBe(0);
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
