/** IPAM API: ListIPs with the filters the SDK sends. */
import {
  compareBy,
  pageOf,
  readEnumParam,
  readListParam,
  readPagination,
  visibleTo,
  type JsonAnswer,
  type Route,
  type RouteContext,
} from '../http';
import type { IpamIpRecord } from '../records';
import { renderIpamIp } from '../wire/ipam';

const ORDERS = [
  'created_at_desc',
  'created_at_asc',
  'updated_at_desc',
  'updated_at_asc',
  'attached_at_desc',
  'attached_at_asc',
  'ip_address_desc',
  'ip_address_asc',
  'mac_address_desc',
  'mac_address_asc',
] as const;

function readBoolean(query: URLSearchParams, name: string): boolean | undefined {
  const raw = query.get(name);
  return raw === null || raw === '' ? undefined : raw === 'true';
}

function matchesFilters(ip: IpamIpRecord, ctx: RouteContext): boolean {
  const { query } = ctx;
  const resourceIds = [...readListParam(query, 'resource_id', false), ...readListParam(query, 'resource_ids', false)];
  // `unknown_type` is the zero value the Go SDK always sends: it means "any type".
  const resourceTypes = [...readListParam(query, 'resource_type', false), ...readListParam(query, 'resource_types', false)].filter(
    (type) => type !== 'unknown_type',
  );
  const ipIds = readListParam(query, 'ip_ids', false);
  const tags = readListParam(query, 'tags', false);
  const isIpv6 = readBoolean(query, 'is_ipv6');
  const attached = readBoolean(query, 'attached');
  const projectId = query.get('project_id');
  const privateNetworkId = query.get('private_network_id');
  const subnetId = query.get('subnet_id');
  const zonal = query.get('zonal');
  const macAddress = query.get('mac_address')?.toLowerCase();
  const resourceName = query.get('resource_name');
  return (
    ip.region === ctx.params.region &&
    (resourceIds.length === 0 || (ip.resource !== null && resourceIds.includes(ip.resource.id))) &&
    (resourceTypes.length === 0 || (ip.resource !== null && resourceTypes.includes(ip.resource.type))) &&
    (ipIds.length === 0 || ipIds.includes(ip.id)) &&
    (tags.length === 0 || tags.some((tag) => ip.tags.includes(tag))) &&
    (isIpv6 === undefined || ip.isIpv6 === isIpv6) &&
    (attached === undefined || (ip.resource !== null) === attached) &&
    (!projectId || ip.projectId === projectId) &&
    visibleTo(ctx.organization, ctx.state.tenancy.organizationOf(ip.projectId)) &&
    (!privateNetworkId || ip.privateNetworkId === privateNetworkId) &&
    (!subnetId || ip.source.subnet_id === subnetId) &&
    (!zonal || ip.source.zonal === zonal) &&
    (!macAddress || ip.resource?.mac_address?.toLowerCase() === macAddress) &&
    // The API reference: "IPs attached to a resource with this string within their name".
    (!resourceName || (ip.resource?.name ?? '').includes(resourceName))
  );
}

function sortKey(order: (typeof ORDERS)[number]): (ip: IpamIpRecord) => string {
  if (order.startsWith('updated_at')) return (ip) => ip.updatedAt;
  if (order.startsWith('ip_address')) return (ip) => ip.address;
  if (order.startsWith('mac_address')) return (ip) => ip.resource?.mac_address ?? '';
  return (ip) => ip.createdAt;
}

function listIps(ctx: RouteContext): JsonAnswer {
  const order = readEnumParam(ctx.query, 'order_by', ORDERS, 'created_at_asc');
  const paging = readPagination(ctx.query, { sizeParam: 'page_size', defaultSize: 20, maxSize: 100 });
  const matching = [...ctx.state.ips.values()].filter((ip) => matchesFilters(ip, ctx));
  const sorted = matching.sort(compareBy(sortKey(order), order.endsWith('_desc')));
  return { status: 200, body: { total_count: sorted.length, ips: pageOf(sorted, paging).map(renderIpamIp) } };
}

// kOps' Go SDK asks the v1alpha1 path (api/ipam/v1alpha1); its ListIPs answers the same items here.
export const ipamApiRoutes: Route[] = [
  { method: 'GET', pattern: '/ipam/v1/regions/{region}/ips', operation: 'ListIPs', handle: listIps },
  { method: 'GET', pattern: '/ipam/v1alpha1/regions/{region}/ips', operation: 'ListIPs', handle: listIps },
];
