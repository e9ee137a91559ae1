import { callGateway } from '../adapters/api-failure';
import type { ScalewayGateway } from '../adapters/scaleway';
import type { DiscoveredPool } from '../core/desired';
import { discoveredPool } from '../core/desired';
import type { ServerScope } from '../core/discovery-check';
import { admitServers } from '../core/discovery-check';
import { targetLbIdentity } from '../core/lb-identity';
import { regionOf } from '../core/locality';
import { kopsMessage } from '../errors/kops-messages';
import { unusablePoolAddress } from '../schemas/backend-address';
import type { Target } from '../schemas/target';

/** Where the target's servers must be: its tags and zone, and its project (its own, else the deployment's), if any. */
export function serverScope(gateway: Pick<ScalewayGateway, 'projectId'>, target: Target): ServerScope {
  return { zone: target.zone, tags: target.servers.tags, projectId: target.projectId ?? gateway.projectId };
}

/**
 * The desired pool: the addresses of the servers carrying all the target's tags. What the API answers is checked
 * again on our side (core/discovery-check.ts): a server that is not the target's is left out and named, and only
 * the NICs of the target's own servers are asked of IPAM.
 */
export async function discoverPool(gateway: ScalewayGateway, target: Target): Promise<DiscoveredPool> {
  const lb = targetLbIdentity(target);
  const servers = await callGateway({
    message: kopsMessage.listServers(),
    notFound: 'unknown_api_error',
    lb,
    run: () => gateway.listServersByTags(target.zone, target.servers.tags),
  });
  const checked = admitServers(servers, serverScope(gateway, target));
  const privateNicIps =
    target.servers.ipSource === 'ipam-private'
      ? await callGateway({
          message: kopsMessage.serverIp(checked.admitted.map((s) => s.name).join(',')),
          notFound: 'lb_not_found',
          lb,
          run: () =>
            gateway.listPrivateNicIps(
              regionOf(target.zone),
              checked.admitted.flatMap((s) => s.privateNicIds),
            ),
        })
      : [];
  return discoveredPool(target.servers.ipSource, checked, privateNicIps, unusablePoolAddress, target.servers.leavingTags);
}
