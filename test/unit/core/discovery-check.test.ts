import { describe, expect, it } from 'vitest';
import { discoveredPool, unusableAddressWarning } from '../../../shared/core/desired';
import {
  admitLbs,
  admitPrivateIps,
  admitServers,
  contradictionWarning,
  ownHealthReports,
  filterMismatchWarning,
  lbMismatch,
  otherLbItems,
} from '../../../shared/core/discovery-check';
import type { IpamIpView } from '../../../shared/core/kops-rule';
import type { ObservedBackend, ObservedLb, ObservedServer } from '../../../shared/core/model';
import { unusablePoolAddress } from '../../../shared/schemas/backend-address';

const CLUSTER = 'noprefix=kops.k8s.io/cluster=prod.k8s.local';
const ROLE = 'noprefix=kops.k8s.io/role=ControlPlane';
const PROJECT = '11111111-1111-4111-8111-111111111111';
const OTHER_PROJECT = '22222222-2222-4222-8222-222222222222';
const scope = { zone: 'fr-par-1', tags: [CLUSTER, ROLE] };

/** A server as the adapter describes it: every public address attached unless `ipStates` says otherwise. */
const server = (name: string, overrides: Partial<ObservedServer> = {}): ObservedServer => {
  const base = {
    id: `id-${name}`,
    name,
    state: 'running',
    tags: [CLUSTER, ROLE, 'noprefix=kops.k8s.io/instance-group=control-plane-fr-par-1'],
    zone: 'fr-par-1',
    projectId: PROJECT,
    publicIpv4: ['51.15.1.1'],
    publicIpv6: [],
    routedIpv4: [],
    privateNics: [],
    ...overrides,
  };
  const attached = Object.fromEntries([...base.publicIpv4, ...base.routedIpv4].map((ip) => [ip, 'attached']));
  return { ...base, ipStates: { ...attached, ...overrides.ipStates } };
};

const names = (servers: readonly ObservedServer[]) => servers.map((s) => s.name);

describe('admitServers: only a server carrying every tag of the target exactly, in its zone (and project), is the target’s', () => {
  it('admits a server with every tag (and more), in the zone', () => {
    const { admitted, leftOut } = admitServers([server('cp-0')], scope);
    expect(names(admitted)).toEqual(['cp-0']);
    expect(leftOut).toEqual([]);
  });

  it('refuses a server missing a tag, naming the tag: workers, other clusters', () => {
    const { admitted, leftOut } = admitServers(
      [server('cp-0'), server('worker', { tags: [CLUSTER] }), server('other-cp', { tags: ['noprefix=kops.k8s.io/cluster=staging', ROLE] })],
      scope,
    );
    expect(names(admitted)).toEqual(['cp-0']);
    expect(leftOut).toEqual([
      { what: 'server worker (id-worker)', why: `does not carry ${ROLE}` },
      { what: 'server other-cp (id-other-cp)', why: `does not carry ${CLUSTER}` },
    ]);
  });

  it('compares tags exactly: a longer namesake, a prefix or another case is not the tag', () => {
    const { admitted } = admitServers(
      [
        server('namesake', { tags: [`${CLUSTER}2`, ROLE] }),
        server('prefix-only', { tags: ['noprefix=kops.k8s.io/cluster=prod', ROLE] }),
        server('case', { tags: [CLUSTER.toUpperCase(), ROLE] }),
        server('padded', { tags: [` ${CLUSTER}`, ROLE] }),
      ],
      scope,
    );
    expect(admitted).toEqual([]);
  });

  it('refuses a server of another zone', () => {
    const { admitted, leftOut } = admitServers([server('cp-0', { zone: 'fr-par-2' })], scope);
    expect(admitted).toEqual([]);
    expect(leftOut).toEqual([{ what: 'server cp-0 (id-cp-0)', why: 'is in zone fr-par-2, not fr-par-1' }]);
  });

  it('refuses a server of another project when the project is known, and takes any project when it is not', () => {
    const elsewhere = server('cp-0', { projectId: OTHER_PROJECT });
    expect(admitServers([elsewhere], { ...scope, projectId: PROJECT }).leftOut).toEqual([
      { what: 'server cp-0 (id-cp-0)', why: `is in project ${OTHER_PROJECT}, not ${PROJECT}` },
    ]);
    expect(names(admitServers([elsewhere], scope).admitted)).toEqual(['cp-0']);
    expect(names(admitServers([server('cp-1')], { ...scope, projectId: PROJECT }).admitted)).toEqual(['cp-1']);
  });

  it('names every reason a server fails', () => {
    const { leftOut } = admitServers([server('x', { tags: [], zone: 'nl-ams-1', projectId: OTHER_PROJECT })], {
      ...scope,
      projectId: PROJECT,
    });
    expect(leftOut[0]?.why).toBe(
      `does not carry ${CLUSTER}, ${ROLE} and is in zone nl-ams-1, not fr-par-1 and is in project ${OTHER_PROJECT}, not ${PROJECT}`,
    );
  });
});

describe('admitPrivateIps: an IPAM answer counts only for the NIC it was asked about', () => {
  const ip = (address: string, patch: Partial<IpamIpView> = {}): IpamIpView => ({
    address,
    isIpv6: false,
    resourceId: 'nic-a',
    resourceType: 'instance_private_nic',
    ...patch,
  });

  it('keeps the IPv4 addresses of the NICs asked about, by NIC', () => {
    const { byNic, leftOut } = admitPrivateIps([ip('10.0.0.2/22'), ip('10.0.0.3/22', { resourceId: 'nic-b' })], ['nic-a', 'nic-b']);
    expect(Object.fromEntries(byNic)).toEqual({ 'nic-a': ['10.0.0.2/22'], 'nic-b': ['10.0.0.3/22'] });
    expect(leftOut).toEqual([]);
  });

  it('refuses an address of another resource, of a resource that is not a NIC, of none, or IPv6', () => {
    const { byNic, leftOut } = admitPrivateIps(
      [
        ip('10.9.9.9/22', { resourceId: 'nic-of-someone-else' }),
        ip('51.15.1.1/32', { resourceType: 'instance_server' }),
        ip('10.8.8.8/22', { resourceId: undefined, resourceType: undefined }),
        ip('fd00::2/64', { isIpv6: true }),
      ],
      ['nic-a'],
    );
    expect(byNic.size).toBe(0);
    expect(leftOut).toEqual([
      { what: 'IPAM address 10.9.9.9/22', why: 'belongs to instance_private_nic nic-of-someone-else, which was not asked about' },
      { what: 'IPAM address 51.15.1.1/32', why: 'belongs to instance_server nic-a, not to a private NIC' },
      { what: 'IPAM address 10.8.8.8/22', why: 'belongs to no resource' },
      { what: 'IPAM address fd00::2/64', why: 'is IPv6, and IPv4 was asked for' },
    ]);
  });
});

describe('oneCopyPerServer: an answer that contradicts itself about a server says nothing of it', () => {
  it('copies that agree are one server; copies that differ are left out, naming what differs', () => {
    const a = server('cp-0');
    const moved = server('cp-0', { publicIpv4: ['51.15.1.9'] });
    const stopped = server('cp-1', { state: 'stopped' });
    const { admitted, contradicted } = admitServers([a, server('cp-1'), a, moved, stopped, server('cp-2'), server('cp-2')], scope);
    expect(names(admitted)).toEqual(['cp-2']);
    expect(contradicted).toEqual([
      {
        what: 'server cp-0 (id-cp-0)',
        why: 'is listed 3 times, with different public IPv4 [51.15.1.1] and [51.15.1.9]; public IP states {"51.15.1.1":"attached"} and {"51.15.1.9":"attached"}',
      },
      { what: 'server cp-1 (id-cp-1)', why: 'is listed 2 times, with different state "running" and "stopped"' },
    ]);
    expect(contradictionWarning(contradicted)).toBe(
      `[contradictory_answer] the API contradicted itself about 2 server(s), left out of the pool: server cp-0 (id-cp-0) ${contradicted[0]?.why}; server cp-1 (id-cp-1) ${contradicted[1]?.why}`,
    );
    expect(contradictionWarning([])).toBeUndefined();
  });

  it('a contradicted server is no pool member, nor leaving, whatever its copies say', () => {
    const pool = discoveredPool(
      { ipSource: 'public' },
      admitServers([server('cp-0'), server('cp-0', { state: 'stopping' }), server('cp-1', { publicIpv4: ['51.15.1.2'] })], scope),
      [],
      unusablePoolAddress,
    );
    expect(pool).toMatchObject({ ips: ['51.15.1.2'], serverCount: 1, leaving: [] });
    expect(pool.contradicted.map((c) => c.what)).toEqual(['server cp-0 (id-cp-0)']);
  });
});

describe('otherLbItems: the one rule of every listing of an LB’s own resources', () => {
  const backend = (id: string, lbId?: string) => ({ id, name: 'lb-backend-https', ...(lbId && { lbId }) }) as ObservedBackend;
  const what = (b: ObservedBackend) => `backend ${b.name} (${b.id})`;

  it('names each item naming another LB; the LB’s own, and an item naming none, are not named', () => {
    const items = [backend('b-1', 'lb-1'), backend('b-2'), backend('b-3', 'lb-2')];
    expect(otherLbItems(items, (b) => [b.lbId], 'lb-1', what)).toEqual([
      { what: 'backend lb-backend-https (b-3)', why: 'belongs to load-balancer lb-2, not lb-1' },
    ]);
  });

  it('an item naming several LBs (a frontend and its backend) is named once, with every other LB', () => {
    const frontend = { id: 'f-1', lbIds: ['lb-1', 'lb-2', 'lb-3', 'lb-2'] };
    expect(
      otherLbItems(
        [frontend],
        (f) => f.lbIds,
        'lb-1',
        (f) => `frontend ${f.id}`,
      ),
    ).toEqual([{ what: 'frontend f-1', why: 'belongs to load-balancer lb-2, lb-3, not lb-1' }]);
  });
});

describe('the warnings: one per reconcile, code first, naming what was left out', () => {
  it('discovery_filter_mismatch groups what was left out for the same reason; nothing left out, no warning', () => {
    expect(filterMismatchWarning([])).toBeUndefined();
    const { leftOut } = admitServers(
      [server('w-0', { tags: [CLUSTER] }), server('w-1', { tags: [CLUSTER] }), server('far', { zone: 'fr-par-2' })],
      scope,
    );
    expect(filterMismatchWarning(leftOut)).toBe(
      '[discovery_filter_mismatch] the API answered 3 item(s) its request did not ask for, left out of every pool and backend: ' +
        `server w-0 (id-w-0), server w-1 (id-w-1): does not carry ${ROLE}; server far (id-far): is in zone fr-par-2, not fr-par-1`,
    );
  });

  it('unusable_address names each address left out and why', () => {
    expect(unusableAddressWarning([])).toBeUndefined();
    expect(
      unusableAddressWarning([{ server: 'cp-0', ip: '127.0.0.1', why: 'is a loopback address, never a server to send traffic to' }]),
    ).toBe('[unusable_address] left out of the pool: 127.0.0.1 of server cp-0 is a loopback address, never a server to send traffic to');
  });
});

describe('discoveredPool: only checked answers reach the pool', () => {
  it('the pool holds the admitted servers’ addresses; servers left out count for nothing, not even as leaving', () => {
    const answer = [
      server('cp-0'),
      server('worker', { tags: [CLUSTER], publicIpv4: ['51.15.1.2'] }),
      server('gone', { tags: [CLUSTER], state: 'stopped' }),
    ];
    const pool = discoveredPool({ ipSource: 'public' }, admitServers(answer, scope), [], unusablePoolAddress);
    expect(pool).toMatchObject({ ips: ['51.15.1.1'], serverCount: 1, leaving: [], skipped: [] });
    expect(pool.leftOut.map((r) => r.what)).toEqual(['server worker (id-worker)', 'server gone (id-gone)']);
  });

  it('ipam-private: IPAM addresses of NICs nobody asked about are left out with the servers', () => {
    const answer = [server('cp-0', { privateNics: [{ id: 'nic-a', privateNetworkId: 'pn-1' }] })];
    const ipam: IpamIpView[] = [
      { address: '10.0.0.2/22', isIpv6: false, resourceId: 'nic-a', resourceType: 'instance_private_nic' },
      { address: '10.0.0.3/22', isIpv6: false, resourceId: 'nic-z', resourceType: 'instance_private_nic' },
    ];
    const pool = discoveredPool({ ipSource: 'ipam-private' }, admitServers(answer, scope), ipam, unusablePoolAddress);
    expect(pool.ips).toEqual(['10.0.0.2']);
    expect(pool.leftOut.map((r) => r.what)).toEqual(['IPAM address 10.0.0.3/22']);
  });

  it('addresses that are not unicast IPv4 never reach a pool: the next one is taken, or the server is skipped', () => {
    const answer = [
      server('cp-0', { publicIpv4: ['127.0.0.1', '51.15.1.9'] }),
      server('cp-1', { publicIpv4: ['224.0.0.1'] }),
      server('cp-2', { publicIpv4: ['2001:db8::1', 'not-an-ip', '0.0.0.0', '169.254.42.42', '255.255.255.255'] }),
    ];
    const pool = discoveredPool({ ipSource: 'public' }, admitServers(answer, scope), [], unusablePoolAddress);
    expect(pool.ips).toEqual(['51.15.1.9']);
    expect(pool.skipped).toEqual([
      { server: 'cp-1', reason: 'has no public IPv4 address' },
      { server: 'cp-2', reason: 'has no public IPv4 address' },
    ]);
    expect(pool.unusable.map((u) => `${u.server} ${u.ip}`)).toEqual([
      'cp-0 127.0.0.1',
      'cp-1 224.0.0.1',
      'cp-2 0.0.0.0',
      'cp-2 169.254.42.42',
      'cp-2 255.255.255.255',
      'cp-2 2001:db8::1',
      'cp-2 not-an-ip',
    ]);
    expect(pool.unusable.find((u) => u.ip === '2001:db8::1')?.why).toBe('is not an IPv4 address');
    expect(pool.unusable.find((u) => u.ip === '224.0.0.1')?.why).toMatch(/multicast/);
  });
});

describe('admitLbs / lbMismatch: the LB asked for, by id or exact name, in the target’s zone', () => {
  const lb = (overrides: Partial<ObservedLb> = {}): ObservedLb => ({
    id: 'lb-1',
    name: 'api.prod.k8s.local',
    zone: 'fr-par-1',
    status: 'ready',
    instanceStatuses: ['ready'],
    ...overrides,
  });

  it('the LB asked for passes, by id and by name', () => {
    expect(lbMismatch(lb(), { zone: 'fr-par-1', id: 'lb-1' })).toEqual([]);
    expect(lbMismatch(lb(), { zone: 'fr-par-1', name: 'api.prod.k8s.local' })).toEqual([]);
  });

  it('another id, another exact name or another zone is named, each reason once', () => {
    expect(lbMismatch(lb({ id: 'lb-2', zone: 'nl-ams-1' }), { zone: 'fr-par-1', id: 'lb-1' })).toEqual([
      'is lb-2, not lb-1',
      'is in zone nl-ams-1, not fr-par-1',
    ]);
    expect(lbMismatch(lb({ name: 'api.prod.k8s.local.old' }), { zone: 'fr-par-1', name: 'api.prod.k8s.local' })).toEqual([
      'is named "api.prod.k8s.local.old", not "api.prod.k8s.local"',
    ]);
  });

  it('admitLbs keeps the zone’s own and names the rest', () => {
    const { admitted, leftOut } = admitLbs([lb(), lb({ id: 'lb-ams', zone: 'nl-ams-1' })], {
      zone: 'fr-par-1',
      name: 'api.prod.k8s.local',
    });
    expect(admitted.map((l) => l.id)).toEqual(['lb-1']);
    expect(leftOut).toEqual([{ what: 'load-balancer api.prod.k8s.local (lb-ams)', why: 'is in zone nl-ams-1, not fr-par-1' }]);
  });
});

describe('ownHealthReports: only the reports of the backend asked about', () => {
  it('keeps its own and those that name no backend; names the rest', () => {
    const report = (ip: string, backendId?: string) => ({
      ip,
      status: 'passed',
      serverState: 'running',
      instanceId: 'i-1',
      ...(backendId && { backendId }),
    });
    const { own, leftOut } = ownHealthReports([report('10.0.0.1', 'b-1'), report('10.0.0.2'), report('10.0.0.3', 'b-2')], 'b-1');
    expect(own.map((r) => r.ip)).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(leftOut).toEqual([{ what: 'health report of 10.0.0.3', why: 'is of backend b-2, not b-1' }]);
  });
});
