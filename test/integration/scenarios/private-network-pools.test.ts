/**
 * ipam-private pools that can work (issue 24, 7), through the real path: an event on the local queue, the reconcile
 * handler, the real SDK against the emulator. A private address reaches a pool only from the NIC on the target's
 * private network, and only while the LB is attached to that network (`ready`, ListLbPrivateNetworks): otherwise the
 * answer carries the code and its hint, nothing is written (the emulator's call log and pool history show it).
 */
import { describe, expect, it } from 'vitest';
import type { EmulatorSeed, SeedServer } from '../../../emulator';
import { sendEvent } from '../../support/deliveries';
import { useScenarioStack } from '../../support/scenario-stack';
import { DEMO_LB_ID, DEMO_PRIVATE_NETWORK_ID, demoSeedWith, demoTarget, wireAnswer } from '../../support/world';

const stack = useScenarioStack();
const TAGS = ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'];
const PRIVATE_POOL = ['10.0.0.11', '10.0.0.12', '10.0.0.13'];
const OTHER_NETWORK = '3f1c2a9e-7d4b-4e8a-9c61-5b2d8e0f4a77';
const OTHER_LB = '00000000-0000-4000-8000-0000000000b2';

const ipamPrivate = (privateNetworkId?: string) =>
  demoTarget({ servers: { tags: TAGS, ipSource: 'ipam-private', ...(privateNetworkId && { privateNetworkId }) } });

/** The demo world with control-plane-fr-par-1-0 given a second NIC, on another network, with a lower address. */
function withSecondNetwork(seed: EmulatorSeed): EmulatorSeed {
  const servers = (seed.servers ?? []).map(
    (s): SeedServer =>
      s.name === 'control-plane-fr-par-1-0'
        ? { ...s, privateNics: [...(s.privateNics ?? []), { privateNetworkId: OTHER_NETWORK, ipamAddresses: ['10.0.0.5/22'] }] }
        : s,
  );
  return { ...seed, servers };
}

const writes = () => stack.emulator.calls().filter((c) => c.write);

describe('an ipam-private target whose LB is not attached to its servers’ private network', () => {
  it('is dead-lettered with private_network_not_attached and its hint; nothing written', async () => {
    stack.emulator.loadSeed(demoSeedWith({ privateNetworks: [{ privateNetworkId: OTHER_NETWORK }] }));
    stack.emulator.resetCalls();
    const run = await sendEvent(stack.events, stack.emulator, ipamPrivate());
    const answer = await run.untilFinal();
    expect(answer).toMatchObject({
      outcome: 'dead_lettered',
      reason: 'permanent_error',
      error: {
        code: 'private_network_not_attached',
        message: `reading private networks of load-balancer api.demo.k8s.local: it is not attached to private network ${DEMO_PRIVATE_NETWORK_ID} (it is attached to ${OTHER_NETWORK} (ready)), so it cannot reach the servers' addresses there: nothing is written`,
        hint: expect.stringContaining('Attach the LB to the network'),
      },
    });
    expect((await run.deadLetters()).map((r) => r.error.code)).toEqual(['private_network_not_attached']);
    expect(writes()).toEqual([]);
    expect(stack.emulator.calls().map((c) => c.operation)).toContain('ListLbPrivateNetworks');
  });

  it('an attachment still pending: retried (private_network_attaching), written once it is ready', async () => {
    const pending = demoSeedWith({ privateNetworks: [{ privateNetworkId: DEMO_PRIVATE_NETWORK_ID, status: 'pending' }] });
    stack.emulator.loadSeed(pending);
    stack.emulator.resetHistory();
    const run = await sendEvent(stack.events, stack.emulator, ipamPrivate());
    const answer = await run.untilFinal(12, (retry, index) => {
      expect(retry.error?.code).toBe('private_network_attaching');
      expect(stack.emulator.history()).toEqual([]);
      // Ready after the second attempt (recorded: pending, then ready about 30 s later).
      if (index === 1) stack.emulator.loadSeed(demoSeedWith({}));
    });
    expect(answer).toMatchObject({ outcome: 'applied' });
    expect(run.answers.map((a) => a.outcome)).toEqual(['retry_scheduled', 'retry_scheduled', 'applied']);
    expect(stack.emulator.history().map((w) => w.pool)).toEqual([PRIVATE_POOL]);
  });

  it('an attachment listing that names another LB is lb_answer_mismatch: nothing written', async () => {
    stack.emulator.loadSeed(demoSeedWith({}));
    const listing = await wireAnswer<{ private_network: Record<string, unknown>[] }>(
      stack.emulator,
      `/lb/v1/zones/fr-par-1/lbs/${DEMO_LB_ID}/private-networks`,
    );
    const relabelled = listing.private_network.map((a) => ({ ...a, lb: { ...(a.lb as object), id: OTHER_LB } }));
    stack.emulator.addFault({ operation: 'ListLbPrivateNetworks', status: 200, body: { private_network: relabelled, total_count: 1 } });
    stack.emulator.resetCalls();
    const run = await sendEvent(stack.events, stack.emulator, ipamPrivate());
    expect(await run.untilFinal()).toMatchObject({ outcome: 'dead_lettered', error: { code: 'lb_answer_mismatch' } });
    expect(writes()).toEqual([]);
  });
});

describe('servers with NICs on several private networks', () => {
  it('the target names none: private_network_ambiguous, naming the networks; nothing written', async () => {
    stack.emulator.loadSeed(withSecondNetwork(demoSeedWith({})));
    stack.emulator.resetCalls();
    const run = await sendEvent(stack.events, stack.emulator, ipamPrivate());
    const answer = await run.untilFinal();
    expect(answer).toMatchObject({ outcome: 'dead_lettered', error: { code: 'private_network_ambiguous' } });
    expect(answer?.error?.message).toContain(`${OTHER_NETWORK} (control-plane-fr-par-1-0)`);
    expect(answer?.error?.message).toContain('servers.privateNetworkId');
    expect(writes()).toEqual([]);
  });

  it('the target names its network: only the NIC on it gives the address, though the other one is lower', async () => {
    stack.emulator.loadSeed(withSecondNetwork(demoSeedWith({})));
    stack.emulator.resetHistory();
    const run = await sendEvent(stack.events, stack.emulator, ipamPrivate(DEMO_PRIVATE_NETWORK_ID));
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied' });
    expect(stack.emulator.history().map((w) => w.pool)).toEqual([PRIVATE_POOL]);
  });

  it('the target names a network the LB is not attached to: private_network_not_attached; nothing written', async () => {
    stack.emulator.loadSeed(withSecondNetwork(demoSeedWith({})));
    stack.emulator.resetCalls();
    const run = await sendEvent(stack.events, stack.emulator, ipamPrivate(OTHER_NETWORK));
    expect(await run.untilFinal()).toMatchObject({ outcome: 'dead_lettered', error: { code: 'private_network_not_attached' } });
    expect(writes()).toEqual([]);
  });
});
