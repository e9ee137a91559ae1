/**
 * kOps' Scaleway cloud (upup/pkg/fi/cloudup/scaleway/cloud.go), the calls a rolling update makes through it:
 * GetClusterServers, GetServerIP, GetClusterLoadBalancers, DeregisterInstance, DeleteInstance / DeleteServer and the
 * Go SDK's WaitForServer. Read from kubernetes/kops at master 268927e264; no kOps code is copied.
 * Not played: DeleteServer's GetVolume / DetachVolume of etcd volumes (the emulator serves no volumes).
 */
import type { GoSdkClient } from './go-sdk';
import { is404 } from './go-sdk';

export const TAG_CLUSTER = 'noprefix=kops.k8s.io/cluster';
export const TAG_INSTANCE_GROUP = 'noprefix=kops.k8s.io/instance-group';
export const TAG_ROLE = 'noprefix=kops.k8s.io/role';
export const TAG_NEEDS_UPDATE = 'noprefix=kops.k8s.io/needs-update';
export const ROLE_CONTROL_PLANE = 'ControlPlane';
export const ROLE_WORKER = 'Node';

/** The parts of an Instance API server kOps reads. */
export interface WireServer {
  id: string;
  name: string;
  zone: string;
  state: string;
  tags: string[];
  commercial_type: string;
}

interface WireIpamIp {
  address: string;
}

export function tagValue(tags: readonly string[], prefix: string): string {
  const tag = tags.find((t) => t.startsWith(`${prefix}=`));
  return tag ? tag.slice(prefix.length + 1) : '';
}

/** kOps' InstanceRoleFromTags: the role tag's value ("" for a worker, which carries none). */
export const roleOf = (server: Pick<WireServer, 'tags'>): string => tagValue(server.tags, TAG_ROLE);
export const instanceGroupOf = (server: Pick<WireServer, 'tags'>): string => tagValue(server.tags, TAG_INSTANCE_GROUP);

const regionOf = (zone: string) => zone.replace(/-\d+$/, '');

export class KopsCloud {
  constructor(
    readonly sdk: GoSdkClient,
    readonly zone: string,
  ) {}

  /** GetClusterServers: ListServers by the cluster tag (and the instance group's tag and name), all pages. */
  clusterServers(cluster: string, instanceGroup?: string): Promise<WireServer[]> {
    const tags = [`${TAG_CLUSTER}=${cluster}`, ...(instanceGroup ? [`${TAG_INSTANCE_GROUP}=${instanceGroup}`] : [])];
    return this.sdk.listAll<WireServer>(
      `/instance/v1/zones/${this.zone}/servers`,
      [
        ['name', instanceGroup],
        ['order', 'creation_date_desc'],
        ['tags', tags.join(',')],
      ],
      'servers',
    );
  }

  /** GetServerIP: IPAM ListIPs (resource_id, IPv4, zonal), all pages; the first address, its mask stripped. */
  async serverIp(serverId: string, zone = this.zone): Promise<string> {
    const ips = await this.sdk.listAll<WireIpamIp>(
      `/ipam/v1alpha1/regions/${regionOf(zone)}/ips`,
      [
        ['is_ipv6', false],
        ['order_by', 'created_at_desc'],
        ['resource_id', serverId],
        ['zonal', zone],
      ],
      'ips',
    );
    const first = ips[0];
    if (!first) throw new Error(`listing IPs for server ${serverId}: could not find IP for server ${serverId}`);
    return first.address.replace(/\/\d+$/, '');
  }

  /** GetClusterLoadBalancers: ListLbs by the name api.<cluster> (the API's filter: its namesakes too), all pages. */
  clusterLoadBalancers(cluster: string): Promise<{ id: string; name: string; tags: string[] }[]> {
    return this.sdk.listAll(
      `/lb/v1/zones/${this.zone}/lbs`,
      [
        ['name', `api.${cluster}`],
        ['order_by', 'created_at_asc'],
      ],
      'lbs',
    );
  }

  getServer(serverId: string): Promise<{ server: WireServer }> {
    return this.sdk.get(`/instance/v1/zones/${this.zone}/servers/${serverId}`);
  }

  /**
   * DeregisterInstance: GetServer, its address (GetServerIP), the cluster's LBs, every backend of each (all pages),
   * and RemoveBackendServers of the address from each backend whose pool holds it. Returns those backends' names.
   */
  async deregisterInstance(serverId: string): Promise<{ ip: string; backends: string[] }> {
    const { server } = await this.getServer(serverId);
    const ip = await this.serverIp(server.id, server.zone);
    const removedFrom: string[] = [];
    for (const lb of await this.clusterLoadBalancers(tagValue(server.tags, TAG_CLUSTER))) {
      const backends = await this.sdk.listAll<{ id: string; name: string; pool: string[] }>(
        `/lb/v1/zones/${this.zone}/lbs/${lb.id}/backends`,
        [['order_by', 'created_at_asc']],
        'backends',
      );
      for (const backend of backends) {
        if (!backend.pool.includes(ip)) continue;
        await this.sdk.send('DELETE', `/lb/v1/zones/${this.zone}/backends/${backend.id}/servers`, { server_ip: [ip] });
        removedFrom.push(backend.name);
      }
    }
    return { ip, backends: removedFrom };
  }

  /**
   * DeleteInstance then DeleteServer: GetServer (gone: nothing to do), GetServer again, ServerAction terminate, and
   * WaitForServer until it is gone (404) or settles.
   */
  async deleteInstance(serverId: string, wait: WaitSettings): Promise<'terminated' | 'already_gone'> {
    for (let i = 0; i < 2; i += 1) {
      try {
        await this.getServer(serverId);
      } catch (error) {
        if (is404(error)) return 'already_gone';
        throw error;
      }
    }
    try {
      await this.sdk.send('POST', `/instance/v1/zones/${this.zone}/servers/${serverId}/action`, { action: 'terminate' });
    } catch (error) {
      if (!is404(error)) throw error;
    }
    await this.waitForServer(serverId, wait);
    return 'terminated';
  }

  /** The Go SDK's WaitForServer: GetServer every `pollMs` until a settled state (404 ends it too, as kOps ignores it). */
  async waitForServer(serverId: string, wait: WaitSettings): Promise<WireServer | undefined> {
    const settled = new Set(['stopped', 'stopped in place', 'running', 'locked']);
    const until = Date.now() + wait.timeoutMs;
    for (;;) {
      try {
        const { server } = await this.getServer(serverId);
        if (settled.has(server.state)) return server;
      } catch (error) {
        if (is404(error)) return undefined;
        throw error;
      }
      if (Date.now() > until) throw new Error(`timeout: server ${serverId} did not settle within ${wait.timeoutMs} ms`);
      await wait.sleep(wait.pollMs);
    }
  }
}

export interface WaitSettings {
  pollMs: number;
  timeoutMs: number;
  sleep: (ms: number) => Promise<void>;
}
