/**
 * Baseline: the Scaleway API calls kOps makes for one LB backend on `kops update cluster`, replayed with the
 * real Scaleway JS SDK against the same emulator. Written from a reading of kOps'
 * upup/pkg/fi/cloudup/scalewaytasks/lb_backend.go (LBBackend.Find + RenderScw) and
 * upup/pkg/fi/cloudup/scaleway/cloud.go (GetClusterServers, GetServerIP); no kOps code is copied.
 *
 * Why RenderScw runs on every update: Find returns the backend with a LoadBalancer that carries only its
 * name (no LBID), so fi.BuildChanges never finds it equal to the expected LoadBalancer and always renders.
 *
 * Not counted (in kOps' favour): the LoadBalancer task's own lookup that resolves the LB id beforehand.
 */
import { createAdvancedClient, withHTTPClient, withProfile } from '@scaleway/sdk-client';
import { Instancev1 } from '@scaleway/sdk-instance';
import { Ipamv1 } from '@scaleway/sdk-ipam';
import { Lbv1 } from '@scaleway/sdk-lb';

type Zone = `${string}-${string}-${number}`;
type Region = `${string}-${string}`;

export interface KopsBackendSpec {
  name: string;
  forwardPort: number;
}

export interface KopsRun {
  path: 'update' | 'create';
  pool: string[];
  waitPolls: number;
}

export interface KopsBaselineOptions {
  apiUrl: string;
  accessKey: string;
  secretKey: string;
  zone: string;
  lbId: string;
  clusterName: string;
  backend: KopsBackendSpec;
  /** Bounded WaitForLb (the Go SDK polls every 2 s for up to 5 min). */
  waitPollMs?: number;
  waitMaxPolls?: number;
}

const CLUSTER_TAG = 'noprefix=kops.k8s.io/cluster';
const ROLE_TAG_PREFIX = 'noprefix=kops.k8s.io/role=';
const WORKER_ROLE = 'Node';
/** The Go SDK's WaitForLb terminal statuses: it looks at lb.status only, not at the instances. */
const TERMINAL_LB_STATUSES = new Set(['ready', 'stopped', 'error', 'locked']);

// kOps passes 3000 and 1001 as time.Duration (nanoseconds): 0 ms on the wire.
const KOPS_HEALTH_CHECK_MS = 0 as unknown as string;

function roleFromTags(tags: readonly string[]): string {
  const tag = tags.find((t) => t.startsWith(ROLE_TAG_PREFIX));
  return tag ? tag.slice(ROLE_TAG_PREFIX.length) : '';
}

const wrap = (message: string, error: unknown) => new Error(`${message}: ${(error as Error)?.message ?? String(error)}`, { cause: error });

export async function runKopsLbBackend(options: KopsBaselineOptions): Promise<KopsRun> {
  const client = createAdvancedClient(
    withProfile({ accessKey: options.accessKey, secretKey: options.secretKey, apiURL: options.apiUrl.replace(/\/+$/, '') }),
    withHTTPClient(fetch),
  );
  const lb = new Lbv1.ZonedAPI(client);
  const instance = new Instancev1.API(client);
  const ipam = new Ipamv1.API(client);
  const zone = options.zone as Zone;
  const region = zone.replace(/-\d+$/, '') as Region;
  // kOps names the LB api.<cluster> and fills its write and wait messages with that name; Find uses the id.
  const lbName = `api.${options.clusterName}`;

  // Find: one page of ListBackends filtered by name; anything but exactly one match means "missing".
  let found: Lbv1.Backend | undefined;
  try {
    const page = await lb.listBackends({ zone, lbId: options.lbId, name: options.backend.name });
    if (page.totalCount === 1) found = page.backends[0];
  } catch (error) {
    throw wrap(`listing back-ends for load-balancer ${options.lbId}`, error);
  }

  // getControlPlanesIPs: every server of the cluster, minus role=Node (workers carry no role tag, so they stay).
  let servers: Instancev1.Server[];
  try {
    servers = await instance.listServers({ zone, tags: [`${CLUSTER_TAG}=${options.clusterName}`] }).all();
  } catch (error) {
    throw wrap("getting cluster servers for load-balancer's back-end", error);
  }
  const pool: string[] = [];
  for (const server of servers) {
    if (roleFromTags(server.tags) === WORKER_ROLE) continue;
    try {
      // GetServerIP: one IPAM lookup per server, first address taken as listed (unsorted).
      const ips = await ipam.listIPs({ region, isIpv6: false, resourceId: server.id, zonal: zone }).all();
      const first = ips[0];
      if (!first) throw new Error(`could not find IP for server ${server.id}`);
      pool.push(first.address.replace(/\/\d+$/, ''));
    } catch (error) {
      throw wrap(`getting IP of server ${server.name} for load-balancer's back-end`, error);
    }
  }

  const common = {
    zone,
    forwardProtocol: 'tcp' as const,
    forwardPort: options.backend.forwardPort,
    forwardPortAlgorithm: 'roundrobin' as const,
    stickySessions: 'none' as const,
    // Go's zero value: kOps does not set it.
    stickySessionsCookieName: '',
    proxyProtocol: 'proxy_protocol_none' as const,
  };
  if (found) {
    // RenderScw on an existing backend: both writes, unconditionally.
    try {
      await lb.updateBackend({ ...common, backendId: found.id, name: found.name });
    } catch (error) {
      throw wrap(`updating back-end for load-balancer ${lbName}`, error);
    }
    try {
      await lb.setBackendServers({ zone, backendId: found.id, serverIp: pool });
    } catch (error) {
      throw wrap(`updating back-end server IPs for load-balancer ${lbName}`, error);
    }
  } else {
    try {
      await lb.createBackend({
        ...common,
        lbId: options.lbId,
        name: options.backend.name,
        healthCheck: {
          checkMaxRetries: 5,
          tcpConfig: {},
          port: options.backend.forwardPort,
          checkTimeout: KOPS_HEALTH_CHECK_MS,
          checkDelay: KOPS_HEALTH_CHECK_MS,
          checkSendProxy: false,
        },
        serverIp: pool,
      });
    } catch (error) {
      throw wrap(`creating back-end for load-balancer ${lbName}`, error);
    }
  }

  // WaitForLb, bounded here.
  const pollMs = options.waitPollMs ?? 2_000;
  const maxPolls = options.waitMaxPolls ?? 10;
  let polls = 0;
  try {
    for (;;) {
      polls += 1;
      const current = await lb.getLb({ zone, lbId: options.lbId });
      if (TERMINAL_LB_STATUSES.has(current.status) || polls >= maxPolls) break;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } catch (error) {
    throw wrap(`waiting for load-balancer ${lbName}`, error);
  }
  return { path: found ? 'update' : 'create', pool, waitPolls: polls };
}
