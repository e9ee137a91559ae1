import { describe, expect, it } from 'vitest';
import { selectServerIps, stripCidr } from '../../../shared/core/desired';
import type { ObservedServer } from '../../../shared/core/model';
import { unusablePoolAddress } from '../../../shared/schemas/backend-address';

const server = (name: string, overrides: Partial<ObservedServer> = {}): ObservedServer => ({
  id: `id-${name}`,
  name,
  state: 'running',
  tags: [],
  zone: 'fr-par-1',
  projectId: 'project-1',
  publicIpv4: [],
  routedIpv4: [],
  privateNicIds: [],
  ...overrides,
});

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
    const servers = [server('a', { privateNicIds: ['nic-a'] }), server('b', { privateNicIds: ['nic-b'] })];
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
  it('strips CIDR masks', () => {
    expect(stripCidr('fd5f::1/64')).toBe('fd5f::1');
    expect(stripCidr('10.0.0.1')).toBe('10.0.0.1');
  });
});
