/** Instance API: servers (list with a tags filter as the `serverTagsFilter` switch says, get). */
import { apiErrors } from '../errors';
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
import type { EmulatorBehaviours } from '../behaviours';
import type { ServerRecord } from '../records';
import { renderServer } from '../wire/instance';

/** Whether a server passes `tags=`, under each setting of the switch (docs/emulator.md). */
const TAG_FILTERS: Record<EmulatorBehaviours['serverTagsFilter'], (filter: string[], tags: string[]) => boolean> = {
  all: (filter, tags) => filter.every((tag) => tags.includes(tag)),
  any: (filter, tags) => filter.length === 0 || filter.some((tag) => tags.includes(tag)),
  prefix: (filter, tags) => filter.every((tag) => tags.some((own) => own.startsWith(tag))),
};

const ORDERS = ['creation_date_desc', 'creation_date_asc', 'modification_date_desc', 'modification_date_asc'] as const;

function matchesFilters(server: ServerRecord, ctx: RouteContext): boolean {
  const { query } = ctx;
  const tags = readListParam(query, 'tags', true);
  const ids = readListParam(query, 'servers', true);
  const name = query.get('name');
  const state = query.get('state');
  const project = query.get('project');
  const organization = query.get('organization');
  const commercialType = query.get('commercial_type');
  const privateNetwork = query.get('private_network');
  const privateNetworks = readListParam(query, 'private_networks', true);
  const macAddress = query.get('private_nic_mac_address')?.toLowerCase();
  return (
    server.zone === ctx.params.zone &&
    TAG_FILTERS[ctx.state.behaviours.serverTagsFilter](tags, server.tags) &&
    (ids.length === 0 || ids.includes(server.id)) &&
    (!name || server.name.includes(name)) &&
    (!state || server.state === state) &&
    (!project || server.projectId === project) &&
    (!organization || server.organizationId === organization) &&
    visibleTo(ctx.organization, server.organizationId) &&
    (!commercialType || server.commercialType === commercialType) &&
    (!privateNetwork || server.privateNics.some((nic) => nic.privateNetworkId === privateNetwork)) &&
    (privateNetworks.length === 0 || server.privateNics.some((nic) => privateNetworks.includes(nic.privateNetworkId))) &&
    (!macAddress || server.privateNics.some((nic) => nic.macAddress === macAddress))
  );
}

/**
 * A Link header entry as recorded: a path relative to the zone, `page` and `per_page` first, each followed by `&`,
 * then the request's other parameters (`page=1&per_page=50&order=creation_date_desc&tags=foo`, cli-lb-test-add-
 * backend-servers-with-instance-tag #14; `page=2&per_page=50&`, with none: instance-data-source-servers-basic #4).
 */
function linkTo(query: URLSearchParams, page: number, pageSize: number, rel: string): string {
  const rest = new URLSearchParams([...query.entries()].filter(([name]) => name !== 'page' && name !== 'per_page'));
  return `</servers?page=${page}&per_page=${pageSize}&${rest.toString()}>; rel="${rel}"`;
}

/**
 * The Instance API answers `{"servers":[...]}`, the total in X-Total-Count and a Link header: `first` and
 * `previous` after the first page, `next` before the last, then `last` (page 0 when nothing matched), joined by
 * `,` with no space (recorded on the Instance API's product list: instance-data-source-servers-basic #4-#6).
 */
function listServers(ctx: RouteContext): JsonAnswer {
  const order = readEnumParam(ctx.query, 'order', ORDERS, 'creation_date_desc');
  const paging = readPagination(ctx.query, { sizeParam: 'per_page', defaultSize: 50, maxSize: 100 });
  const matching = [...ctx.state.servers.values()].filter((server) => matchesFilters(server, ctx));
  const key = order.startsWith('creation') ? (s: ServerRecord) => s.createdAt : (s: ServerRecord) => s.modifiedAt;
  const sorted = matching.sort(compareBy(key, order.endsWith('_desc')));
  const lastPage = Math.ceil(sorted.length / paging.pageSize);
  const link = (page: number, rel: string): string => linkTo(ctx.query, page, paging.pageSize, rel);
  const links = [
    ...(paging.page > 1 ? [link(1, 'first'), link(paging.page - 1, 'previous')] : []),
    ...(paging.page < lastPage ? [link(paging.page + 1, 'next')] : []),
    link(lastPage, 'last'),
  ];
  return {
    status: 200,
    body: { servers: pageOf(sorted, paging).map((server) => renderServer(ctx.state, server)) },
    headers: { 'X-Total-Count': String(sorted.length), Link: links.join(',') },
  };
}

function getServer(ctx: RouteContext): JsonAnswer {
  const id = ctx.params.serverId ?? '';
  const server = ctx.state.servers.get(id);
  if (!server || server.zone !== ctx.params.zone) throw apiErrors.instanceNotFound('instance_server', id);
  return { status: 200, body: { server: renderServer(ctx.state, server) } };
}

export const instanceApiRoutes: Route[] = [
  { method: 'GET', pattern: '/instance/v1/zones/{zone}/servers', operation: 'ListServers', handle: listServers },
  { method: 'GET', pattern: '/instance/v1/zones/{zone}/servers/{serverId}', operation: 'GetServer', handle: getServer },
];
