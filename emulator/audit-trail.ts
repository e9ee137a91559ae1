/**
 * The emulator's Audit Trail: every change that is an API call is recorded as an event, listable once `delayMs`
 * has passed since it was recorded: servers created, re-tagged, powered on/off or removed through the control
 * API (standing for someone else's tooling: kOps creates with CreateServer + ServerAction poweron and deletes with
 * ServerAction terminate), and LB backend writes through the LB routes. A server that stops or crashes on the
 * platform's side (the control API's upsert of a new state) is no API call and records nothing.
 * ASSUMED: the real delay before an event is listable is not documented. The default, 30 s, is a
 * conservative guess; in the one recording we have (a Secret Manager event, test/fixtures/audit-trail/)
 * a listing about 1 s after the call did not show it and one about 2 s after it did.
 */
import { createHash, randomUUID } from 'node:crypto';
import { KOPS_USER_AGENT } from './kops/go-sdk';
import type { BackendRecord, LbRecord, ServerRecord } from './records';
import type { PoolWrite } from './contract';
import type { WireAuditEvent, WireAuditResource } from './wire/audit-trail';
import { backendResource, INSTANCE_SERVICE, LB_SERVICE, serverActionResource, serverResource } from './wire/audit-trail';

export const DEFAULT_AUDIT_DELAY_MS = 30_000;
/** The real Audit Trail keeps 90 days; the emulator keeps the latest events only, so a long-running local stack stays small. */
export const MAX_KEPT_EVENTS = 50_000;

/** Who made a call, as Audit Trail records it. */
export interface AuditActor {
  principalId: string;
  userAgent: string;
  sourceIp: string;
}

/** Changes made through the control API stand for someone else's tooling: kOps, with kOps' own User-Agent. */
export const OPERATOR_ACTOR: AuditActor = {
  principalId: '0e7a7c55-0b5e-4c3a-9f4e-6b0c0ffee001',
  userAgent: KOPS_USER_AGENT,
  sourceIp: '198.51.100.7',
};

/** The principal id the emulator gives an API key: the same for the same X-Auth-Token, a UUID. */
export function principalIdOf(token: string): string {
  const hex = createHash('sha256').update(`principal:${token}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The identity Audit Trail records for an API request: its key's principal, its User-Agent, its source address. */
export function actorOf(headers: Record<string, string | string[] | undefined>, remoteAddress?: string): AuditActor {
  return {
    principalId: principalIdOf(String(headers['x-auth-token'] ?? '')),
    userAgent: String(headers['user-agent'] ?? ''),
    sourceIp: remoteAddress ?? '127.0.0.1',
  };
}

export interface AuditEventInput {
  methodName: string;
  product: { product_name: string; service_name: string };
  locality: string;
  organizationId: string;
  projectId: string;
  actor: AuditActor;
  resources: WireAuditResource[];
  requestBody?: Record<string, unknown>;
  /** The HTTP status the call answered (default 200): a ServerAction's 202 is recorded. */
  statusCode?: number;
}

export interface RecordedAuditEvent {
  recordedAtMs: number;
  wire: WireAuditEvent;
}

const regionOf = (locality: string) => locality.replace(/-\d+$/, '');

export class AuditTrailLog {
  private events: RecordedAuditEvent[] = [];

  constructor(
    public delayMs: number = DEFAULT_AUDIT_DELAY_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  record(input: AuditEventInput): RecordedAuditEvent {
    const recordedAtMs = this.clock();
    const event: RecordedAuditEvent = {
      recordedAtMs,
      wire: {
        id: randomUUID(),
        recorded_at: new Date(recordedAtMs).toISOString(),
        locality: input.locality,
        principal: { id: input.actor.principalId },
        organization_id: input.organizationId,
        project_id: input.projectId,
        source_ip: input.actor.sourceIp,
        user_agent: input.actor.userAgent,
        ...input.product,
        method_name: input.methodName,
        request_id: randomUUID(),
        ...(input.requestBody && { request_body: input.requestBody }),
        status_code: input.statusCode ?? 200,
        resources: input.resources,
      },
    };
    this.keep(event);
    return event;
  }

  private keep(event: RecordedAuditEvent): void {
    this.events.push(event);
    if (this.events.length > MAX_KEPT_EVENTS) this.events.splice(0, this.events.length - MAX_KEPT_EVENTS);
  }

  /** Adds events as given (tests: other projects or zones, old events, many events); missing keys get defaults. */
  inject(partial: Partial<WireAuditEvent>, defaults: { organizationId: string; projectId: string }): RecordedAuditEvent {
    const recordedAtMs = typeof partial.recorded_at === 'string' ? Date.parse(partial.recorded_at) : this.clock();
    if (!Number.isFinite(recordedAtMs)) throw new Error(`recorded_at "${String(partial.recorded_at)}" is not a date`);
    const event: RecordedAuditEvent = {
      recordedAtMs,
      wire: {
        principal: { id: OPERATOR_ACTOR.principalId },
        organization_id: defaults.organizationId,
        project_id: defaults.projectId,
        source_ip: OPERATOR_ACTOR.sourceIp,
        user_agent: OPERATOR_ACTOR.userAgent,
        product_name: 'instance',
        service_name: 'scaleway.instance.v1.Api',
        method_name: 'UpdateServer',
        request_id: randomUUID(),
        status_code: 200,
        ...partial,
        id: typeof partial.id === 'string' ? partial.id : randomUUID(),
        recorded_at: new Date(recordedAtMs).toISOString(),
        locality: typeof partial.locality === 'string' ? partial.locality : 'fr-par-1',
        resources: Array.isArray(partial.resources) ? partial.resources : [],
      },
    };
    this.keep(event);
    return event;
  }

  /** The events of a region that are listable now (recorded at least delayMs ago). */
  listable(region: string, now = this.clock()): RecordedAuditEvent[] {
    return this.events.filter((e) => regionOf(e.wire.locality) === region && e.recordedAtMs + this.delayMs <= now);
  }

  all(): RecordedAuditEvent[] {
    return [...this.events];
  }

  clear(): void {
    this.events = [];
  }
}

// ---- what the emulator's own mutations look like in Audit Trail ----

type ServerSnapshot = Pick<
  ServerRecord,
  'id' | 'name' | 'zone' | 'tags' | 'state' | 'commercialType' | 'createdAt' | 'modifiedAt' | 'projectId' | 'organizationId'
>;

/** What every event about one server shares: it is recorded in the server's own organization and project. */
function aboutServer(server: ServerSnapshot, actor: AuditActor, deletedAt: string | null = null) {
  return {
    product: INSTANCE_SERVICE,
    locality: server.zone,
    organizationId: server.organizationId,
    projectId: server.projectId,
    actor,
    resources: [serverResource(server, deletedAt)],
  };
}

/**
 * A server created or changed: CreateServer (with its tags, as kOps sends them) then ServerAction poweron when it
 * runs (kOps creates its servers stopped and powers them on); for an existing server, UpdateServer with the new
 * tags when they changed. A change of state alone is the platform's (a stop, a crash): no API call, no event; a
 * power action made through the API is `recordServerAction`. Address changes are not recorded: the real API
 * records them on the IP, not on the server.
 */
export function recordServerChange(
  log: AuditTrailLog,
  before: ServerSnapshot | undefined,
  after: ServerRecord,
  actor: AuditActor = OPERATOR_ACTOR,
): void {
  const base = aboutServer(after, actor);
  if (!before) {
    log.record({
      ...base,
      methodName: 'CreateServer',
      statusCode: 201,
      requestBody: {
        name: after.name,
        commercial_type: after.commercialType,
        tags: [...after.tags],
        project: after.projectId,
        routed_ip_enabled: true,
      },
    });
    const running = after.state === 'running' || after.state === 'starting';
    if (running) recordServerAction(log, after, 'poweron', actor);
  } else if (before.tags.join('\n') !== after.tags.join('\n')) {
    log.record({ ...base, methodName: 'UpdateServer', requestBody: { tags: [...after.tags] } });
  }
}

/** The Instance API's ServerAction on one server, with its `action` as the request body, as recorded. */
export function recordServerAction(log: AuditTrailLog, server: ServerSnapshot, action: string, actor: AuditActor = OPERATOR_ACTOR): void {
  log.record({
    ...aboutServer(server, actor),
    resources: [serverActionResource(server)],
    methodName: 'ServerAction',
    requestBody: { action },
    statusCode: 202,
  });
}

/**
 * A server removed through the API: ServerAction `terminate` (how kOps deletes a server: "stops and deletes the
 * machine immediately"), or DeleteServer for a server already stopped (the CLI's way, recorded: poweroff, then
 * DeleteServer answers 204; DeleteServer is not for a running server).
 */
export function recordServerRemoved(log: AuditTrailLog, server: ServerSnapshot, actor: AuditActor = OPERATOR_ACTOR): void {
  if (server.state !== 'stopped') {
    recordServerAction(log, server, 'terminate', actor);
    return;
  }
  log.record({ ...aboutServer(server, actor, new Date().toISOString()), methodName: 'DeleteServer', statusCode: 204 });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A backend write through the LB routes, by whoever made the request. */
export function recordBackendWrite(
  log: AuditTrailLog,
  lb: Pick<LbRecord, 'zone' | 'projectId' | 'organizationId'>,
  write: Omit<PoolWrite, 'at' | 'seq'>,
  backend: Pick<BackendRecord, 'createdAt' | 'updatedAt'> | undefined,
  requestBody: unknown,
  actor: AuditActor,
): void {
  const now = new Date().toISOString();
  log.record({
    product: LB_SERVICE,
    locality: lb.zone,
    organizationId: lb.organizationId,
    projectId: lb.projectId,
    actor,
    methodName: write.operation,
    statusCode: write.deleted ? 204 : 200,
    resources: [
      backendResource(
        {
          id: write.backendId,
          lbId: write.lbId,
          name: write.backendName,
          createdAt: backend?.createdAt ?? now,
          updatedAt: backend?.updatedAt ?? now,
        },
        write.deleted ? now : null,
      ),
    ],
    ...(isRecord(requestBody) ? { requestBody } : {}),
  });
}
