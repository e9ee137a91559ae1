// Who else writes the targets' pools: Audit Trail's backend writes of the last 30 minutes, read as the watcher reads
// them (shared/core/contest.ts; one read per organization and region, with a key of its targets), for `lbsync status`
// and `lbsync doctor`. Read-only; skipped when no organization is known, told when no key may read it.
import { auditTrailSettingsFromEnv } from '../shared/platform/config';
import type { Contest, ForeignWrite } from '../shared/core/contest';
import { CONTEST_WINDOW_MS, contests, foreignWrites } from '../shared/core/contest';
import { trailGroups } from '../shared/core/target-accounts';
import type { LbSyncError } from '../shared/errors/lbsync-error';
import { readTrail } from '../shared/handlers/watch-request';
import { gatewayPerKey } from '../shared/platform/target-keys';
import type { Target } from '../shared/schemas/target';
import { LBSYNC_USER_AGENT_MARKER } from '../shared/outbound/user-agent';
import { resolveScalewayCredentials } from './credentials';
import type { DescribedError } from './output';
import { describeError } from './output';

/** The watch function's settings, with the keys and organization found the way `scw` finds them. */
export function auditTrailSettings(env: NodeJS.ProcessEnv) {
  const credentials = resolveScalewayCredentials(env);
  const { settings } = credentials;
  const organizationId = env.SCW_DEFAULT_ORGANIZATION_ID?.trim() || credentials.organizationId;
  return auditTrailSettingsFromEnv({
    ...env,
    SCW_ACCESS_KEY: settings.accessKey,
    SCW_SECRET_KEY: settings.secretKey,
    ...(organizationId && { SCW_DEFAULT_ORGANIZATION_ID: organizationId }),
    ...(settings.apiUrl && { SCW_API_URL: settings.apiUrl }),
    ...(settings.projectId && { SCW_DEFAULT_PROJECT_ID: settings.projectId }),
  });
}

export type WritersRead =
  | {
      read: true;
      ownerId?: string;
      foreign: ForeignWrite[];
      contests: Contest[];
      /** The targets whose organization's trail no key of theirs may read, with why. */
      unread: { targets: string[]; why: string }[];
    }
  /** configured: an organization is known (Audit Trail could be read), so the failure is worth telling. */
  | { read: false; configured: boolean; why: string; error?: DescribedError };

/**
 * One ListEvents query (backend writes, the last 30 minutes) per (organization, region) of the targets, with a key
 * of theirs that may read it, as the watcher reads them.
 */
export async function readWriters(
  env: NodeJS.ProcessEnv,
  targets: readonly Target[],
  now = Date.now(),
  protect?: (secret: string) => void,
): Promise<WritersRead> {
  let settings: ReturnType<typeof auditTrailSettings>;
  try {
    settings = auditTrailSettings(env);
  } catch (error) {
    const why = describeError(error).message.replace(/\s*\n\s*-?\s*/g, ' ');
    return { read: false, configured: !/SCW_DEFAULT_ORGANIZATION_ID: is not set/.test(why), why: `Audit Trail not read: ${why}` };
  }
  const { ownPrincipalIds, projectId, ...connection } = settings;
  const { createAuditTrailGateway } = await import('../shared/adapters/audit-trail');
  const gatewayFor = gatewayPerKey(env, (key) => createAuditTrailGateway({ ...connection, maxPages: 4, ...key }), protect);
  const own = {
    userAgentMarker: LBSYNC_USER_AGENT_MARKER,
    principalIds: new Set(ownPrincipalIds),
    ...(connection.ownerId && { ownerId: connection.ownerId }),
  };
  const scope = { own, ...(projectId && { projectId }) };
  try {
    const groups = trailGroups(targets, { organizationId: connection.organizationId, ...(projectId && { projectId }) });
    const outcomes = await Promise.all(
      groups.map((group) =>
        readTrail(group, gatewayFor, (gateway) =>
          gateway.listEvents({
            region: group.region,
            organizationId: group.organizationId,
            resourceType: 'load_balancer_backend',
            recordedAfter: new Date(now - CONTEST_WINDOW_MS),
            recordedBefore: new Date(now),
            ...(group.projectId && { projectId: group.projectId }),
          }),
        ),
      ),
    );
    const reads = outcomes.flatMap((o) => ('read' in o ? [o] : []));
    const unread = outcomes.flatMap((o) =>
      'refused' in o ? [{ targets: o.group.targets.map((t) => t.name), why: `Audit Trail not read: ${o.refused.message}` }] : [],
    );
    // No trail readable at all: told as one failure, as before organizations.
    if (reads.length === 0 && unread.length > 0) {
      const first = outcomes.find((o) => 'refused' in o) as { refused: LbSyncError };
      return { read: false, configured: true, why: unread[0]?.why ?? '', error: describeError(first.refused) };
    }
    return {
      read: true,
      ...(connection.ownerId && { ownerId: connection.ownerId }),
      foreign: reads.flatMap(({ group, read }) => foreignWrites(read.events, group.targets, scope)),
      contests: reads.flatMap(({ group, read }) => contests(read.events, group.targets, scope, now)),
      unread,
    };
  } catch (error) {
    const described = describeError(error);
    return { read: false, configured: true, why: `Audit Trail not read: ${described.message}`, error: described };
  }
}
