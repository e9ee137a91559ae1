/**
 * kOps' apply on Scaleway, as far as servers and the API load balancer go (`kops update cluster --yes`, and the
 * rolling update's reconcileInstanceGroup after each termination): the LoadBalancer task's Find, one Instance task
 * per instance group (scalewaytasks/instance.go: mark the servers whose spec changed with needs-update, create the
 * missing ones), then one LBBackend task per backend (scalewaytasks/lb_backend.go, RenderScw: UpdateBackend and
 * SetBackendServers with kOps' own address rule, unconditionally, then WaitForLb). LBBackend depends on every
 * Instance task, so it runs after them. Read from kubernetes/kops at master 268927e264; no kOps code is copied.
 * Not played: the marketplace image lookups and user-data comparisons (the emulator serves neither: a spec change is
 * named by instance group), SetServerUserData, UpdateLB (kOps calls it only when the LB's tags changed).
 */
import type { KopsCloud, WaitSettings, WireServer } from './cloud';
import { ROLE_WORKER, roleOf, TAG_NEEDS_UPDATE } from './cloud';

/** An instance group as kOps' cluster spec holds it: how many servers, of which type, with which tags. */
export interface InstanceGroupSpec {
  name: string;
  /** ControlPlane, or "" for workers (kOps tags them with no role). */
  role: string;
  count: number;
  commercialType: string;
  /** The tags kOps creates its servers with (scalewaytasks/instance.go: `expected.Tags`). */
  tags: string[];
}

/** A backend of kOps' API load balancer: lb-backend-https (443), and lb-backend-kops-controller (3988) with gossip DNS. */
export interface KopsBackendSpec {
  name: string;
  port: number;
}

export type ApplyStep =
  | { step: 'marked'; server: string; serverId: string }
  | { step: 'created'; server: string; serverId: string; ip: string }
  | { step: 'powered_on'; server: string; serverId: string }
  | { step: 'running'; server: string; serverId: string }
  | { step: 'backend_written'; backend: string; pool: string[] };

export interface ApplyOptions {
  cluster: string;
  groups: readonly InstanceGroupSpec[];
  /** The instance groups whose spec changed since their servers were made: their servers are marked needs-update. */
  changed?: ReadonlySet<string>;
  backends: readonly KopsBackendSpec[];
  /** The project kOps' client creates servers in (its profile's default project). */
  projectId?: string;
  image: string;
  instanceWait: WaitSettings;
  lbWait: WaitSettings;
  /** Told each step as it happens; kOps waits for what it returns (a test's barrier). */
  onStep: (step: ApplyStep) => void | Promise<void>;
}

/** findFirstFreeIndex: the lowest n no server's name ends with (kOps names servers `<instance-group>-<n>`). */
export function firstFreeIndex(names: readonly string[]): number {
  let index = 0;
  while (names.some((name) => name.endsWith(String(index)))) index += 1;
  return index;
}

const LB_TERMINAL = new Set(['ready', 'stopped', 'error', 'locked']);

async function instanceTask(cloud: KopsCloud, group: InstanceGroupSpec, options: ApplyOptions): Promise<void> {
  const servers = await cloud.clusterServers(options.cluster, group.name);
  // Find: a server already marked is left alone; the others are compared with the spec.
  const stale = options.changed?.has(group.name) ? servers.filter((s) => !s.tags.includes(TAG_NEEDS_UPDATE)) : [];
  for (const { id } of stale) {
    const { server } = await cloud.getServer(id);
    await cloud.sdk.send('PATCH', `/instance/v1/zones/${cloud.zone}/servers/${id}`, { tags: [...server.tags, TAG_NEEDS_UPDATE] });
    await options.onStep({ step: 'marked', server: server.name, serverId: id });
  }
  for (let missing = group.count - servers.length; missing > 0; missing -= 1) {
    const existing = await cloud.clusterServers(options.cluster, group.name);
    const name = `${group.name}-${firstFreeIndex(existing.map((s) => s.name))}`;
    const { server } = await cloud.sdk.send<{ server: WireServer & { public_ips: { address: string }[] } }>(
      'POST',
      `/instance/v1/zones/${cloud.zone}/servers`,
      {
        name,
        commercial_type: group.commercialType,
        image: options.image,
        tags: group.tags,
        routed_ip_enabled: true,
        ...(options.projectId && { project: options.projectId }),
      },
    );
    await options.onStep({ step: 'created', server: name, serverId: server.id, ip: server.public_ips[0]?.address ?? '' });
    await cloud.waitForServer(server.id, options.instanceWait);
    await cloud.sdk.send('POST', `/instance/v1/zones/${cloud.zone}/servers/${server.id}/action`, { action: 'poweron' });
    await options.onStep({ step: 'powered_on', server: name, serverId: server.id });
    await cloud.waitForServer(server.id, options.instanceWait);
    await options.onStep({ step: 'running', server: name, serverId: server.id });
  }
}

/** getControlPlanesIPs: every server of the cluster but those whose role is Node (workers carry none: they stay). */
async function kopsPool(cloud: KopsCloud, cluster: string): Promise<string[]> {
  const pool: string[] = [];
  for (const server of await cloud.clusterServers(cluster)) {
    if (roleOf(server) === ROLE_WORKER) continue;
    try {
      pool.push(await cloud.serverIp(server.id, server.zone));
    } catch (error) {
      throw new Error(`getting IP of server ${server.name} for load-balancer's back-end: ${(error as Error).message}`, { cause: error });
    }
  }
  return pool;
}

async function backendTask(cloud: KopsCloud, lb: { id: string; name: string }, spec: KopsBackendSpec, options: ApplyOptions) {
  // Find: one page of ListBackends by name; anything but exactly one match is "missing" (not played here).
  const found = await cloud.sdk.get<{ backends: { id: string; name: string }[]; total_count: number }>(
    `/lb/v1/zones/${cloud.zone}/lbs/${lb.id}/backends`,
    [
      ['name', spec.name],
      ['order_by', 'created_at_asc'],
    ],
  );
  const backend = found.total_count === 1 ? found.backends[0] : undefined;
  if (!backend)
    throw new Error(
      `listing back-ends for load-balancer ${lb.id}: ${spec.name} is not there exactly once (kOps would create one; not played)`,
    );
  const pool = await kopsPool(cloud, options.cluster);
  // The Go SDK sends every field without omitempty: the two kOps leaves unset go out as "".
  await cloud.sdk.send('PUT', `/lb/v1/zones/${cloud.zone}/backends/${backend.id}`, {
    name: backend.name,
    forward_protocol: 'tcp',
    forward_port: spec.port,
    forward_port_algorithm: 'roundrobin',
    sticky_sessions: 'none',
    sticky_sessions_cookie_name: '',
    on_marked_down_action: '',
    proxy_protocol: 'proxy_protocol_none',
  });
  await cloud.sdk.send('PUT', `/lb/v1/zones/${cloud.zone}/backends/${backend.id}/servers`, { server_ip: pool });
  await options.onStep({ step: 'backend_written', backend: spec.name, pool });
  // WaitForLb: GetLb until the LB's own status is terminal (it does not look at the instances).
  const until = Date.now() + options.lbWait.timeoutMs;
  for (;;) {
    const answer = await cloud.sdk.get<{ status: string }>(`/lb/v1/zones/${cloud.zone}/lbs/${lb.id}`);
    if (LB_TERMINAL.has(answer.status) || Date.now() > until) return;
    await options.lbWait.sleep(options.lbWait.pollMs);
  }
}

/** One apply: the LB's Find, every instance group, then every backend. */
export async function kopsApply(cloud: KopsCloud, options: ApplyOptions): Promise<void> {
  const lbs = await cloud.clusterLoadBalancers(options.cluster);
  const lb = lbs.length === 1 ? lbs[0] : undefined;
  if (!lb) throw new Error(`getting load-balancer api.${options.cluster}: found ${lbs.length} (kOps would create one; not played)`);
  for (const group of options.groups) await instanceTask(cloud, group, options);
  for (const spec of options.backends) await backendTask(cloud, lb, spec, options);
}
