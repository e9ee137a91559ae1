/** IPAM API IP JSON, as in the recorded ListIPs answers. */
import type { IpamIpRecord } from '../records';

export function renderIpamIp(ip: IpamIpRecord): Record<string, unknown> {
  return {
    address: ip.address,
    created_at: ip.createdAt,
    id: ip.id,
    is_ipv6: ip.isIpv6,
    project_id: ip.projectId,
    region: ip.region,
    resource: ip.resource ? { ...ip.resource } : null,
    reverses: ip.reverses.map((reverse) => ({ ...reverse })),
    source: { ...ip.source },
    tags: [...ip.tags],
    updated_at: ip.updatedAt,
    zone: ip.zone,
  };
}
