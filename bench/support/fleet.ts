/** Generated emulator worlds: N kOps clusters, each an LB + control planes + workers, optionally in sync. */
import type { EmulatorSeed, SeedBackend, SeedServer } from '../../emulator';
import type { TargetInput } from '../../shared/schemas/target';

export const ZONE = 'fr-par-1';
export const PROJECT_ID = '23b8c1e9-3924-46de-beb1-3b9046685257';
export const BACKEND_NAME = 'lb-backend-https';

export interface FleetOptions {
  clusters: number;
  controlPlanes?: number;
  workers?: number;
  /** Seed each LB with a backend already matching the target (pool = control-plane IPs). */
  inSync?: boolean;
}

export interface Cluster {
  name: string;
  lbId: string;
  lbName: string;
  controlPlaneIds: string[];
  controlPlaneIps: string[];
  workerIps: string[];
}

export const clusterName = (i: number) => `c${i}.bench.local`;

/** A UUID unique per (kind, i, j): ids that read back to what they name. */
export function uuid(kind: number, i: number, j: number): string {
  const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
  return `${hex(kind, 8)}-${hex(i & 0xffff, 4)}-4${hex(j & 0xfff, 3)}-8${hex((i >> 16) & 0xfff, 3)}-${hex(i * 1000 + j, 12)}`;
}

/** Public IPs unique across the fleet: 51.<cp|worker>.<i/250>.<i%250*... > kept simple and distinct. */
export function publicIp(role: 'cp' | 'worker', i: number, j: number): string {
  const n = i * 64 + j + 1;
  return `51.${role === 'cp' ? 15 : 16}.${Math.floor(n / 250)}.${(n % 250) + 1}`;
}

export function inSyncBackend(pool: string[]): SeedBackend {
  return {
    name: BACKEND_NAME,
    forward_protocol: 'tcp',
    forward_port: 443,
    forward_port_algorithm: 'roundrobin',
    sticky_sessions: 'none',
    proxy_protocol: 'proxy_protocol_none',
    pool,
    health_check: { port: 443, check_delay: 3000, check_timeout: 1000, check_max_retries: 5, tcp_config: {} },
    created_at: '2026-01-01T00:00:00Z',
  };
}

export function newControlPlane(cluster: Cluster, ip: string, suffix: string): SeedServer {
  return {
    name: `control-plane-${suffix}`,
    zone: ZONE,
    state: 'running',
    tags: [`noprefix=kops.k8s.io/cluster=${cluster.name}`, 'noprefix=kops.k8s.io/role=ControlPlane'],
    publicIps: [ip],
  };
}

export function buildFleet(options: FleetOptions): { seed: EmulatorSeed; clusters: Cluster[]; targets: TargetInput[] } {
  const cps = options.controlPlanes ?? 3;
  const workers = options.workers ?? 2;
  const seed: EmulatorSeed = { projectId: PROJECT_ID, organizationId: PROJECT_ID, lbs: [], servers: [] };
  const clusters: Cluster[] = [];
  for (let i = 0; i < options.clusters; i += 1) {
    const name = clusterName(i);
    const cluster: Cluster = {
      name,
      lbId: uuid(1, i, 0),
      lbName: `api.${name}`,
      controlPlaneIds: [],
      controlPlaneIps: [],
      workerIps: [],
    };
    const clusterTag = `noprefix=kops.k8s.io/cluster=${name}`;
    for (let j = 0; j < cps; j += 1) {
      const id = uuid(2, i, j);
      const ip = publicIp('cp', i, j);
      cluster.controlPlaneIds.push(id);
      cluster.controlPlaneIps.push(ip);
      seed.servers?.push({
        id,
        name: `control-plane-${i}-${j}`,
        zone: ZONE,
        state: 'running',
        publicIps: [ip],
        tags: [clusterTag, 'noprefix=kops.k8s.io/role=ControlPlane', `noprefix=kops.k8s.io/instance-group=control-plane-${i}`],
        privateNics: [{ id: uuid(3, i, j), ipamAddresses: [`10.${i % 250}.${Math.floor(j / 250)}.${(j % 250) + 2}/22`] }],
      });
    }
    // kOps workers carry the cluster tag and no role tag at all.
    for (let j = 0; j < workers; j += 1) {
      const ip = publicIp('worker', i, j);
      cluster.workerIps.push(ip);
      seed.servers?.push({
        id: uuid(4, i, j),
        name: `nodes-${i}-${j}`,
        zone: ZONE,
        state: 'running',
        publicIps: [ip],
        tags: [clusterTag, `noprefix=kops.k8s.io/instance-group=nodes-${i}`],
      });
    }
    seed.lbs?.push({
      id: cluster.lbId,
      name: cluster.lbName,
      zone: ZONE,
      status: 'ready',
      tags: [clusterTag, 'noprefix=kops.k8s.io/role=ControlPlane'],
      backends: options.inSync ? [inSyncBackend([...cluster.controlPlaneIps].sort())] : [],
    });
    clusters.push(cluster);
  }
  const targets: TargetInput[] = clusters.map((c) => ({ kops: { cluster: c.name, zone: ZONE } }) as TargetInput);
  return { seed, clusters, targets };
}
