// The pure mappings of the Scaleway adapter; its calls run against the emulator in test/integration/adapters/scaleway.test.ts.
import { createAdvancedClient, withHTTPClient, withProfile } from '@scaleway/sdk-client';
import { Instancev1 } from '@scaleway/sdk-instance';
import { describe, expect, it } from 'vitest';
import { durationToMs, toObservedServer } from '../../../shared/adapters/scaleway';
import { selectServerIps } from '../../../shared/core/desired';
import { canonicalIp } from '../../../shared/core/pool';
import { unusablePoolAddress } from '../../../shared/schemas/backend-address';
import { readCassette } from '../../support/cassettes';

describe('durationToMs', () => {
  it.each([
    [3000, 3000],
    ['3000', 3000],
    ['0.500s', 500],
    ['0.5s', 500],
    ['3s', 3000],
    ['250ms', 250],
    ['1m', 60000],
    [undefined, undefined],
    ['soon', undefined],
  ] as const)('%s -> %s', (input, expected) => {
    expect(durationToMs(input)).toBe(expected);
  });
});

// A routed IPv6 as the Instance API really answers it (test/fixtures/scaleway-api: instance-server-ipv6,
// instance-ip-routed-ipv6-attached, cli-instance-test-create-server-ips-with-ipv6-and-ipv4), read by the real SDK.
describe('toObservedServer: a routed IPv6 is the server’s own address in its /64, never the prefix', () => {
  const sdk = (body: string) =>
    new Instancev1.API(
      createAdvancedClient(
        withProfile({ accessKey: 'SCWRECORDEDXXXXXXXXX', secretKey: '00000000-0000-4000-8000-000000000000' }),
        withHTTPClient(async () => new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } })),
      ),
    );
  const at = (cassette: string, id: number) => {
    const interaction = readCassette(cassette).find((i) => i.id === id);
    if (!interaction) throw new Error(`${cassette} has no #${id}`);
    return interaction.responseBody;
  };
  const server = async (cassette: string, id: number) => {
    const { server: read } = await sdk(at(cassette, id)).getServer({ zone: 'fr-par-1', serverId: '00000000-0000-4000-8000-000000000000' });
    if (!read) throw new Error('no server in the answer');
    return { sdk: read, observed: toObservedServer(read) };
  };
  const ipPrefix = async (cassette: string, id: number) =>
    (await sdk(at(cassette, id)).getIp({ zone: 'fr-par-1', ip: '00000000-0000-4000-8000-000000000000' })).ip;
  /** The EUI-64 interface id of a MAC, as an address's last four groups: the universal/local bit flipped, ff:fe inserted. */
  const eui64 = (mac: string) => {
    const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = mac.split(':').map((byte) => Number.parseInt(byte, 16));
    return [((a ^ 2) << 8) | b, (c << 8) | 0xff, 0xfe00 | d, (e << 8) | f].map((group) => group.toString(16)).join(':');
  };
  /** The first four groups of an IPv6 address: its /64. */
  const slash64 = (ip: string) => canonicalIp(ip).replace(/^((?:[0-9a-f]+:){4}).*$/, '$1');

  it.each([
    ['instance-server-ipv6', 11, 18, '2001:bc8:711:4014:dc00:1ff:fe27:16ab'],
    ['instance-ip-routed-ipv6-attached', 11, 17, '2001:bc8:711:4014:dc00:1ff:fe27:16c9'],
  ])(
    '%s #%i: public_ips[] holds the SLAAC address of the prefix GetIp #%i gives; public-ipv6 takes it',
    async (cassette, serverAt, ipAt, address) => {
      const { sdk: read, observed } = await server(cassette, serverAt);
      expect(read.state).toBe('running');
      expect(observed.publicIpv6).toEqual([address]);
      expect(observed.publicIpv4).toEqual([]);
      expect(observed.ipStates).toEqual({ [address]: 'attached' });
      // The IP object knows only its prefix (address null): the server's entry is a host of it, from its MAC (EUI-64).
      const ip = await ipPrefix(cassette, ipAt);
      expect(ip?.address ?? null).toBeNull();
      expect(ip?.prefix).toMatch(/::\/64$/);
      expect(slash64(address)).toBe(slash64(String(ip?.prefix).replace('/64', '')));
      expect(address.endsWith(`:${eui64(read.macAddress)}`)).toBe(true);
      expect(selectServerIps([observed], 'public-ipv6', new Map(), unusablePoolAddress).ips).toEqual([address]);
      expect(selectServerIps([observed], 'public', new Map(), unusablePoolAddress).skipped).toEqual([
        { server: read.name, reason: 'has no public IPv4 address' },
      ]);
    },
  );

  it('cli-instance-test-create-server-ips-with-ipv6-and-ipv4 #9: a dual-stack server is two members under public-dual, one under each other ipSource', async () => {
    const { observed } = await server('cli-instance-test-create-server-ips-with-ipv6-and-ipv4', 9);
    const v4 = '51.158.105.246';
    const v6 = '2001:bc8:710:7074:dc00:ff:fed1:458b';
    expect(observed).toMatchObject({ publicIpv4: [v4], publicIpv6: [v6], routedIpv4: [v4] });
    const pool = (ipSource: 'public' | 'public-ipv6' | 'public-dual' | 'kops') =>
      selectServerIps([observed], ipSource, new Map(), unusablePoolAddress).ips;
    expect(pool('public-dual')).toEqual([v4, v6]);
    expect(pool('public-ipv6')).toEqual([v6]);
    expect(pool('public')).toEqual([v4]);
    expect(pool('kops')).toEqual([v4]);
  });
});
