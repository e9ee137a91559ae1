/**
 * kOps' own choice of pool addresses, as a pure function of what the APIs answer: the reference the `kops`
 * ipSource is checked against (by `lbsync doctor` on a real account, and by the tests on recorded answers).
 * From a reading of kOps (docs/kops-parity.md has the files, lines and revisions); no kOps code is copied.
 *
 * - Servers (getControlPlanesIPs, lb_backend.go): every server tagged with the cluster, minus those whose
 *   role tag is `Node`. kOps tags only control planes with a role, so workers pass this filter too.
 * - Address (GetServerIP, cloud.go): IPAM ListIPs(resource_id=<server id>, zonal=<server zone>,
 *   is_ipv6=false), in the Go SDK's default order (created_at_desc), and the first answer taken.
 */

export const KOPS_CLUSTER_TAG = 'noprefix=kops.k8s.io/cluster';
export const KOPS_ROLE_TAG = 'noprefix=kops.k8s.io/role';
export const KOPS_ROLE_CONTROL_PLANE = 'ControlPlane';
export const KOPS_ROLE_WORKER = 'Node';

/** kOps' InstanceRoleFromTags: the value of the first role tag, "" when there is none. */
export function kopsRole(tags: readonly string[]): string {
  const tag = tags.find((t) => t.startsWith(KOPS_ROLE_TAG));
  return tag === undefined ? '' : tag.slice(KOPS_ROLE_TAG.length + 1);
}

/** Whether kOps' RenderScw puts this server's address into the API backends (every role but Node). */
export function kopsCountsServer(tags: readonly string[], cluster: string): boolean {
  return tags.includes(`${KOPS_CLUSTER_TAG}=${cluster}`) && kopsRole(tags) !== KOPS_ROLE_WORKER;
}

/** An IPAM IP as ListIPs answers it, reduced to what kOps' query filters and orders on. */
export interface IpamIpView {
  address: string;
  isIpv6: boolean;
  /** `source.zonal`: set only for zonal IPs (routed public IPs); private-network IPs have a subnet source. */
  zonal?: string;
  resourceId?: string;
  /** `resource.type`, e.g. `instance_server`, `instance_private_nic`. */
  resourceType?: string;
  createdAt?: string;
}

/** Strips the mask IPAM puts on addresses ("10.0.0.2/22" -> "10.0.0.2"). */
export function stripCidr(address: string): string {
  const slash = address.indexOf('/');
  return slash === -1 ? address : address.slice(0, slash);
}

/**
 * The address kOps' GetServerIP returns for one server, given IPAM's answers (any superset: the query's
 * filters are applied here), or undefined where kOps fails with "could not find IP for server".
 */
export function kopsServerIp(serverId: string, zone: string, ips: readonly IpamIpView[]): string | undefined {
  const matching = ips.filter((ip) => ip.resourceId === serverId && ip.zonal === zone && !ip.isIpv6);
  const newestFirst = [...matching].sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
  const first = newestFirst[0];
  return first === undefined ? undefined : stripCidr(first.address);
}
