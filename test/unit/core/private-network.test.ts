// Which private network an ipam-private target's addresses are on, and whether the LB reaches it
// (shared/core/private-network.ts): pure, table-tested.
import { describe, expect, it } from 'vitest';
import type { ObservedLbAttachment, ObservedServer } from '../../../shared/core/model';
import { attachmentProblem, targetPrivateNetwork } from '../../../shared/core/private-network';

const LB = { id: 'lb-1', name: 'api.prod.k8s.local' };
const STEP = "getting IP of server cp-0,cp-1 for load-balancer's back-end";
const server = (name: string, ...networks: string[]): ObservedServer => ({
  id: `id-${name}`,
  name,
  state: 'running',
  tags: [],
  zone: 'fr-par-1',
  projectId: 'p',
  publicIpv4: [],
  publicIpv6: [],
  routedIpv4: [],
  ipStates: {},
  privateNics: networks.map((network, i) => ({ id: `nic-${name}-${i}`, privateNetworkId: network })),
});

describe('targetPrivateNetwork', () => {
  it('the network the target names, whatever its servers’ NICs', () => {
    expect(targetPrivateNetwork('pn-2', [server('cp-0', 'pn-1', 'pn-3')], LB, STEP)).toBe('pn-2');
  });

  it('none named: the one network every NIC of the servers is on; none when they have no NIC', () => {
    expect(targetPrivateNetwork(undefined, [server('cp-0', 'pn-1'), server('cp-1', 'pn-1')], LB, STEP)).toBe('pn-1');
    expect(targetPrivateNetwork(undefined, [server('cp-0'), server('cp-1')], LB, STEP)).toBeUndefined();
  });

  it('none named and NICs on several networks: private_network_ambiguous, naming each network with its servers', () => {
    const servers = [server('cp-0', 'pn-1', 'pn-2'), server('cp-1', 'pn-1')];
    expect(() => targetPrivateNetwork(undefined, servers, LB, STEP)).toThrow(
      expect.objectContaining({
        code: 'private_network_ambiguous',
        errorClass: 'permanent',
        lb: LB,
        message: `${STEP}: the servers have private NICs on 2 private networks, pn-1 (cp-0, cp-1); pn-2 (cp-0), and the target does not name one (servers.privateNetworkId)`,
      }),
    );
  });
});

describe('attachmentProblem', () => {
  const STEP_LB = 'reading private networks of load-balancer api.prod.k8s.local';
  const on = (privateNetworkId: string, status: string): ObservedLbAttachment => ({ privateNetworkId, status, lbId: 'lb-1' });

  it.each([
    ['attached, ready', [on('pn-1', 'ready')], undefined],
    ['attached twice, one ready', [on('pn-1', 'error'), on('pn-1', 'ready')], undefined],
    ['attached, pending', [on('pn-1', 'pending')], 'private_network_attaching'],
    ['attached, unknown', [on('pn-1', 'unknown')], 'private_network_attaching'],
    ['attached, in error', [on('pn-1', 'error')], 'private_network_not_attached'],
    ['attached elsewhere only', [on('pn-2', 'ready')], 'private_network_not_attached'],
    ['attached nowhere', [], 'private_network_not_attached'],
  ] as const)('%s: %s', (_case, attachments, code) => {
    expect(attachmentProblem(attachments, 'pn-1', LB, STEP_LB)?.code).toBe(code);
  });

  it('says where the LB is attached instead, and that nothing is written', () => {
    const problem = attachmentProblem([on('pn-2', 'ready'), on('pn-3', 'pending')], 'pn-1', LB, STEP_LB);
    expect(problem).toMatchObject({ errorClass: 'permanent', lb: LB });
    expect(problem?.message).toBe(
      `${STEP_LB}: it is not attached to private network pn-1 (it is attached to pn-2 (ready), pn-3 (pending)), so it cannot reach the servers' addresses there: nothing is written`,
    );
    expect(attachmentProblem([], 'pn-1', LB, STEP_LB)?.message).toBe(
      `${STEP_LB}: it is not attached to private network pn-1 (it is attached to none), so it cannot reach the servers' addresses there: nothing is written`,
    );
    expect(attachmentProblem([on('pn-1', 'pending')], 'pn-1', LB, STEP_LB)).toMatchObject({
      errorClass: 'transient',
      message: `${STEP_LB}: its attachment to private network pn-1 is pending, not ready: nothing is written until it is`,
    });
  });
});
