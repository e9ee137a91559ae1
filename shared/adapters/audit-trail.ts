// The only module that talks to Audit Trail: ListEvents with the official SDK, page after page, mapped to
// shared/core/audit-relevance.ts' AuditEvent. Only the watch function (and `lbsync watch`) import it, so
// the Audit Trail SDK stays out of the other bundles.
import { AuditTrailv1alpha1 } from '@scaleway/sdk-audit-trail';
import type { AuditEvent, AuditResource } from '../core/audit-relevance';
import { userAgentFor } from '../outbound/user-agent';
import { createSdkClient } from './sdk-client';

type Region = `${string}-${string}`;
export type WatchedResourceType = 'instance_server' | 'load_balancer_backend';

export interface AuditTrailSettings {
  accessKey: string;
  secretKey: string;
  organizationId: string;
  apiUrl?: string;
  requestTimeoutMs?: number;
  /** Events per ListEvents page; the API takes 1..1000 (the SDK's validation rules). */
  pageSize?: number;
  /** Pages read per query before giving up on the rest (the answer then says truncated). */
  maxPages?: number;
  /** This deployment's owner id, in the User-Agent. */
  ownerId?: string;
}

export interface EventQuery {
  region: string;
  /** The organization whose trail is read (the key must have AuditTrailReadOnly on it); default: the settings'. */
  organizationId?: string;
  resourceType: WatchedResourceType;
  recordedAfter: Date;
  recordedBefore: Date;
  projectId?: string;
  /** Pages to read at most for this query (never more than the gateway's maxPages). */
  maxPages?: number;
}

export interface EventListing {
  events: AuditEvent[];
  /** ListEvents calls made. */
  pages: number;
  /** More pages remained after the last page read. */
  truncated: boolean;
}

export interface AuditTrailGateway {
  /** The events of the query, oldest first, page after page up to maxPages (then `truncated`); errors are the SDK's own. */
  listEvents(query: EventQuery): Promise<EventListing>;
}

const MAX_PAGE_SIZE = 1000;
/**
 * Events per page unless settings say otherwise. While it is read, a page of 1,000 peaks ~8 MB higher than a page of
 * 250 (measured: docs/performance.md), and a quiet window fits in one page either way.
 */
export const DEFAULT_PAGE_SIZE = 250;
const DEFAULT_MAX_PAGES = 20;
function toAuditResource(resource: AuditTrailv1alpha1.Resource): AuditResource {
  const backend = resource.loadBalancerBackendInfo;
  const name = backend?.name || resource.name || resource.instanceServerInfo?.name || undefined;
  return {
    id: resource.id,
    type: resource.type,
    ...(name && { name }),
    ...(backend?.lbId && { lbId: backend.lbId }),
  };
}

export function toAuditEvent(event: AuditTrailv1alpha1.Event): AuditEvent {
  const body = event.requestBody;
  return {
    id: event.id,
    recordedAt: event.recordedAt?.toISOString() ?? '',
    locality: event.locality,
    ...(event.principal?.id && { principalId: event.principal.id }),
    ...(event.projectId && { projectId: event.projectId }),
    ...(event.userAgent && { userAgent: event.userAgent }),
    methodName: event.methodName,
    statusCode: event.statusCode,
    resources: (event.resources ?? []).map(toAuditResource),
    ...(body && typeof body === 'object' && !Array.isArray(body) && { requestBody: body }),
  };
}

export function createAuditTrailGateway(settings: AuditTrailSettings): AuditTrailGateway {
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, settings.pageSize ?? DEFAULT_PAGE_SIZE));
  const maxPages = settings.maxPages ?? DEFAULT_MAX_PAGES;
  const client = createSdkClient({
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    apiUrl: settings.apiUrl,
    requestTimeoutMs: settings.requestTimeoutMs,
    defaults: { defaultOrganizationId: settings.organizationId },
    pageSize,
    userAgent: userAgentFor(undefined, settings.ownerId),
  });
  const api = new AuditTrailv1alpha1.API(client);

  return {
    async listEvents(query) {
      const events: AuditEvent[] = [];
      let pageToken: string | undefined;
      let pages = 0;
      const pageLimit = Math.max(1, Math.min(maxPages, query.maxPages ?? maxPages));
      do {
        const page = await api.listEvents({
          region: query.region as Region,
          organizationId: query.organizationId ?? settings.organizationId,
          resourceType: query.resourceType,
          recordedAfter: query.recordedAfter,
          recordedBefore: query.recordedBefore,
          orderBy: 'recorded_at_asc',
          pageSize,
          ...(query.projectId && { projectId: query.projectId }),
          ...(pageToken && { pageToken }),
        });
        pages += 1;
        events.push(...page.events.map(toAuditEvent));
        pageToken = page.nextPageToken || undefined;
      } while (pageToken && pages < pageLimit);
      return { events, pages, truncated: pageToken !== undefined };
    },
  };
}
