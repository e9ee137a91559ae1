// A routed IPv6 as IPAM lists it (emulator/ipv6.ts): the /64 prefix and the two default reverse names, as recorded
// (ipam-ipamip-reverse-dns-basic #13), and the prefix's text in its short form whatever the address's.
import { describe, expect, it } from 'vitest';
import { defaultReverses, prefix64 } from '../../../emulator/ipv6';

describe('a routed IPv6 in IPAM', () => {
  it('is listed as its /64 prefix, with the reverses recorded for it', () => {
    expect(prefix64('2001:bc8:711:4b81:dc00:1ff:fe27:167d')).toBe('2001:bc8:711:4b81::/64');
    expect(defaultReverses('2001:bc8:711:4b81:dc00:1ff:fe27:167d')).toEqual([
      { address: null, hostname: '2001-bc8-711-4b81-0-0-0-0.rev.scw.cloud.' },
      { address: '2001:bc8:711:4b81:dc00:1ff:fe27:167d', hostname: '167d-fe27-1ff-dc00-4b81-711-bc8-2001.instances.scw.cloud.' },
    ]);
  });

  it.each([
    ['2001:db8::1', '2001:db8::/64'],
    ['2001:0db8:0000:0001:0000:0000:0000:0001', '2001:db8:0:1::/64'],
    ['2001:db8:0:0:1::1', '2001:db8::/64'],
    ['fd00:0:0:5::abcd', 'fd00:0:0:5::/64'],
    ['::1', '::/64'],
  ])('%s -> %s', (address, prefix) => {
    expect(prefix64(address)).toBe(prefix);
  });
});
