// Who else writes the targets' pools: Audit Trail's backend writes of the last 30 minutes, read as the watcher reads
// them (shared/core/contest.ts), for `lbsync status` and `lbsync doctor`. Read-only; skipped when no organization is
// known (Audit Trail is read per organization), told when the key may not read it.
import { auditTrailSettingsFromEnv } from '../shared/platform/config';
import type { Contest, ForeignWrite } from '../shared/core/contest';
import { CONTEST_WINDOW_MS, contests, foreignWrites } from '../shared/core/contest';
import { regionOf } from '../shared/core/locality';
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
  | { read: true; ownerId?: string; foreign: ForeignWrite[]; contests: Contest[] }
  /** configured: an organization is known (Audit Trail could be read), so the failure is worth telling. */
  | { read: false; configured: boolean; why: string; error?: DescribedError };

/** One ListEvents query (backend writes, the last 30 minutes) per region of the targets. */
export async function readWriters(env: NodeJS.ProcessEnv, targets: readonly Target[], now = Date.now()): Promise<WritersRead> {
  let settings: ReturnType<typeof auditTrailSettings>;
  try {
    settings = auditTrailSettings(env);
  } catch (error) {
    const why = describeError(error).message.replace(/\s*\n\s*-?\s*/g, ' ');
    return { read: false, configured: !/SCW_DEFAULT_ORGANIZATION_ID: is not set/.test(why), why: `Audit Trail not read: ${why}` };
  }
  const { ownPrincipalIds, projectId, ...connection } = settings;
  const { createAuditTrailGateway } = await import('../shared/adapters/audit-trail');
  const gateway = createAuditTrailGateway({ ...connection, maxPages: 4 });
  const own = {
    userAgentMarker: LBSYNC_USER_AGENT_MARKER,
    principalIds: new Set(ownPrincipalIds),
    ...(connection.ownerId && { ownerId: connection.ownerId }),
  };
  try {
    const regions = [...new Set(targets.map((t) => regionOf(t.zone)))];
    const listings = await Promise.all(
      regions.map((region) =>
        gateway.listEvents({
          region,
          resourceType: 'load_balancer_backend',
          recordedAfter: new Date(now - CONTEST_WINDOW_MS),
          recordedBefore: new Date(now),
          ...(projectId && { projectId }),
        }),
      ),
    );
    const events = listings.flatMap((l) => l.events);
    const scope = { own, ...(projectId && { projectId }) };
    return {
      read: true,
      ...(connection.ownerId && { ownerId: connection.ownerId }),
      foreign: foreignWrites(events, targets, scope),
      contests: contests(events, targets, scope, now),
    };
  } catch (error) {
    const described = describeError(error);
    return { read: false, configured: true, why: `Audit Trail not read: ${described.message}`, error: described };
  }
}
