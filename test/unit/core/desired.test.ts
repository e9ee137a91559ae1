import { describe, expect, it } from 'vitest';
import { addressChoiceNotes, selectServerIps } from '../../../shared/core/desired';
import { stripCidr } from '../../../shared/core/kops-rule';
import { IP_SOURCE } from '../../../shared/schemas/ip-sources';
import type { ObservedServer } from '../../../shared/core/model';
import { unusablePoolAddress } from '../../../shared/schemas/backend-address';

/** A server as the adapter describes it: every public address attached unless `ipStates` says otherwise. */
const server = (name: string, overrides: Partial<ObservedServer> = {}): ObservedServer => {
  const base = {
    id: `id-${name}`,
    name,
    state: 'running',
    tags: [],
    zone: 'fr-par-1',
    projectId: 'project-1',
    publicIpv4: [],
    publicIpv6: [],
    routedIpv4: [],
    privateNics: [],
    ...overrides,
  };
  const attached = Object.fromEntries([...base.publicIpv4, ...base.publicIpv6, ...base.routedIpv4].map((ip) => [ip, 'attached']));
  return { ...base, ipStates: { ...attached, ...overrides.ipStates } };
};
const nics = (...ids: string[]) => ids.map((id) => ({ id, privateNetworkId: 'pn-1' }));

describe('selectServerIps', () => {
  it('takes one public IPv4 per server, the lowest, sorted numerically', () => {
    const servers = [
      server('a', { publicIpv4: ['51.15.9.10', '51.15.9.2'] }),
      server('b', { publicIpv4: ['10.0.0.100'] }),
      server('c', { publicIpv4: ['10.0.0.20'] }),
    ];
    expect(selectServerIps(servers, 'public', new Map(), unusablePoolAddress).ips).toEqual(['10.0.0.20', '10.0.0.100', '51.15.9.2']);
  });
  it('takes the private-NIC address from IPAM with the mask stripped', () => {
    const servers = [server('a', { privateNics: nics('nic-a') }), server('b', { privateNics: nics('nic-b') })];
    const ipam = new Map([
      ['nic-a', ['10.1.0.3/22']],
      ['nic-b', ['10.1.0.2/22', '10.1.0.9/22']],
    ]);
    expect(selectServerIps(servers, 'ipam-private', ipam, unusablePoolAddress).ips).toEqual(['10.1.0.2', '10.1.0.3']);
  });
  it("kops: kOps' rule, the routed public IPv4 IPAM holds (ipam_id set); a NAT IP without one does not count", () => {
    const servers = [
      server('cp-0', { publicIpv4: ['51.15.1.10'], routedIpv4: ['51.15.1.10'] }),
      server('cp-1', { publicIpv4: ['51.15.1.11', '163.172.1.1'], routedIpv4: ['51.15.1.11'] }),
      server('legacy', { publicIpv4: ['62.210.1.1'], routedIpv4: [] }),
    ];
    const result = selectServerIps(servers, 'kops', new Map(), unusablePoolAddress);
    expect(result.ips).toEqual(['51.15.1.10', '51.15.1.11']);
    expect(result.members).toEqual([
      { server: 'cp-0', serverId: 'id-cp-0', ip: '51.15.1.10' },
      { server: 'cp-1', serverId: 'id-cp-1', ip: '51.15.1.11' },
    ]);
    expect(result.skipped).toEqual([{ server: 'legacy', reason: "has no routed public IPv4 in IPAM (kOps' GetServerIP would find none)" }]);
  });
  it('several qualifying addresses: the lowest, numerically, and the others are named', () => {
    const result = selectServerIps([server('cp-0', { routedIpv4: ['51.15.1.100', '51.15.1.9'] })], 'kops', new Map(), unusablePoolAddress);
    expect(result.ips).toEqual(['51.15.1.9']);
    expect(result.several).toEqual([{ server: 'cp-0', family: 4, chosen: '51.15.1.9', candidates: ['51.15.1.9', '51.15.1.100'] }]);
  });
  it('leaves out stopped servers and servers without an address, and says why', () => {
    const result = selectServerIps(
      [server('a', { state: 'stopped', publicIpv4: ['1.1.1.1'] }), server('b'), server('c', { publicIpv4: ['2.2.2.2'] })],
      'public',
      new Map(),
      unusablePoolAddress,
    );
    expect(result.ips).toEqual(['2.2.2.2']);
    expect(result.skipped).toEqual([
      { server: 'a', reason: 'state is stopped' },
      { server: 'b', reason: 'has no public IPv4 address' },
    ]);
  });
  it.each([
    ['running', 'member'],
    ['starting', 'member'],
    ['stopped', 'leaving'],
    ['stopped in place', 'leaving'],
    ['stopping', 'leaving'],
    ['locked', 'left out'],
    ['', 'left out'],
    ['rebooting', 'left out'],
  ])('a %s server: %s', (state, verdict) => {
    const result = selectServerIps([server('a', { state, publicIpv4: ['51.15.9.2'] })], 'public', new Map(), unusablePoolAddress);
    expect(result.ips).toEqual(verdict === 'member' ? ['51.15.9.2'] : []);
    // Only a stopped one may leave a pool at once; any other that is not serving leaves through the health gate.
    expect(result.leaving).toEqual(verdict === 'leaving' ? [{ server: 'a', state, ips: ['51.15.9.2'] }] : []);
    expect(result.skipped.length).toBe(verdict === 'member' ? 0 : 1);
  });
  it('a locked server is named with what the lock means for the pool', () => {
    const result = selectServerIps([server('a', { state: 'locked', publicIpv4: ['51.15.9.2'] })], 'public', new Map(), unusablePoolAddress);
    expect(result.skipped).toEqual([
      {
        server: 'a',
        reason:
          'state is locked (a lock only Scaleway support lifts): never added; in a pool it leaves once the other members pass their health checks',
      },
    ]);
  });
  it.each(['public', 'kops'] as const)(
    '%s: only an address the answer says is attached is a candidate; the others are named',
    (ipSource) => {
      const ips = ['51.15.9.1', '51.15.9.2', '51.15.9.3', '51.15.9.4'];
      const a = server('a', {
        publicIpv4: ips,
        routedIpv4: ips,
        ipStates: { '51.15.9.1': 'detached', '51.15.9.2': 'pending', '51.15.9.3': 'none', '51.15.9.4': 'attached' },
      });
      const result = selectServerIps([a], ipSource, new Map(), unusablePoolAddress);
      expect(result.ips).toEqual(['51.15.9.4']);
      expect(result.several).toEqual([]);
      expect(result.unusable).toEqual([
        { server: 'a', ip: '51.15.9.1', why: 'is detached, not attached to it' },
        { server: 'a', ip: '51.15.9.2', why: 'is pending, not attached to it' },
        { server: 'a', ip: '51.15.9.3', why: 'is of no stated state, not attached to it' },
      ]);
    },
  );
  it('ipam-private with a private network: only the NIC on it gives an address; a server with none there is named', () => {
    const servers = [
      server('a', {
        privateNics: [
          { id: 'nic-a1', privateNetworkId: 'pn-1' },
          { id: 'nic-a2', privateNetworkId: 'pn-2' },
        ],
      }),
      server('b', { privateNics: [{ id: 'nic-b2', privateNetworkId: 'pn-2' }] }),
    ];
    const ipam = new Map([
      ['nic-a1', ['10.1.0.9/22']],
      ['nic-a2', ['10.2.0.1/22']],
      ['nic-b2', ['10.2.0.2/22']],
    ]);
    const result = selectServerIps(servers, { ipSource: 'ipam-private', privateNetworkId: 'pn-1' }, ipam, unusablePoolAddress);
    expect(result.ips).toEqual(['10.1.0.9']);
    expect(result.skipped).toEqual([{ server: 'b', reason: 'has no ipam-private IPv4 address on private network pn-1' }]);
  });
  it('strips CIDR masks', () => {
    expect(stripCidr('fd5f::1/64')).toBe('fd5f::1');
    expect(stripCidr('10.0.0.1')).toBe('10.0.0.1');
  });
});

// Routed IPv6 (recorded: instance-server-ipv6 #11, cli-instance-test-create-server-ips-with-ipv6-and-ipv4 #9): the
// server's public_ips[] entry of family inet6 holds its SLAAC address, which the adapter puts in publicIpv6.
const V4 = '51.158.105.246';
const V6 = '2001:bc8:710:7074:dc00:ff:fed1:458b';
const V6_ONLY = '2001:bc8:711:4014:dc00:1ff:fe27:16ab';

describe('selectServerIps: IPv6 and dual-stack pools', () => {
  const world = () => [
    server('dual', { publicIpv4: [V4], publicIpv6: [V6], routedIpv4: [V4] }),
    server('v4-only', { publicIpv4: ['51.15.1.2'], routedIpv4: ['51.15.1.2'] }),
    server('v6-only', { publicIpv6: [V6_ONLY] }),
  ];
  it.each([
    ['public', ['51.15.1.2', V4], [['v6-only', 'has no public IPv4 address']], []],
    ['kops', ['51.15.1.2', V4], [['v6-only', "has no routed public IPv4 in IPAM (kOps' GetServerIP would find none)"]], []],
    ['public-ipv6', [V6, V6_ONLY], [['v4-only', 'has no routed public IPv6 address']], []],
    [
      'public-dual',
      ['51.15.1.2', V4, V6, V6_ONLY],
      [],
      [
        { server: 'v4-only', has: 4, lacks: 6 },
        { server: 'v6-only', has: 6, lacks: 4 },
      ],
    ],
  ] as const)('%s: the pool, the servers left out, the servers in by one family', (ipSource, ips, skipped, oneFamily) => {
    const result = selectServerIps(world(), ipSource, new Map(), unusablePoolAddress);
    expect(result.ips).toEqual(ips);
    expect(result.skipped.map((s) => [s.server, s.reason])).toEqual(skipped);
    expect(result.oneFamily).toEqual(oneFamily);
    expect(result.unusable).toEqual([]);
  });
  it('public-dual: a dual-stack server is two members, one per family, each naming the server', () => {
    const result = selectServerIps(world(), 'public-dual', new Map(), unusablePoolAddress);
    expect(result.members.filter((m) => m.server === 'dual')).toEqual([
      { server: 'dual', serverId: 'id-dual', ip: V4 },
      { server: 'dual', serverId: 'id-dual', ip: V6 },
    ]);
  });
  it('families: public-ipv6 takes IPv6, public-dual both, every other ipSource IPv4', () => {
    expect(IP_SOURCE['public-ipv6'].families).toEqual([6]);
    expect(IP_SOURCE['public-dual'].families).toEqual([4, 6]);
    for (const ipSource of ['public', 'kops', 'ipam-private'] as const) expect(IP_SOURCE[ipSource].families).toEqual([4]);
  });
  it('several IPv6 on one server: the lowest (numerically), the others named', () => {
    const a = server('a', { publicIpv6: ['2001:bc8:710:10::1', '2001:bc8:710:9::1'] });
    const result = selectServerIps([a], 'public-ipv6', new Map(), unusablePoolAddress);
    expect(result.ips).toEqual(['2001:bc8:710:9::1']);
    expect(result.several).toEqual([
      { server: 'a', family: 6, chosen: '2001:bc8:710:9::1', candidates: ['2001:bc8:710:9::1', '2001:bc8:710:10::1'] },
    ]);
  });
  it('the family is checked: an inet6 entry that is no IPv6 (or an inet one that is) never reaches a pool', () => {
    const a = server('a', { publicIpv4: ['2001:db8::4'], publicIpv6: ['51.15.1.6', V6] });
    const result = selectServerIps([a], 'public-dual', new Map(), unusablePoolAddress);
    expect(result.ips).toEqual([V6]);
    expect(result.unusable).toEqual([
      { server: 'a', ip: '2001:db8::4', why: 'is not an IPv4 address' },
      { server: 'a', ip: '51.15.1.6', why: 'is not an IPv6 address' },
    ]);
  });
  it.each([
    ['fe80::dc00:1ff:fe27:16ac', 'is a link-local address, never a server to send traffic to'],
    ['::1', 'is a loopback address, never a server to send traffic to'],
    ['fd00:42::42', 'is the Scaleway metadata service, never a server to send traffic to'],
    ['::ffff:51.15.1.2', 'is an IPv4-mapped IPv6 address (give the IPv4 address itself), never a server to send traffic to'],
    ['ff02::1', 'is a multicast address, never a server to send traffic to'],
  ])('an IPv6 no pool may hold (%s) is left out and named; the next one is used', (bad, why) => {
    const a = server('a', { publicIpv6: [bad, V6_ONLY] });
    const result = selectServerIps([a], 'public-ipv6', new Map(), unusablePoolAddress);
    expect(result.ips).toEqual([V6_ONLY]);
    expect(result.unusable).toEqual([{ server: 'a', ip: bad, why }]);
  });
  it('an IPv6 the answer does not say is attached is no candidate', () => {
    const a = server('a', { publicIpv4: [V4], publicIpv6: [V6], ipStates: { [V6]: 'detached' } });
    const result = selectServerIps([a], 'public-dual', new Map(), unusablePoolAddress);
    expect(result.ips).toEqual([V4]);
    expect(result.unusable).toEqual([{ server: 'a', ip: V6, why: 'is detached, not attached to it' }]);
    expect(result.oneFamily).toEqual([{ server: 'a', has: 4, lacks: 6 }]);
  });
  it('a stopping dual-stack server leaves with both addresses; a marked one is marked by both', () => {
    const stopping = server('stopping', { state: 'stopping', publicIpv4: [V4], publicIpv6: [V6] });
    const marked = server('marked', { tags: ['leaving'], publicIpv4: ['51.15.1.2'], publicIpv6: [V6_ONLY] });
    const result = selectServerIps([stopping, marked], 'public-dual', new Map(), unusablePoolAddress, ['leaving']);
    expect(result.leaving).toEqual([{ server: 'stopping', state: 'stopping', ips: [V4, V6] }]);
    expect(result.marked.map((m) => m.ip)).toEqual(['51.15.1.2', V6_ONLY]);
    expect(result.ips).toEqual([]);
  });
});

describe('addressChoiceNotes: what a reconcile says of the addresses it chose', () => {
  const several = (family: 4 | 6, candidates: string[]) => ({ server: 'cp-0', family, chosen: candidates[0] as string, candidates });
  it('several IPv6: named under every ipSource that takes IPv6', () => {
    const pool = { several: [several(6, ['2001:db8::1', '2001:db8::2'])], oneFamily: [] };
    expect(addressChoiceNotes(pool, 'public-ipv6')).toEqual([
      'server cp-0 has 2 routed public IPv6 addresses (2001:db8::1, 2001:db8::2); using 2001:db8::1, the lowest',
    ]);
  });
  it('several IPv4: named for kops (kOps may choose another), not for public, as before', () => {
    const pool = { several: [several(4, ['51.15.1.1', '51.15.1.2'])], oneFamily: [] };
    expect(addressChoiceNotes(pool, 'public')).toEqual([]);
    expect(addressChoiceNotes(pool, 'kops')).toEqual([
      "server cp-0 has 2 routed public IPv4 addresses (51.15.1.1, 51.15.1.2); using 51.15.1.1, the lowest. kOps' GetServerIP takes the most recently created one, so `kops update cluster` may write another",
    ]);
  });
  it('public-dual: a server in the pool by one family is named', () => {
    const pool = { several: [], oneFamily: [{ server: 'cp-1', has: 4 as const, lacks: 6 as const }] };
    expect(addressChoiceNotes(pool, 'public-dual')).toEqual([
      'server cp-1 is in the pool by its IPv4 address only: it has no usable routed public IPv6 address',
    ]);
  });
});
