import type { ScalewayGateway } from '../adapters/scaleway';
import type { ObservedMemberHealth } from '../core/model';

/**
 * A gateway that calls ListBackendStats once per backend, however often the steps ask: the leaving servers' check,
 * the staging of removals, `lbsync status`. `read` lists the backends read (`zone/lbId/backendId`).
 */
export function healthReadOnce(gateway: ScalewayGateway): { gateway: ScalewayGateway; read: Set<string> } {
  const answers = new Map<string, Promise<ObservedMemberHealth[]>>();
  const read = new Set<string>();
  const wrapped: ScalewayGateway = {
    ...gateway,
    listBackendHealth(zone, lbId, backendId) {
      const key = `${zone}/${lbId}/${backendId}`;
      const answer = answers.get(key) ?? gateway.listBackendHealth(zone, lbId, backendId);
      answers.set(key, answer);
      read.add(key);
      return answer;
    },
  };
  return { gateway: wrapped, read };
}
