import { isIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalIp, unconfirmedServerIps, untrustedServerIpsError } from '../../../shared/core/asserted-ips';

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

describe('unconfirmedServerIps', () => {
  it('the asserted addresses discovery did not return, in the order given, once each', () => {
    expect(unconfirmedServerIps(['6.6.6.6', '51.15.100.11', '6.6.6.6', '2001:DB8::1'], ['51.15.100.11', '2001:db8::1'])).toEqual([
      '6.6.6.6',
    ]);
    expect(unconfirmedServerIps(undefined, ['51.15.100.11'])).toEqual([]);
    expect(unconfirmedServerIps([], [])).toEqual([]);
  });
  it('is told as untrusted_server_ips (transient: a new server may not be listed yet), naming what discovery found', () => {
    const error = untrustedServerIpsError(['6.6.6.6'], 'prod', []);
    expect(error).toMatchObject({ code: 'untrusted_server_ips', errorClass: 'transient' });
    expect(error.message).toBe(
      'event serverIps 6.6.6.6 not returned by the discovery of target prod (it found none); they are not written, the pool stays the discovered one',
    );
  });
});
