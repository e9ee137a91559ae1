/**
 * The LB's BackendServerStats JSON, field for field as recorded (cli-lb-test-get-stats-simple #14):
 * `server_state_changed_at` in whole seconds (`2025-01-30T15:47:21Z`), null for what was so before the seed.
 */
import type { MemberHealth } from '../health';

export function renderBackendServerStats(instanceId: string, backendId: string, member: MemberHealth): Record<string, unknown> {
  return {
    instance_id: instanceId,
    backend_id: backendId,
    ip: member.ip,
    server_state: member.serverState,
    server_state_changed_at: member.changedAt === null ? null : new Date(member.changedAt).toISOString().replace(/\.\d+Z$/, 'Z'),
    last_health_check_status: member.status,
  };
}
