// The stand-ins of a shared recording: the same real value always becomes the same stand-in, a stand-in is valid
// for its kind, values that name no one stay, and labels keep the containment a name filter relies on.
import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StandIns } from '../../../cli/cassette/stand-ins';
import { refusedBackendAddress } from '../../../shared/schemas/backend-address';
import { parseTargets } from '../../../shared/schemas/target';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DOCUMENTATION_V4 = /^(192\.0\.2|198\.51\.100|203\.0\.113)\.([1-9]\d?|1\d\d|2[0-4]\d|25[0-4])$/;

/** Whether matches of two different filters overlap part-way (neither holds the other) somewhere in the name. */
function filtersOverlap(name: string, filters: readonly string[]): boolean {
  const matches: [number, number][] = [];
  for (const filter of filters)
    for (let at = name.indexOf(filter); at !== -1; at = name.indexOf(filter, at + 1)) matches.push([at, at + filter.length]);
  return matches.some(([a1, a2]) => matches.some(([b1, b2]) => a1 < b1 && b1 < a2 && a2 < b2));
}

describe('StandIns: ids', () => {
  it('a UUID becomes a version-4 UUID, the same one wherever and however it is spelt; two UUIDs two stand-ins', () => {
    const s = new StandIns();
    const a = s.uuid('972a8469-1641-4f82-8b9d-2434e465e150');
    expect(a).toMatch(UUID_V4);
    expect(s.uuid('972A8469-1641-4F82-8B9D-2434E465E150')).toBe(a);
    expect(s.text('/lb/v1/zones/fr-par-1/lbs/972a8469-1641-4f82-8b9d-2434e465e150/backends')).toBe(
      `/lb/v1/zones/fr-par-1/lbs/${a}/backends`,
    );
    expect(s.label('node-972a8469-1641-4f82-8b9d-2434e465e150')).toContain(a);
    const b = s.uuid('9a1de644-815e-46d1-bb8f-aa1837f8a88b');
    expect(b).toMatch(UUID_V4);
    expect(b).not.toBe(a);
  });

  it("keeps Scaleway's own marketplace image organization, which names no account", () => {
    expect(new StandIns().uuid('51b656e3-4865-41e8-adbc-0c45bdd780db')).toBe('51b656e3-4865-41e8-adbc-0c45bdd780db');
  });
});

describe('StandIns: addresses', () => {
  it('a public or private IPv4 becomes a documentation address a backend may name; a CIDR keeps its prefix length', () => {
    const s = new StandIns();
    const pub = s.ipv4('51.15.100.11') as string;
    const priv = s.ipv4('10.0.0.11') as string;
    for (const address of [pub, priv]) {
      expect(address).toMatch(DOCUMENTATION_V4);
      expect(isIP(address)).toBe(4);
      expect(refusedBackendAddress(address)).toBeUndefined();
    }
    expect(pub).not.toBe(priv);
    expect(s.ipv4('51.15.100.11/32')).toBe(`${pub}/32`);
    expect(s.ipv4('10.0.0.11/22')).toBe(`${priv}/22`);
    expect(s.text('pool [51.15.100.11, 10.0.0.11]')).toBe(`pool [${pub}, ${priv}]`);
    // Written with dashes in a host name made from it (the LB's reverse DNS).
    expect(s.text('51-15-100-11.lb.fr-par.scw.cloud')).toBe(`${pub.replaceAll('.', '-')}.lb.fr-par.scw.cloud`);
  });

  it('runs through the three documentation /24s, then the benchmarking range, never giving one twice', () => {
    const s = new StandIns();
    const seen = new Set<string>();
    for (let i = 0; i < 800; i += 1) seen.add(s.ipv4(`51.${Math.floor(i / 250)}.${i % 250}.7`) as string);
    expect(seen.size).toBe(800);
    for (const address of seen) expect(address.startsWith('198.18.') || DOCUMENTATION_V4.test(address)).toBe(true);
    expect([...seen].filter((a) => a.startsWith('198.18.'))).toHaveLength(800 - 3 * 254);
  });

  it('keeps what names no one: unspecified, loopback, link-local (the metadata service), multicast, netmasks, the Instance gateway', () => {
    const s = new StandIns();
    for (const kept of ['0.0.0.0', '0.0.0.0/0', '127.0.0.1', '169.254.42.42', '224.0.0.1', '255.255.255.0', '62.210.0.1'])
      expect(s.ipv4(kept)).toBe(kept);
    for (const kept of ['::', '::1', 'fe80::', 'fe80::1/64', 'ff02::1']) expect(s.ipv6(kept)).toBe(kept);
  });

  it("a link-local address made from a MAC (a routed IPv6's gateway) is replaced: it names the machine the MAC does", () => {
    const s = new StandIns();
    const gateway = s.ipv6('fe80::dc00:1ff:fe27:16ac') as string;
    expect(gateway).toMatch(/^fe80::[0-9a-f]+$/);
    expect(gateway).not.toContain('16ac');
    expect(s.ipv6('FE80::DC00:01FF:FE27:16AC')).toBe(gateway);
    expect(s.text('gateway fe80::dc00:1ff:fe27:16ac/64')).toBe(`gateway ${gateway}/64`);
  });

  it('an IPv6 address becomes one of 2001:db8::/32, the same for every spelling of it', () => {
    const s = new StandIns();
    const a = s.ipv6('2001:bc8:710:1a44::1') as string;
    expect(a.startsWith('2001:db8::')).toBe(true);
    expect(isIP(a)).toBe(6);
    expect(s.ipv6('2001:0bc8:0710:1a44:0:0:0:1')).toBe(a);
    expect(s.ipv6('2001:bc8:710:1a44::1/64')).toBe(`${a}/64`);
    expect(s.ipv6('2001:bc8:710:1a44::2')).not.toBe(a);
  });

  it('leaves times, versions and other colon or dot text alone', () => {
    const s = new StandIns();
    for (const text of [
      'Tue, 01 Dec 2026 15:19:32 GMT',
      '2026-12-01T15:18:32.162Z',
      'scaleway-sdk-js/1.3.2',
      'std::string',
      '1.2.3',
      'a:b:c',
    ])
      expect(s.text(text)).toBe(text);
  });

  it('a MAC address becomes a locally administered one, whatever its case', () => {
    const s = new StandIns();
    const mac = s.mac('02:00:00:10:00:0b');
    expect(mac).toMatch(/^02:00:00(:[0-9a-f]{2}){3}$/);
    expect(s.text('02:00:00:10:00:0B')).toBe(mac);
    expect(s.text('DE:00:00:AA:BB:CC')).not.toBe(mac);
  });

  it('an e-mail address becomes user-N@mail.test', () => {
    const s = new StandIns();
    expect(s.text('owner: ops@example.com, ops@example.com')).toBe('owner: user-1@mail.test, user-1@mail.test');
  });
});

describe('StandIns: labels (names, tags, host names)', () => {
  it('replaces every word and keeps the separators, short numbers and the case pattern', () => {
    const s = new StandIns();
    const cluster = s.label('prod.k8s.local');
    expect(cluster).toMatch(/^x[a-wyz]{3}\.x[a-wyz]{3}\.x[a-wyz]{3}$/);
    expect(s.label('noprefix=kops.k8s.io/cluster=prod.k8s.local')).toMatch(
      new RegExp(`^x\\w{3}=x\\w{3}\\.x\\w{3}\\.x\\w{3}/x\\w{3}=${cluster}$`),
    );
    expect(s.label('control-plane-fr-par-1-0')).toMatch(/^x\w{3}-x\w{3}-x\w{3}-x\w{3}-1-0$/);
    expect(s.label('ControlPlane')).toMatch(/^X[a-wyz]{3}$/);
    expect(s.label('LB')).toMatch(/^X[A-WYZ]{3}$/);
    // A name, nowhere a word of it: no real word survives.
    expect(s.label('acme payments prod')).not.toMatch(/acme|payments|prod/);
  });

  it("what the Instance API derives from a name (its hostname: lower case, '_' as '-') is derived from the stand-in alike", () => {
    const hostnameOf = (name: string) => name.toLowerCase().replaceAll('_', '-');
    // Found by the property below: a name whose host name reads as a dashed address.
    const found = new StandIns();
    expect(hostnameOf(found.label('1_0_0_0'))).toBe(found.label('1-0-0-0'));
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,30}$/), (name) => {
        const s = new StandIns();
        expect(hostnameOf(s.label(name))).toBe(s.label(hostnameOf(name)));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the words of host names Scaleway makes (*.scw.cloud), replacing the address or id inside', () => {
    const s = new StandIns();
    const id = s.uuid('972a8469-1641-4f82-8b9d-2434e465e150');
    expect(s.label('972a8469-1641-4f82-8b9d-2434e465e150.pub.instances.scw.cloud')).toBe(`${id}.pub.instances.scw.cloud`);
  });

  it("a kOps cluster name stays a valid one, and its API LB's name stays api-word.<the cluster's stand-in>", () => {
    // Found by the property below: an address is a whole token, so "0.0.0.0a" is a name's words wherever it stands.
    const found = new StandIns();
    expect(found.label('api.0.0.0.0a')).toBe(`${found.label('api')}.${found.label('0.0.0.0a')}`);
    expect(found.label('api.1.0.0.0-a')).toBe(`${found.label('api')}.${found.label('1.0.0.0-a')}`);
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/), { minLength: 1, maxLength: 4 }), (labels) => {
        const cluster = labels.join('.');
        fc.pre(isIP(cluster) === 0); // "1.0.0.0" is a valid DNS name, and an address first
        const s = new StandIns();
        const standIn = s.label(cluster);
        expect(() => parseTargets([{ kops: { cluster: standIn, zone: 'fr-par-1' } }])).not.toThrow();
        expect(s.label(`api.${cluster}`)).toBe(`${s.label('api')}.${standIn}`);
      }),
      { numRuns: 200 },
    );
  });

  // Left out, as documented: words that differ only in case (they share a stand-in, so the hostname the API derives
  // from a name stays derivable), two filters whose matches overlap part-way in one name (a doctor run sends
  // one LB name per target), and names holding an address (`1-0-0-0`: its stand-in is a documentation address,
  // whose digits a short number filter such as `9` may match where the real one's did not).
  it('a name filter matches a stand-in name exactly where it matched the real one (both ways), even inside a word', () => {
    const word = fc.stringMatching(/^[a-c0-9]{1,4}$/);
    const label = fc
      .array(fc.tuple(word, fc.constantFrom('-', '.', '_', '=', '/')), { minLength: 1, maxLength: 4 })
      .map((parts) => parts.map(([w, sep], i) => (i === 0 ? w : `${sep}${w}`)).join(''));
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 6 }), fc.array(label, { minLength: 1, maxLength: 3 }), (names, filters) => {
        fc.pre(!names.some((name) => filtersOverlap(name, filters) || /\d{1,3}(?:[.-]\d{1,3}){3}/.test(name)));
        const s = new StandIns();
        s.useFilters(filters);
        for (const filter of filters) {
          for (const name of names) {
            expect(s.label(name).includes(s.label(filter)), `${JSON.stringify(filter)} in ${JSON.stringify(name)}`).toBe(
              name.includes(filter),
            );
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
