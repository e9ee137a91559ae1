// The one table of ipSources (shared/schemas/ip-sources.ts): what each takes, and that discovery, the schema and the
// reference read it rather than a copy.
import { describe, expect, it } from 'vitest';
import { selectServerIps } from '../../../shared/core/desired';
import type { ObservedServer } from '../../../shared/core/model';
import { unusablePoolAddress } from '../../../shared/schemas/backend-address';
import { IP_SOURCE, IP_SOURCES } from '../../../shared/schemas/ip-sources';
import { serverSelectorSchema } from '../../../shared/schemas/target';

/** A running server with one address of every kind, each attached. */
const everyAddress: ObservedServer = {
  id: 'id-a',
  name: 'a',
  state: 'running',
  tags: [],
  zone: 'fr-par-1',
  projectId: 'project-1',
  publicIpv4: ['51.15.1.2', '163.172.1.1'],
  publicIpv6: ['2001:bc8:710:10::1'],
  routedIpv4: ['163.172.1.1'],
  privateNics: [{ id: 'nic-a', privateNetworkId: 'pn-1' }],
  ipStates: { '51.15.1.2': 'attached', '163.172.1.1': 'attached', '2001:bc8:710:10::1': 'attached' },
};
const ipam = new Map([['nic-a', ['10.1.0.3/22']]]);

describe('the ipSources', () => {
  it.each([
    ['public', ['51.15.1.2']],
    ['public-ipv6', ['2001:bc8:710:10::1']],
    ['public-dual', ['51.15.1.2', '2001:bc8:710:10::1']],
    ['ipam-private', ['10.1.0.3']],
    ['kops', ['163.172.1.1']],
  ] as const)('%s takes %j of a server with every kind of address', (source, ips) => {
    expect(selectServerIps([everyAddress], source, ipam, unusablePoolAddress).ips).toEqual(ips);
  });

  it.each(IP_SOURCES)("%s: a server with none of its addresses is skipped with the table's words", (source) => {
    const bare = { ...everyAddress, publicIpv4: [], publicIpv6: [], routedIpv4: [], privateNics: [] };
    expect(selectServerIps([bare], source, ipam, unusablePoolAddress).skipped).toEqual([
      { server: 'a', reason: IP_SOURCE[source].noAddress },
    ]);
  });

  it('only ipam-private reads IPAM (its private NICs), and names its private network when the target has one', () => {
    expect(IP_SOURCES.filter((source) => IP_SOURCE[source].readsIpam)).toEqual(['ipam-private']);
    expect(IP_SOURCES.filter((source) => IP_SOURCE[source].candidates === 'private-nics')).toEqual(['ipam-private']);
    const bare = { ...everyAddress, privateNics: [] };
    expect(selectServerIps([bare], { ipSource: 'ipam-private', privateNetworkId: 'pn-9' }, ipam, unusablePoolAddress).skipped).toEqual([
      { server: 'a', reason: 'has no ipam-private IPv4 address on private network pn-9' },
    ]);
  });

  it("only kops is held to kOps' rule", () => {
    expect(IP_SOURCES.filter((source) => IP_SOURCE[source].kopsRule)).toEqual(['kops']);
  });

  it('the schema takes exactly these, and describes each with its meaning', () => {
    const shape = serverSelectorSchema.shape.ipSource;
    for (const source of IP_SOURCES) expect(serverSelectorSchema.parse({ tags: ['x'], ipSource: source }).ipSource).toBe(source);
    expect(serverSelectorSchema.safeParse({ tags: ['x'], ipSource: 'private' }).success).toBe(false);
    for (const source of IP_SOURCES) expect(shape.description).toContain(`${source}: ${IP_SOURCE[source].meaning}`);
  });
});
