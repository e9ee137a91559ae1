/**
 * We check what the APIs answered before it picks a pool or a backend. An answer is only as good as the filter the
 * API applied, and no recording shows how ListServers' multi-tag filter behaves (docs/emulator.md, switch
 * `serverTagsFilter`). If it were looser than documented, every server of every cluster in the zone would be written
 * into one load balancer. So:
 * - A server reaches a pool only if it carries every tag of the target exactly, in the target's zone (and project,
 *   when one is known).
 * - An IPAM address counts only if it belongs to a NIC we asked about.
 * - A server the answer lists twice, differently, is left out: an answer that contradicts itself tells us nothing.
 * - A listing of one LB's own resources (backends, frontends, private-network attachments) that names another LB is
 *   not used at all (`otherLbItems`, lb_answer_mismatch in the steps).
 * Whatever is left out is named once per reconcile, under one warning code.
 */
import type { WarningCode } from '../errors/lbsync-error';
import { LbSyncError } from '../errors/lbsync-error';
import type { IpamIpView } from './kops-rule';
import type { ObservedLb, ObservedMemberHealth, ObservedServer, LeftOutAnswer } from './model';

/** Where a target's servers are: its zone, its tags, and its project when one is known. */
export interface ServerScope {
  zone: string;
  tags: readonly string[];
  /** The target's project (its own projectId, else SCW_DEFAULT_PROJECT_ID or the CLI profile's); undefined: any project. */
  projectId?: string | undefined;
}

/** The items of an answer none of whose checks fails, and the others named (`what`) with every reason. */
function sortAnswer<T>(
  items: readonly T[],
  mismatch: (item: T) => string[],
  what: (item: T) => string,
): { kept: T[]; leftOut: LeftOutAnswer[] } {
  const kept: T[] = [];
  const leftOut: LeftOutAnswer[] = [];
  for (const item of items) {
    const reasons = mismatch(item);
    if (reasons.length === 0) kept.push(item);
    else leftOut.push({ what: what(item), why: reasons.join(' and ') });
  }
  return { kept, leftOut };
}

/** Why this server is not the target's, or nothing when it is. */
function serverMismatch(server: ObservedServer, scope: ServerScope): string[] {
  const missing = scope.tags.filter((tag) => !server.tags.includes(tag));
  return [
    ...(missing.length > 0 ? [`does not carry ${missing.join(', ')}`] : []),
    ...(server.zone !== scope.zone ? [`is in zone ${server.zone}, not ${scope.zone}`] : []),
    ...(scope.projectId !== undefined && server.projectId !== scope.projectId
      ? [`is in project ${server.projectId}, not ${scope.projectId}`]
      : []),
  ];
}

/** What each field of a server is, as an operator reads it (a contradiction names the fields that differ). */
const SERVER_FIELDS: Record<keyof ObservedServer, string> = {
  id: 'id',
  name: 'name',
  state: 'state',
  tags: 'tags',
  zone: 'zone',
  projectId: 'project',
  publicIpv4: 'public IPv4',
  publicIpv6: 'public IPv6',
  routedIpv4: 'routed IPv4',
  ipStates: 'public IP states',
  privateNics: 'private NICs',
};

const shown = (value: unknown): string =>
  Array.isArray(value) ? `[${value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}]` : JSON.stringify(value);

/**
 * One server per id. Copies that agree count as one server: a listing whose pages shifted repeats a server. Copies
 * that disagree (two addresses, two states) are left out and named with what differs. The answer does not say which
 * copy is true, and taking both would put two addresses of one server in a pool.
 */
export function oneCopyPerServer(servers: readonly ObservedServer[]): { servers: ObservedServer[]; contradicted: LeftOutAnswer[] } {
  const byId = new Map<string, ObservedServer[]>();
  for (const server of servers) byId.set(server.id, [...(byId.get(server.id) ?? []), server]);
  const kept: ObservedServer[] = [];
  const contradicted: LeftOutAnswer[] = [];
  for (const [id, copies] of byId) {
    const first = copies[0] as ObservedServer;
    const differing = (Object.keys(SERVER_FIELDS) as (keyof ObservedServer)[]).filter((field) =>
      copies.some((copy) => JSON.stringify(copy[field]) !== JSON.stringify(first[field])),
    );
    if (differing.length === 0) {
      kept.push(first);
      continue;
    }
    const values = differing.map(
      (field) => `${SERVER_FIELDS[field]} ${[...new Set(copies.map((copy) => shown(copy[field])))].join(' and ')}`,
    );
    contradicted.push({
      what: `server ${first.name} (${id})`,
      why: `is listed ${copies.length} times, with different ${values.join('; ')}`,
    });
  }
  return { servers: kept, contradicted };
}

/** The servers of a ListServers answer that are the target's; the others, with why; servers the answer contradicts itself on. */
export function admitServers(
  servers: readonly ObservedServer[],
  scope: ServerScope,
): { admitted: ObservedServer[]; leftOut: LeftOutAnswer[]; contradicted: LeftOutAnswer[] } {
  const unique = oneCopyPerServer(servers);
  const { kept, leftOut } = sortAnswer(
    unique.servers,
    (server) => serverMismatch(server, scope),
    (server) => `server ${server.name} (${server.id})`,
  );
  return { admitted: kept, leftOut, contradicted: unique.contradicted };
}

/** The one warning of a reconcile for every server an answer contradicted itself on, or undefined. */
export function contradictionWarning(contradicted: readonly LeftOutAnswer[]): string | undefined {
  if (contradicted.length === 0) return undefined;
  const code: WarningCode = 'contradictory_answer';
  const named = contradicted.map(({ what, why }) => `${what} ${why}`).join('; ');
  return `[${code}] the API contradicted itself about ${contradicted.length} server(s), left out of the pool: ${named}`;
}

const PRIVATE_NIC = 'instance_private_nic';

function ipMismatch(ip: IpamIpView, asked: ReadonlySet<string>): string[] {
  const owner = ip.resourceId === undefined ? undefined : `${ip.resourceType ?? 'resource'} ${ip.resourceId}`;
  return [
    ...(owner === undefined ? ['belongs to no resource'] : []),
    ...(owner !== undefined && !asked.has(ip.resourceId as string) ? [`belongs to ${owner}, which was not asked about`] : []),
    ...(owner !== undefined && asked.has(ip.resourceId as string) && ip.resourceType !== PRIVATE_NIC
      ? [`belongs to ${owner}, not to a private NIC`]
      : []),
    ...(ip.isIpv6 ? ['is IPv6, and IPv4 was asked for'] : []),
  ];
}

/** IPAM's answer for these private NICs, by NIC: only IPv4 addresses of a NIC that was asked about; the rest, with why. */
export function admitPrivateIps(
  ips: readonly IpamIpView[],
  nicIds: readonly string[],
): { byNic: Map<string, string[]>; leftOut: LeftOutAnswer[] } {
  const asked = new Set(nicIds);
  const { kept, leftOut } = sortAnswer(
    ips,
    (ip) => ipMismatch(ip, asked),
    (ip) => `IPAM address ${ip.address}`,
  );
  const byNic = new Map<string, string[]>();
  for (const ip of kept) byNic.set(ip.resourceId as string, [...(byNic.get(ip.resourceId as string) ?? []), ip.address]);
  return { byNic, leftOut };
}

/**
 * The items of a listing of one LB's own resources (backends, frontends, private-network attachments) that name
 * another LB, each with the LBs it names. Every such listing uses this one rule. Every recorded answer embeds the
 * item's LB; an item that names none is taken as the LB's own, since the request path named it.
 */
export function otherLbItems<T>(
  items: readonly T[],
  lbIdsOf: (item: T) => readonly (string | undefined)[],
  lbId: string,
  what: (item: T) => string,
): LeftOutAnswer[] {
  return sortAnswer(
    items,
    (item) => {
      const others = [...new Set(lbIdsOf(item).filter((id): id is string => id !== undefined && id !== lbId))];
      return others.length > 0 ? [`belongs to load-balancer ${others.join(', ')}, not ${lbId}`] : [];
    },
    what,
  ).leftOut;
}

/**
 * The health reports of a ListBackendStats answer that are about the backend asked for (`backend_id` is a filter the
 * API applies), and the others with why. A report of the same address on another backend (another port) says
 * nothing about this one. Taken for this one, it could make an unchecked member look "passing" and let a serving
 * member leave.
 */
export function ownHealthReports(
  reports: readonly ObservedMemberHealth[],
  backendId: string,
): { own: ObservedMemberHealth[]; leftOut: LeftOutAnswer[] } {
  const { kept, leftOut } = sortAnswer(
    reports,
    (report) =>
      report.backendId === undefined || report.backendId === backendId ? [] : [`is of backend ${report.backendId}, not ${backendId}`],
    (report) => `health report of ${report.ip}`,
  );
  return { own: kept, leftOut };
}

/** The LB a request asked for: always its zone, and its id (GetLb) or its exact name (ListLbs?name=). */
export type LbAsked = { zone: string } & ({ id: string } | { name: string });

/** Why this LB is not the one asked for, or nothing when it is. */
export function lbMismatch(lb: Pick<ObservedLb, 'id' | 'name' | 'zone'>, asked: LbAsked): string[] {
  return [
    ...('id' in asked && lb.id !== asked.id ? [`is ${lb.id}, not ${asked.id}`] : []),
    ...('name' in asked && lb.name !== asked.name ? [`is named "${lb.name}", not "${asked.name}"`] : []),
    ...(lb.zone !== asked.zone ? [`is in zone ${lb.zone}, not ${asked.zone}`] : []),
  ];
}

/** The LB an answer gave when one LB was asked for (GetLb): the one asked for, or lb_answer_mismatch. */
export function assertAskedLb(answered: ObservedLb, asked: LbAsked, message: string): ObservedLb {
  const reasons = lbMismatch(answered, asked);
  if (reasons.length === 0) return answered;
  throw new LbSyncError(
    'lb_answer_mismatch',
    `${message}: the API answered load-balancer ${answered.name} (${answered.id}), which ${reasons.join(' and ')}: nothing is written to it`,
    { lb: 'id' in asked ? { id: asked.id } : { name: asked.name } },
  );
}

/** The LBs of an answer that are the one asked for; the others, with why. */
export function admitLbs(lbs: readonly ObservedLb[], asked: LbAsked): { admitted: ObservedLb[]; leftOut: LeftOutAnswer[] } {
  const { kept, leftOut } = sortAnswer(
    lbs,
    (lb) => lbMismatch(lb, asked),
    (lb) => `load-balancer ${lb.name} (${lb.id})`,
  );
  return { admitted: kept, leftOut };
}

/** The one warning of a reconcile for every answer left out (those left out for the same reason together), or undefined. */
export function filterMismatchWarning(leftOut: readonly LeftOutAnswer[]): string | undefined {
  if (leftOut.length === 0) return undefined;
  const byReason = new Map<string, string[]>();
  for (const { what, why } of leftOut) byReason.set(why, [...(byReason.get(why) ?? []), what]);
  const named = [...byReason].map(([why, whats]) => `${whats.join(', ')}: ${why}`).join('; ');
  const code: WarningCode = 'discovery_filter_mismatch';
  return `[${code}] the API answered ${leftOut.length} item(s) its request did not ask for, left out of every pool and backend: ${named}`;
}
