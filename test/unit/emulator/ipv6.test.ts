// A routed IPv6 as the APIs show it (emulator/ipv6.ts): IPAM lists the /64 prefix and the two default reverse names,
// as recorded (ipam-ipamip-reverse-dns-basic #13), the prefix's text in its short form whatever the address's; the
// server's own address is its SLAAC address in the prefix and its gateway the next MAC's link-local address.
import { isIPv6 } from 'node:net';
import { describe, expect, it } from 'vitest';
import { defaultReverses, newRoutedIpv6, prefix64, routedIpv6Gateway } from '../../../emulator/ipv6';

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

describe("a routed IPv6 on a server: the server's SLAAC address and its gateway, from its MAC", () => {
  it.each([
    // instance-server-ipv6 #5, instance-ip-routed-ipv6-attached #5, cli-instance-test-create-server-ips-with-ipv6-and-ipv4 #6
    ['de:00:01:27:16:ab', 'dc00:1ff:fe27:16ab', 'fe80::dc00:1ff:fe27:16ac'],
    ['de:00:01:27:16:c9', 'dc00:1ff:fe27:16c9', 'fe80::dc00:1ff:fe27:16ca'],
    ['de:00:00:d1:45:8b', 'dc00:ff:fed1:458b', 'fe80::dc00:ff:fed1:458c'],
    ['de:00:00:d1:45:ff', 'dc00:ff:fed1:45ff', 'fe80::dc00:ff:fed1:4600'],
  ])('MAC %s: address ...:%s in a new /64 of 2001:bc8:710::/48, gateway %s', (mac, host, gateway) => {
    const address = newRoutedIpv6(mac);
    expect(isIPv6(address)).toBe(true);
    expect(address).toMatch(new RegExp(`^2001:bc8:710:[0-9a-f]{1,4}:${host}$`));
    expect(routedIpv6Gateway(mac)).toBe(gateway);
  });
});
