// Which targets an Audit Trail event concerns. Pure: events and targets in, target names with reasons out.
//
// Reconcile is level-triggered, so naming a target that turns out to be in sync costs one no-op
// (3 reads) and nothing else; missing one leaves a pool wrong until the next sweep. So whenever an
// event cannot be tied to one target, every target it could concern is named: all the targets of
// the event's zone (and project).
//
// Server events are tied to targets by tags, when the event says which tags the server has. A CreateServer's
// request carries them, and an UpdateServer's carries the new ones. Names are not used: kOps names a server
// `<instance-group>-<n>`, which does not say which cluster it belongs to.
// kOps deletes a server with ServerAction `terminate` (not DeleteServer), so here a removal is a power action like
// any other. A server that stops or crashes on the platform's side makes no event at all; the sweep covers those.
// Server events are never ignored as "our own": we never write servers, and the API key that made them may be
// shared with kOps.
import type { Target } from '../schemas/target';
import type { LbPlace } from './lb-identity';
import { targetLbs } from './lb-identity';
import { regionOf } from './locality';
import { inTargetProject } from './target-accounts';

export interface AuditResource {
  id: string;
  /** Audit Trail resource type, e.g. instance_server, load_balancer_backend. */
  type: string;
  name?: string;
  /** For a load_balancer_backend: the LB it belongs to. */
  lbId?: string;
}

/** One Audit Trail event, in our terms (shared/adapters/audit-trail.ts maps the SDK's Event to it). */
export interface AuditEvent {
  id: string;
  recordedAt: string;
  /** Zone of a zoned resource (fr-par-1), or a region. */
  locality: string;
  principalId?: string;
  projectId?: string;
  userAgent?: string;
  methodName: string;
  statusCode: number;
  resources: AuditResource[];
  requestBody?: Record<string, unknown>;
}

/** How our own API calls look in Audit Trail. */
export interface OwnIdentity {
  /** A string our User-Agent contains (shared/outbound/user-agent.ts). */
  userAgentMarker: string;
  /** The IAM application or user ids whose backend writes are ours (LBSYNC_WATCH_OWN_PRINCIPAL_IDS). */
  principalIds: ReadonlySet<string>;
  /**
   * This deployment's owner id (LBSYNC_OWNER_ID). A scw-lb-sync User-Agent naming another owner id comes from another
   * deployment, not ours. Unset: any scw-lb-sync User-Agent is ours.
   */
  ownerId?: string;
}

export interface RelevanceOptions {
  own: OwnIdentity;
  /** The deployment's project, where a target naming none lives (a target's own projectId wins); undefined: any. */
  projectId?: string;
}

export type IgnoreReason =
  | 'failed_call'
  | 'resource_not_watched'
  | 'other_project'
  | 'other_zone'
  | 'change_not_watched'
  | 'own_write'
  | 'no_target';

export interface TargetMatch {
  target: string;
  /** Why, one line per event (e.g. "ServerAction control-plane-0 (fr-par-1): terminated, server tags unknown, every target of the zone"). */
  reasons: string[];
  /** recorded_at of the latest event that named it. */
  lastRecordedAt: string;
}

export interface Relevance {
  /** Events that named at least one target. */
  relevant: number;
  /** One entry per named target, in the order of the targets. */
  matches: TargetMatch[];
  ignored: Partial<Record<IgnoreReason, number>>;
}

export const WATCHED_RESOURCE_TYPES = ['instance_server', 'load_balancer_backend'] as const;

/** Server power actions that do not change whether a server belongs in a pool. */
const POOL_NEUTRAL_ACTIONS = new Set(['reboot', 'backup']);
/** UpdateServer fields that change a server's tags or addresses; any other update leaves pools alone. */
const POOL_FIELDS = ['tags', 'public_ip', 'public_ips', 'routed_ip_enabled', 'dynamic_ip_required', 'enable_ipv6', 'private_nics'];
export const BACKEND_METHODS = new Set([
  'CreateBackend',
  'UpdateBackend',
  'DeleteBackend',
  'SetBackendServers',
  'AddBackendServers',
  'RemoveBackendServers',
  'UpdateHealthCheck',
]);

type Outcome = { targets: Target[]; why: string } | { ignored: IgnoreReason };

/** Whether an event's locality (a zone, or a region) is this zone or its region. */
function zoneIn(zone: string, locality: string): boolean {
  return zone === locality || regionOf(zone) === locality;
}

/** Whether an event's locality is the target's zone (its servers') or its region. */
export function inLocality(target: Target, locality: string): boolean {
  return zoneIn(target.zone, locality);
}

/** Whether one of the target's LBs is in an event's locality: a backend event's is its LB's zone. */
export function hasLbIn(target: Target, locality: string): boolean {
  return targetLbs(target).some((lb) => zoneIn(lb.zone, locality));
}

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

const carries = (tags: readonly string[]) => (target: Target) => target.servers.tags.every((tag) => tags.includes(tag));

/** Server id -> its tags after the window's events that say so (create, re-tag), read in time order. */
type KnownTags = Map<string, string[]>;

function serverOutcome(event: AuditEvent, server: AuditResource, zoneTargets: Target[], known: KnownTags): Outcome {
  const label = `${event.methodName} ${server.name ?? server.id} (${event.locality})`;
  const body = event.requestBody;
  const before = known.get(server.id);
  const byKnownTags = (what: string): Outcome =>
    before
      ? { targets: zoneTargets.filter(carries(before)), why: `${label}: ${what}, server tagged for it` }
      : { targets: zoneTargets, why: `${label}: ${what}, server tags unknown, every target of the zone` };

  switch (event.methodName) {
    case 'CreateServer': {
      const tags = stringArray(body?.tags);
      if (!tags) return { targets: zoneTargets, why: `${label}: created, tags unknown, every target of the zone` };
      known.set(server.id, tags);
      return { targets: zoneTargets.filter(carries(tags)), why: `${label}: created with the target's tags` };
    }
    case 'UpdateServer':
    case 'SetServer': {
      if (body && !POOL_FIELDS.some((field) => field in body)) return { ignored: 'change_not_watched' };
      const after = stringArray(body?.tags);
      if (after) known.set(server.id, after);
      if (after && before) {
        const touched = (t: Target) => carries(before)(t) || carries(after)(t);
        return { targets: zoneTargets.filter(touched), why: `${label}: re-tagged, tagged for it before or after` };
      }
      if (after) return { targets: zoneTargets, why: `${label}: re-tagged, tags before unknown, every target of the zone` };
      return byKnownTags(body ? 'addresses changed' : 'updated');
    }
    case 'ServerAction': {
      const action = typeof body?.action === 'string' ? body.action : undefined;
      if (action && POOL_NEUTRAL_ACTIONS.has(action)) return { ignored: 'change_not_watched' };
      return byKnownTags(action === 'terminate' ? 'terminated' : (action ?? 'power action'));
    }
    case 'DeleteServer':
      return byKnownTags('deleted');
    default:
      return { ignored: 'change_not_watched' };
  }
}

const OWNER_TOKEN = / owner\/(\S+)/;

/** A call this deployment made: its principal, or our User-Agent naming our owner id (or none, an older version). */
export function isOwn(event: Pick<AuditEvent, 'userAgent' | 'principalId'>, own: OwnIdentity): boolean {
  if (event.principalId !== undefined && own.principalIds.has(event.principalId)) return true;
  const ua = event.userAgent ?? '';
  if (!ua.includes(own.userAgentMarker)) return false;
  const owner = OWNER_TOKEN.exec(ua)?.[1];
  return owner === undefined || own.ownerId === undefined || owner === own.ownerId;
}

/**
 * The targets a backend write in `locality` may concern: a write on any of a target's LBs concerns the target. A
 * target names each LB by id or by name, but the event only carries the LB's id. So an LB named by id is matched
 * exactly, and one named by name is matched on its zone and the backend's name.
 */
export function targetsOfBackend(backend: AuditResource, locality: string, targets: readonly Target[]): Target[] {
  const name = backend.name;
  const managesName = (t: Target) => name === undefined || t.backends.some((b) => b.name === name);
  const mayBe = (lb: LbPlace) => zoneIn(lb.zone, locality) && ('id' in lb && backend.lbId ? lb.id === backend.lbId : true);
  return targets.filter((t) => targetLbs(t).some(mayBe) && managesName(t));
}

function backendOutcome(event: AuditEvent, backend: AuditResource, lbTargets: Target[], own: OwnIdentity): Outcome {
  if (!BACKEND_METHODS.has(event.methodName)) return { ignored: 'change_not_watched' };
  if (isOwn(event, own)) return { ignored: 'own_write' };
  const name = backend.name;
  return {
    targets: targetsOfBackend(backend, event.locality, lbTargets),
    why: `${event.methodName} on backend ${name ?? backend.id} of LB ${backend.lbId ?? '?'} (${event.locality}) by someone else`,
  };
}

export function relevantTargets(events: readonly AuditEvent[], targets: readonly Target[], options: RelevanceOptions): Relevance {
  const ordered = [...events].sort((a, b) => (a.recordedAt < b.recordedAt ? -1 : a.recordedAt > b.recordedAt ? 1 : 0));
  const known: KnownTags = new Map();
  const ignored: Relevance['ignored'] = {};
  const byTarget = new Map<string, TargetMatch>();
  let relevant = 0;
  const ignore = (reason: IgnoreReason) => (ignored[reason] = (ignored[reason] ?? 0) + 1);

  for (const event of ordered) {
    if (event.statusCode < 200 || event.statusCode > 299) {
      ignore('failed_call');
      continue;
    }
    const server = event.resources.find((r) => r.type === 'instance_server');
    const backend = event.resources.find((r) => r.type === 'load_balancer_backend');
    if (!server && !backend) {
      ignore('resource_not_watched');
      continue;
    }
    // Each target keeps to its own project: an event of a project none of them lives in concerns none.
    const inProject = (t: Target) => inTargetProject(t, event.projectId, options.projectId);
    if (!targets.some(inProject)) {
      ignore('other_project');
      continue;
    }
    // A server event concerns the targets whose servers are in its zone; a backend event those with an LB there.
    const zoneTargets = targets.filter((t) => (server ? inLocality(t, event.locality) : hasLbIn(t, event.locality)) && inProject(t));
    // Known tags are kept even for a zone without targets: a later event may need them.
    const outcome = server
      ? serverOutcome(event, server, zoneTargets, known)
      : backendOutcome(event, backend as AuditResource, zoneTargets, options.own);
    if (zoneTargets.length === 0) {
      ignore('other_zone');
      continue;
    }
    if ('ignored' in outcome) {
      ignore(outcome.ignored);
      continue;
    }
    if (outcome.targets.length === 0) {
      ignore('no_target');
      continue;
    }
    relevant += 1;
    for (const target of outcome.targets) {
      const match = byTarget.get(target.name) ?? { target: target.name, reasons: [], lastRecordedAt: event.recordedAt };
      match.reasons.push(outcome.why);
      match.lastRecordedAt = event.recordedAt;
      byTarget.set(target.name, match);
    }
  }
  const matches = targets.flatMap((t) => byTarget.get(t.name) ?? []);
  return { relevant, matches, ignored };
}
