/** Turns seed entries into records (ids generated where missing). */
import { randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { parseSeedBackend } from './backend-input';
import { ApiError } from './errors';
import { defaultReverses, newRoutedIpv6, prefix64 } from './ipv6';
import type { BackendRecord, IpamIpRecord, LbRecord, ServerRecord } from './records';
import type { SeedBackend, SeedIpamIp, SeedLb, SeedServer } from './contract';

export const DEFAULT_PROJECT_ID = '5c1f7b0e-3a52-4d7c-9f1e-2b8e6d4a9c10';

export interface Ownership {
  projectId: string;
  organizationId: string;
}

export function regionOfZone(zone: string): string {
  return zone.replace(/-\d+$/, '');
}

function randomMac(prefix: string): string {
  const bytes = [...randomBytes(3)].map((b) => b.toString(16).padStart(2, '0'));
  return `${prefix}:${bytes.join(':')}`;
}

function randomPublicIpv4(): string {
  const [a = 0, b = 0] = randomBytes(2);
  return `51.158.${a}.${Math.max(1, b)}`;
}

export function lbFromSeed(seed: SeedLb, owner: Ownership, now: string): LbRecord {
  return {
    id: seed.id ?? randomUUID(),
    name: seed.name,
    description: seed.description ?? '',
    zone: seed.zone,
    projectId: owner.projectId,
    organizationId: owner.organizationId,
    tags: [...(seed.tags ?? [])],
    type: seed.type ?? 'lb-s',
    sslCompatibilityLevel: seed.sslCompatibilityLevel ?? 'ssl_compatibility_level_intermediate',
    createdAt: seed.createdAt ?? now,
    updatedAt: seed.createdAt ?? now,
    ip: { id: randomUUID(), address: seed.ipAddress ?? randomPublicIpv4() },
    instance: { id: randomUUID(), createdAt: seed.createdAt ?? now },
    secondInstance: { id: randomUUID(), createdAt: seed.createdAt ?? now },
    status: seed.status ?? 'ready',
    statusRevertsAt: null,
    instancesPendingUntil: 0,
    instancesUpdatedAt: Date.parse(seed.createdAt ?? now) || Date.now(),
    privateNetworks: (seed.privateNetworks ?? []).map((attachment) => ({
      privateNetworkId: attachment.privateNetworkId,
      status: attachment.status ?? 'ready',
      ipamIds: [...(attachment.ipamIds ?? [randomUUID()])],
      createdAt: attachment.createdAt ?? now,
      updatedAt: attachment.createdAt ?? now,
    })),
  };
}

export function backendFromSeed(seed: SeedBackend, lbId: string, now: string): BackendRecord {
  let parsed: ReturnType<typeof parseSeedBackend>;
  try {
    parsed = parseSeedBackend(seed);
  } catch (error) {
    const detail = error instanceof ApiError ? JSON.stringify(error.body) : String(error);
    throw new Error(`seed backend ${seed.name}: ${detail}`);
  }
  const { settings, healthCheck, pool } = parsed;
  return {
    id: seed.id ?? randomUUID(),
    lbId,
    settings,
    healthCheck,
    pool,
    createdAt: seed.created_at ?? now,
    updatedAt: seed.updated_at ?? seed.created_at ?? now,
  };
}

export interface SeededServer {
  server: ServerRecord;
  ips: IpamIpRecord[];
}

function publicIpam(
  address: string,
  id: string,
  server: { id: string; name: string; zone: string },
  owner: Ownership,
  now: string,
): IpamIpRecord {
  const isIpv6 = isIP(address) === 6;
  const { zone } = server;
  // A routed IPv6 is listed as the server's /64 prefix, with no resource name (ipam-ipamip-reverse-dns-basic #13).
  return {
    id,
    address: isIpv6 ? prefix64(address) : `${address}/32`,
    isIpv6,
    region: regionOfZone(zone),
    zone,
    projectId: owner.projectId,
    source: { zonal: zone },
    privateNetworkId: null,
    resource: { type: 'instance_server', id: server.id, mac_address: null, name: isIpv6 ? null : server.name },
    reverses: isIpv6 ? defaultReverses(address) : [],
    tags: [],
    createdAt: now,
    updatedAt: now,
    ownerServerId: server.id,
  };
}

export function serverFromSeed(seed: SeedServer, owner: Ownership, now: string): SeededServer {
  const id = seed.id ?? randomUUID();
  const createdAt = seed.createdAt ?? now;
  const ips: IpamIpRecord[] = [];
  const macAddress = (seed.macAddress ?? randomMac('de:00:00')).toLowerCase();
  const addresses = [...(seed.publicIps ?? []), ...(seed.routedIpv6 ? [newRoutedIpv6(macAddress)] : [])];
  const publicIps = addresses.map((address, i) => {
    const ipam = publicIpam(address, seed.publicIpIds?.[i] ?? randomUUID(), { id, name: seed.name, zone: seed.zone }, owner, createdAt);
    ips.push(ipam);
    // Routed IPs share their id with their IPAM entry, as in the recordings.
    return { id: ipam.id, address, family: ipam.isIpv6 ? ('inet6' as const) : ('inet' as const) };
  });
  const privateNics = (seed.privateNics ?? []).map((nic) => {
    const record = {
      id: nic.id ?? randomUUID(),
      privateNetworkId: nic.privateNetworkId ?? randomUUID(),
      macAddress: (nic.macAddress ?? randomMac('02:00:00')).toLowerCase(),
      createdAt,
    };
    for (const address of nic.ipamAddresses) {
      const isIpv6 = isIP(address.split('/')[0] ?? '') === 6;
      ips.push({
        id: randomUUID(),
        address: address.includes('/') ? address : `${address}/${isIpv6 ? 64 : 22}`,
        isIpv6,
        region: regionOfZone(seed.zone),
        zone: null,
        projectId: owner.projectId,
        source: { subnet_id: randomUUID() },
        privateNetworkId: record.privateNetworkId,
        resource: { type: 'instance_private_nic', id: record.id, mac_address: record.macAddress.toUpperCase(), name: seed.name },
        reverses: [],
        tags: [],
        createdAt,
        updatedAt: createdAt,
        ownerServerId: id,
      });
    }
    return record;
  });
  const server: ServerRecord = {
    id,
    name: seed.name,
    zone: seed.zone,
    tags: [...seed.tags],
    state: seed.state ?? 'running',
    projectId: owner.projectId,
    organizationId: owner.organizationId,
    commercialType: seed.commercialType ?? 'DEV1-M',
    macAddress,
    publicIps,
    privateNics,
    createdAt,
    modifiedAt: createdAt,
    listensOn: seed.listensOn ? [...seed.listensOn] : null,
  };
  return { server, ips };
}

export function ipamIpFromSeed(seed: SeedIpamIp, owner: Ownership, defaultRegion: string, now: string): IpamIpRecord {
  const bare = seed.address.split('/')[0] ?? seed.address;
  const isIpv6 = isIP(bare) === 6;
  return {
    id: seed.id ?? randomUUID(),
    address: seed.address.includes('/') ? seed.address : `${seed.address}/${isIpv6 ? 128 : 32}`,
    isIpv6,
    region: seed.region ?? defaultRegion,
    zone: seed.zone ?? null,
    projectId: seed.projectId ?? owner.projectId,
    source: seed.subnetId ? { subnet_id: seed.subnetId } : { subnet_id: randomUUID() },
    privateNetworkId: seed.privateNetworkId ?? null,
    resource: seed.resource
      ? {
          type: seed.resource.type,
          id: seed.resource.id,
          mac_address: seed.resource.macAddress ?? null,
          name: seed.resource.name ?? null,
        }
      : null,
    reverses: [],
    tags: [...(seed.tags ?? [])],
    createdAt: seed.createdAt ?? now,
    updatedAt: seed.createdAt ?? now,
    ownerServerId: null,
  };
}
