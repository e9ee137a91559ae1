/** ListBackendStats JSON: the SDK's BackendServerStats, field for field (no recording shows this API). */
import type { MemberHealth } from '../health';

export function renderBackendServerStats(instanceId: string, backendId: string, member: MemberHealth): Record<string, unknown> {
  return {
    instance_id: instanceId,
    backend_id: backendId,
    ip: member.ip,
    server_state: member.serverState,
    server_state_changed_at: member.changedAt === null ? null : new Date(member.changedAt).toISOString(),
    last_health_check_status: member.status,
  };
}
