/**
 * ipam-private pools that can work. The LB cannot reach an address on a private network it is not attached to. In a
 * pool, that address's health check never passes, and make-before-break would wait for it for ever. So an
 * ipam-private target's addresses are those of one private network: the one it names in servers.privateNetworkId,
 * else the one its servers' NICs are all on. And the LB must be attached to that network, `ready`
 * (ListLbPrivateNetworks), before anything is written.
 */
import type { LbIdentity } from '../errors/lbsync-error';
import { LbSyncError } from '../errors/lbsync-error';
import type { ObservedLbAttachment, ObservedServer } from './model';

/**
 * The private network whose NIC addresses an ipam-private target takes: the one it names, else the one every NIC of
 * its servers is on (undefined when they have none). If the NICs are on several networks and none is named, it throws
 * private_network_ambiguous, after `step` (the words of the step that reads the servers' addresses).
 */
export function targetPrivateNetwork(
  named: string | undefined,
  servers: readonly ObservedServer[],
  lb: LbIdentity | undefined,
  step: string,
): string | undefined {
  if (named !== undefined) return named;
  const networks = [...new Set(servers.flatMap((server) => server.privateNics.map((nic) => nic.privateNetworkId)))].sort();
  if (networks.length <= 1) return networks[0];
  const onEach = networks.map((network) => {
    const names = servers.filter((server) => server.privateNics.some((nic) => nic.privateNetworkId === network)).map((s) => s.name);
    return `${network} (${names.join(', ')})`;
  });
  throw new LbSyncError(
    'private_network_ambiguous',
    `${step}: the servers have private NICs on ${networks.length} private networks, ${onEach.join('; ')}, and the target does not name one (servers.privateNetworkId)`,
    lb ? { lb } : {},
  );
}

/**
 * Why the LB cannot reach the target's private network yet, as the error the reconcile ends with (after `step`, the
 * words of the step that read the attachments). Undefined when one of its attachments to that network is `ready`.
 * - No attachment, or one in `error`: private_network_not_attached (a human attaches it).
 * - `pending` or `unknown`: private_network_attaching (recorded: it settles within seconds).
 */
export function attachmentProblem(
  attachments: readonly ObservedLbAttachment[],
  privateNetworkId: string,
  lb: { id: string; name: string },
  step: string,
): LbSyncError | undefined {
  const onNetwork = attachments.filter((a) => a.privateNetworkId === privateNetworkId);
  if (onNetwork.some((a) => a.status === 'ready')) return undefined;
  const identity = { id: lb.id, name: lb.name };
  const others = attachments.filter((a) => a.privateNetworkId !== privateNetworkId);
  const elsewhere =
    others.length > 0
      ? `it is attached to ${others.map((a) => `${a.privateNetworkId} (${a.status})`).join(', ')}`
      : 'it is attached to none';
  const settling = onNetwork.find((a) => a.status === 'pending' || a.status === 'unknown');
  if (settling) {
    return new LbSyncError(
      'private_network_attaching',
      `${step}: its attachment to private network ${privateNetworkId} is ${settling.status}, not ready: nothing is written until it is`,
      { lb: identity },
    );
  }
  const state =
    onNetwork.length > 0
      ? `its attachment to private network ${privateNetworkId} is ${onNetwork.map((a) => a.status).join(', ')}`
      : `it is not attached to private network ${privateNetworkId} (${elsewhere})`;
  return new LbSyncError(
    'private_network_not_attached',
    `${step}: ${state}, so it cannot reach the servers' addresses there: nothing is written`,
    { lb: identity },
  );
}
