import { describe, expect, it } from 'vitest';
import { selectServerIps, stripCidr } from '../../../shared/core/desired';
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
    routedIpv4: [],
    privateNics: [],
    ...overrides,
  };
  const attached = Object.fromEntries([...base.publicIpv4, ...base.routedIpv4].map((ip) => [ip, 'attached']));
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
    expect(result.several).toEqual([{ server: 'cp-0', chosen: '51.15.1.9', candidates: ['51.15.1.9', '51.15.1.100'] }]);
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
