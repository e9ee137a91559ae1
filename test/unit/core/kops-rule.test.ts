// kOps' own address and server rules (shared/core/kops-rule.ts) replayed over recorded API answers
// (test/fixtures/scaleway-api), against the `kops` ipSource. Evidence and kOps line numbers: docs/kops-parity.md.
import { createAdvancedClient, withHTTPClient, withProfile } from '@scaleway/sdk-client';
import { Instancev1 } from '@scaleway/sdk-instance';
import { Ipamv1 } from '@scaleway/sdk-ipam';
import { beforeAll, describe, expect, it } from 'vitest';
import { toIpamIpView, toObservedServer } from '../../../shared/adapters/scaleway';
import { selectServerIps } from '../../../shared/core/desired';
import { unusablePoolAddress } from '../../../shared/schemas/backend-address';
import { kopsCountsServer, kopsRole, kopsServerIp, type IpamIpView } from '../../../shared/core/kops-rule';
import type { ObservedServer } from '../../../shared/core/model';
import { parseTargets } from '../../../shared/schemas/target';
import { readCassette, recordedAnswers } from '../../support/cassette';
import { demoSeed } from '../../support/world';

const IPAM_RECORDINGS = ['ipam-data-source-ipamip-instance', 'ipam-list-ipam-ips-basic', 'instance-private-nic-with-ipam'];
const interactions = IPAM_RECORDINGS.flatMap(readCassette);

/** The real SDK, answered by a recorded body: its own unmarshalling, no network. */
function sdkAnswering(body: unknown) {
  const client = createAdvancedClient(
    withProfile({ accessKey: 'SCWRECORDEDXXXXXXXXX', secretKey: '00000000-0000-4000-8000-000000000000' }),
    withHTTPClient(async () => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } })),
  );
  return { instance: new Instancev1.API(client), ipam: new Ipamv1.API(client) };
}

async function sdkServer(body: unknown): Promise<Instancev1.Server> {
  const { server } = await sdkAnswering(body).instance.getServer({ zone: 'fr-par-1', serverId: '00000000-0000-4000-8000-000000000000' });
  if (!server) throw new Error('recorded answer without a server');
  return server;
}
const sdkIps = async (body: unknown) => (await sdkAnswering(body).ipam.listIPs({ region: 'fr-par', pageSize: 1000 })).ips;

let recordedIps: IpamIpView[] = [];
let recordedServers: (ObservedServer & { zone: string })[] = [];

beforeAll(async () => {
  /** Every IPAM IP a recorded ListIPs answered, as the adapter reads it. */
  const lists = await Promise.all(recordedAnswers(interactions, 'GET', /^\/ipam\/v1\/regions\/[^/]+\/ips$/).map(sdkIps));
  recordedIps = lists.flat().map(toIpamIpView);
  /** Every server snapshot a recorded GetServer answered (before, with and after its private NIC). */
  const servers = await Promise.all(
    recordedAnswers(interactions, 'GET', /^\/instance\/v1\/zones\/[^/]+\/servers\/[0-9a-f-]{36}$/).map(sdkServer),
  );
  recordedServers = servers.map((server) => ({ ...toObservedServer(server), zone: server.zone }));
});

describe("kOps' GetServerIP over the recorded IPAM answers", () => {
  it('the recordings hold servers with private NICs and the IPAM addresses of those NICs', () => {
    expect(recordedServers.length).toBeGreaterThanOrEqual(2);
    expect(recordedIps.length).toBeGreaterThanOrEqual(4);
    const nicIds = new Set(recordedServers.flatMap((s) => s.privateNics.map((nic) => nic.id)));
    expect(recordedIps.some((ip) => ip.resourceId !== undefined && nicIds.has(ip.resourceId))).toBe(true);
  });

  it('a private-NIC address is never zonal and never keyed by the server id: kOps cannot pick it', () => {
    const serverIds = new Set(recordedServers.map((s) => s.id));
    for (const ip of recordedIps) {
      expect(ip.zonal, ip.address).toBeUndefined();
      if (ip.resourceId !== undefined) expect(serverIds.has(ip.resourceId)).toBe(false);
    }
  });

  it('replayed per recorded server, kOps finds no address, and neither does the kops ipSource; ipam-private does', () => {
    for (const server of recordedServers) {
      expect(kopsServerIp(server.id, server.zone, recordedIps)).toBeUndefined(); // kOps: "could not find IP for server"
      expect(selectServerIps([server], 'kops', new Map(), unusablePoolAddress).ips).toEqual([]);
      if (server.privateNics.length > 0) {
        const byNic = new Map(
          server.privateNics.map((nic) => [nic.id, recordedIps.filter((ip) => ip.resourceId === nic.id).map((ip) => ip.address)]),
        );
        expect(selectServerIps([server], 'ipam-private', byNic, unusablePoolAddress).ips.length).toBe(1);
      }
    }
  });
});

describe('a routed IPv4 is a zonal IPAM IP: the one address kOps and the kops ipSource both take', () => {
  let created: Instancev1.Ip[] = [];
  beforeAll(async () => {
    const bodies = recordedAnswers(readCassette('lb-backend-basic'), 'POST', /^\/instance\/v1\/zones\/[^/]+\/ips$/);
    created = await Promise.all(
      bodies.map(async (body) => {
        const { ip } = await sdkAnswering(body).instance.createIp({ zone: 'fr-par-1' });
        if (!ip) throw new Error('recorded answer without an ip');
        return ip;
      }),
    );
  });

  it('recorded: a flexible IP is routed_ipv4, zonal, and its ipam_id is its own id', () => {
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const ip of created) {
      expect(ip).toMatchObject({ type: 'routed_ipv4', zone: 'fr-par-1' });
      expect(ip?.ipamId).toBe(ip?.id);
    }
  });

  it('attached to a server (shapes derived from the recording, the attachment itself is not recorded): both rules agree', async () => {
    const ip = created[0] as Instancev1.Ip;
    const serverId = '11111111-2222-4333-8444-555555555555';
    // What IPAM lists for it once attached, and the entry the server's public_ips then carries.
    const asIpam: IpamIpView = {
      address: `${ip.address}/32`,
      isIpv6: false,
      zonal: ip.zone,
      resourceId: serverId,
      createdAt: '2026-08-17T15:00:00Z',
    };
    const attached = await sdkServer({
      server: {
        id: serverId,
        name: 'control-plane-fr-par-1-0',
        state: 'running',
        zone: 'fr-par-1',
        tags: [],
        public_ips: [
          {
            id: ip.id,
            address: ip.address,
            family: 'inet',
            ipam_id: ip.ipamId,
            dynamic: false,
            provisioning_mode: 'dhcp',
            tags: [],
            state: 'attached',
            gateway: '62.210.0.1',
            netmask: '32',
          },
        ],
        private_nics: [],
      },
    });
    const kops = kopsServerIp(serverId, 'fr-par-1', [...recordedIps, asIpam]);
    expect(kops).toBe(ip.address);
    expect(selectServerIps([toObservedServer(attached)], 'kops', new Map(), unusablePoolAddress).ips).toEqual([kops]);
  });

  it('several zonal IPv4 on one server: kOps takes the newest (created_at desc, the Go SDK default order)', () => {
    const ips: IpamIpView[] = [
      { address: '51.15.1.9/32', isIpv6: false, zonal: 'fr-par-1', resourceId: 's', createdAt: '2026-01-01T00:00:00Z' },
      { address: '51.15.1.100/32', isIpv6: false, zonal: 'fr-par-1', resourceId: 's', createdAt: '2026-02-01T00:00:00Z' },
      { address: '2001:db8::1/64', isIpv6: true, zonal: 'fr-par-1', resourceId: 's', createdAt: '2026-03-01T00:00:00Z' },
      { address: '51.15.1.200/32', isIpv6: false, zonal: 'fr-par-2', resourceId: 's', createdAt: '2026-03-01T00:00:00Z' },
    ];
    expect(kopsServerIp('s', 'fr-par-1', ips)).toBe('51.15.1.100');
  });
});

describe("kOps' server selection vs the shorthand's", () => {
  const seed = demoSeed();
  const cluster = 'demo.k8s.local';
  const [target] = parseTargets([{ kops: { cluster, zone: 'fr-par-1' } }]);

  it('kOps counts every cluster server whose role is not Node; its workers carry no role tag, so they count too', () => {
    const servers = seed.servers ?? [];
    expect(servers.filter((s) => kopsRole(s.tags) === '').map((s) => s.name)).toEqual(['nodes-fr-par-1-0', 'nodes-fr-par-1-1']);
    expect(servers.filter((s) => kopsCountsServer(s.tags, cluster)).map((s) => s.name)).toEqual(servers.map((s) => s.name));
  });

  it('the shorthand selects the control planes positively: the same set as kOps for control planes, no workers', () => {
    const servers = seed.servers ?? [];
    const ours = servers.filter((s) => target?.servers.tags.every((t) => s.tags.includes(t))).map((s) => s.name);
    const kopsControlPlanes = servers
      .filter((s) => kopsCountsServer(s.tags, cluster) && kopsRole(s.tags) === 'ControlPlane')
      .map((s) => s.name);
    expect(ours).toEqual(kopsControlPlanes);
    expect(ours).toEqual(['control-plane-fr-par-1-0', 'control-plane-fr-par-1-1', 'control-plane-fr-par-1-2']);
    expect(target?.servers.ipSource).toBe('kops');
  });
});
