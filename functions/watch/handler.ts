import { createAuditTrailGateway } from '../../shared/adapters/audit-trail';
import { handleWatchRequest } from '../../shared/handlers/watch-request';
import { auditTrailSettingsFromEnv } from '../../shared/platform/config';
import { functionShell } from '../../shared/platform/function-shell';
import { requestBody } from '../../shared/platform/request-response';
import { once } from '../../shared/platform/runtime';
import { gatewayPerKey } from '../../shared/platform/target-keys';
import { LBSYNC_USER_AGENT_MARKER } from '../../shared/outbound/user-agent';

// Only this function reads Audit Trail: its SDK stays out of the other bundles.
const settings = once(() => auditTrailSettingsFromEnv(process.env, { function: true }));

/** Cron trigger (every minute): Audit Trail events of the last period + overlap -> one `audit` event per concerned target. */
export const handle = functionShell(
  'watch',
  (event, runtime, logger) => {
    const { ownPrincipalIds, projectId, ...auditTrail } = settings();
    return handleWatchRequest(requestBody(event), {
      targets: runtime.targets(),
      // Each (organization, region) is read with a key of its targets: their own, else this function's.
      auditTrail: gatewayPerKey(process.env, (key) => createAuditTrailGateway({ ...auditTrail, ...key })),
      organizationId: auditTrail.organizationId,
      queue: runtime.queue,
      reconcileQueueUrl: runtime.queueEnv().reconcileQueueUrl,
      window: runtime.config.watch,
      own: {
        userAgentMarker: LBSYNC_USER_AGENT_MARKER,
        principalIds: new Set(ownPrincipalIds),
        ...(auditTrail.ownerId && { ownerId: auditTrail.ownerId }),
      },
      ...(projectId && { projectId }),
      logger,
    });
  },
  (message, code) => ({ error: code, message }),
);
