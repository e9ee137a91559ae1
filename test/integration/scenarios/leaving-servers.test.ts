/**
 * A control plane kOps is replacing is never put back. kOps marks every server it will replace (`kops update
 * cluster`: UpdateServer with noprefix=kops.k8s.io/needs-update), then deregisters one (RemoveBackendServers of its
 * address), drains and terminates it. Played here with kOps' own calls (emulator/kops/, kOps' User-Agent and API key),
 * then one event through the real path (local queue, reconcile handler, real SDK -> emulator), judged by the
 * emulator's pool history and call log, the answer and the log lines. The four cases of the rule
 * (shared/core/leaving.ts), and what plan and status say of them.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { KopsSession, type PoolWrite } from '../../../emulator';
import { planView, renderPlanView } from '../../../cli/plan-view';
import { colorsFor } from '../../../cli/output';
import { targetStatus } from '../../../cli/status-view';
import { createScalewayGateway } from '../../../shared/adapters/scaleway';
import { reconcileTarget } from '../../../shared/reconcile/reconcile-target';
import { LBSYNC_USER_AGENT_MARKER } from '../../../shared/outbound/user-agent';
import { sendEvent } from '../../support/deliveries';
import { useScenarioStack } from '../../support/scenario-stack';
import {
  DEMO_CONTROL_PLANE_IDS,
  DEMO_CONTROL_PLANE_IPS,
  FAKE_ACCESS_KEY,
  FAKE_SECRET_KEY,
  convergedDemoSeed,
  demoPool,
  demoTarget,
} from '../../support/world';

const HOUR = 3_600_000;
const [CP0_ID] = DEMO_CONTROL_PLANE_IDS as [string, string, string];
const [CP0_IP, CP1_IP, CP2_IP] = DEMO_CONTROL_PLANE_IPS as [string, string, string];
const stack = useScenarioStack({ instancePendingMs: 20 });
const plain = colorsFor({ write: () => true }, {});

let kops: KopsSession;

beforeEach(async () => {
  stack.emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0, poweronMs: 0, terminateMs: 0 });
  stack.emulator.loadSeed(convergedDemoSeed());
  stack.emulator.clearForcedHealth();
  kops = new KopsSession({
    apiUrl: stack.emulator.url,
    secretKey: 'kops-operator-secret-key',
    cluster: 'demo.k8s.local',
    zone: 'fr-par-1',
    timings: { serverPollMs: 5, lbPollMs: 5 },
  });
  // `kops update cluster --yes` after a spec change of the control planes: all three marked; its apply writes the
  // workers into the pool too (kOps' rule), which a first reconcile takes out again.
  await kops.updateCluster();
  const first = await sendEvent(stack.events, stack.emulator, demoTarget());
  await first.untilFinal();
  expect([...(demoPool(stack.emulator) ?? [])].sort()).toEqual(DEMO_CONTROL_PLANE_IPS);
  stack.emulator.resetHistory();
  stack.emulator.resetCalls();
});

const ours = (w: PoolWrite) => (w.userAgent ?? '').includes(LBSYNC_USER_AGENT_MARKER);
const ourWrites = () => stack.emulator.history().filter(ours);
const pool = () => [...(demoPool(stack.emulator) ?? [])].sort();
const gateway = () =>
  createScalewayGateway({ accessKey: FAKE_ACCESS_KEY, secretKey: FAKE_SECRET_KEY, apiUrl: stack.emulator.url, defaultZone: 'fr-par-1' });

async function planText(): Promise<string> {
  const result = await reconcileTarget(demoTarget(), { dryRun: true }, { gateway: gateway(), waitBudgetMs: 1_000 });
  const observed = new Map(Object.entries(result.observedBackends ?? {}).flatMap(([n, b]) => (b ? [[n, b] as const] : [])));
  return renderPlanView(planView(demoTarget(), result, observed), plain).join('\n');
}

describe('a control plane kOps deregistered, marked needs-update', () => {
  it('is not put back: not by a reconcile, nor by an event naming it; the answer and the log say why', async () => {
    await kops.deregister({ id: CP0_ID, name: 'control-plane-fr-par-1-0' });
    expect(pool()).toEqual([CP1_IP, CP2_IP]);
    const lines: string[] = [];
    const run = await sendEvent(
      stack.events,
      stack.emulator,
      demoTarget(),
      {},
      { event: { serverIps: [CP0_IP] }, onLogLine: (l) => lines.push(l) },
    );
    const answer = await run.untilFinal();
    expect(answer).toMatchObject({ outcome: 'noop' });
    expect(run.answers).toHaveLength(1);
    expect(await run.deadLetters()).toEqual([]);
    expect(ourWrites()).toEqual([]);
    expect(pool()).toEqual([CP1_IP, CP2_IP]);
    expect(answer?.leaving).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          ip: CP0_IP,
          verdict: 'kept_out',
          why: 'marked needs-update; kOps removes it',
          because: `not added back: ${CP1_IP}, ${CP2_IP} pass their health check`,
        }),
        expect.objectContaining({ ip: CP1_IP, verdict: 'stays' }),
      ]),
    );
    expect(answer?.warnings).toContainEqual(
      expect.stringContaining(`event serverIps names ${CP0_IP} of server control-plane-fr-par-1-0, which is leaving`),
    );
    const final = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.log_type === 'reconcile_answer');
    expect(final).toMatchObject({ outcome: 'noop', members_leaving: 3, members_added: 0 });
    expect(
      lines.some((l) =>
        l.includes(
          `leaving lb-backend-https: ${CP0_IP} (server control-plane-fr-par-1-0, marked needs-update; kOps removes it): not added back`,
        ),
      ),
    ).toBe(true);
    // The health read that decided it: one ListBackendStats, no write.
    expect(stack.emulator.calls().filter((c) => c.operation === 'ListBackendStats')).toHaveLength(1);

    const text = await planText();
    expect(text).not.toContain(`+ ${CP0_IP}`);
    expect(text).toContain(`x ${CP0_IP}  (server control-plane-fr-par-1-0, leaving (marked needs-update; kOps removes it): not added back`);
    expect(text).toContain('in sync');
  });
});

describe('every control plane marked, all in the pool', () => {
  it('nothing is removed for the mark alone: a no-op that reads no health', async () => {
    const run = await sendEvent(stack.events, stack.emulator, demoTarget());
    const answer = await run.untilFinal();
    expect(answer).toMatchObject({ outcome: 'noop' });
    expect(answer?.leaving?.map((m) => m.verdict)).toEqual(['stays', 'stays', 'stays']);
    expect(pool()).toEqual(DEMO_CONTROL_PLANE_IPS);
    expect(ourWrites()).toEqual([]);
    expect(
      stack.emulator
        .calls()
        .map((c) => c.operation)
        .sort(),
    ).toEqual(['ListBackends', 'ListLbs', 'ListServers']);
  });
});

/** kOps deregisters control-plane 0, and a successor is made as kOps makes it (CreateServer stopped, poweron), not marked. */
async function deregisterCp0AndCreateSuccessor(): Promise<string> {
  await kops.deregister({ id: CP0_ID, name: 'control-plane-fr-par-1-0' });
  const created = await kops.cloud.sdk.send<{ server: { id: string; public_ips: { address: string }[] } }>(
    'POST',
    '/instance/v1/zones/fr-par-1/servers',
    {
      name: 'control-plane-fr-par-1-3',
      commercial_type: 'DEV1-M',
      image: 'ubuntu_noble',
      routed_ip_enabled: true,
      tags: [
        'noprefix=kops.k8s.io/cluster=demo.k8s.local',
        'noprefix=kops.k8s.io/role=ControlPlane',
        'noprefix=kops.k8s.io/instance-group=control-plane-fr-par-1',
      ],
    },
  );
  await kops.cloud.sdk.send('POST', `/instance/v1/zones/fr-par-1/servers/${created.server.id}/action`, { action: 'poweron' });
  const successor = created.server.public_ips[0]?.address as string;
  return successor;
}

describe('the successor joins while the deregistered one stays out', () => {
  it('one write, adding the successor only; status shows the deregistered one as leaving', async () => {
    const successor = await deregisterCp0AndCreateSuccessor();
    const run = await sendEvent(
      stack.events,
      stack.emulator,
      demoTarget(),
      {},
      { event: { source: 'instance-replacement', serverIps: [successor] } },
    );
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied', actions: ['SetBackendServers'] });
    expect(ourWrites().map((w) => [...w.pool].sort())).toEqual([[CP1_IP, CP2_IP, successor]]);
    expect(pool()).not.toContain(CP0_IP);

    const gw = gateway();
    const read = await import('../../../cli/status-read').then((m) =>
      m.readTargetStatus(demoTarget(), gw, { waitBudgetMs: 1_000, transientWaitMs: 0, duplicateGraceMs: 0 }),
    );
    const member = targetStatus(read).members.find((m) => m.ip === CP0_IP);
    expect(member).toMatchObject({ inPool: false, desired: false, change: 'leaving' });
    expect(member?.why).toContain('marked needs-update; kOps removes it');
    expect(targetStatus(read).inSync).toBe(true);
  });
});

describe('in shadow mode (LBSYNC_MODE=shadow), the same successor', () => {
  it('is planned as the changes-only write and never written; the writing deployment then makes that write', async () => {
    const successor = await deregisterCp0AndCreateSuccessor();
    stack.emulator.resetCalls();
    const event = { event: { source: 'instance-replacement', serverIps: [successor] } };
    const shadow = await sendEvent(stack.events, stack.emulator, demoTarget(), { LBSYNC_MODE: 'shadow' }, event);
    const answer = await shadow.untilFinal();
    expect(answer).toMatchObject({ outcome: 'dry_run', mode: 'shadow' });
    expect(answer?.planned).toEqual([
      expect.stringContaining('(as AddBackendServers/RemoveBackendServers: the pool holds leaving servers)'),
    ]);
    expect(stack.emulator.calls().filter((c) => c.method !== 'GET')).toEqual([]);
    expect(pool()).toEqual([CP1_IP, CP2_IP]);

    // The write the shadow held back is the rolling update's own: AddBackendServers of the successor alone.
    const written = await sendEvent(stack.events, stack.emulator, demoTarget(), {}, event);
    expect(await written.untilFinal()).toMatchObject({ outcome: 'applied' });
    expect(
      stack.emulator
        .calls()
        .filter((c) => c.method !== 'GET')
        .map((c) => c.operation),
    ).toEqual(['AddBackendServers']);
    expect(pool()).toEqual([CP1_IP, CP2_IP, successor].sort());
  });
});

describe('only marked servers could serve', () => {
  it('the pool holds a successor that does not pass yet: the marked ones are added, with a leaving_admitted warning', async () => {
    stack.emulator.setBehaviours({ healthPassAfterMs: HOUR });
    // kOps (--cloudonly, say) left the pool with one new server whose API does not answer yet.
    const backendId = stack.emulator.backendHealth().backends[0]?.backendId as string;
    await kops.cloud.sdk.send('PUT', `/lb/v1/zones/fr-par-1/backends/${backendId}/servers`, { server_ip: ['51.158.9.9'] });
    stack.emulator.upsertServer({
      name: 'control-plane-fr-par-1-3',
      zone: 'fr-par-1',
      tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
      publicIps: ['51.158.9.9'],
    });
    const run = await sendEvent(stack.events, stack.emulator, demoTarget());
    const answer = await run.untilFinal();
    expect(answer).toMatchObject({ outcome: 'applied', actions: ['SetBackendServers'] });
    expect(pool()).toEqual([...DEMO_CONTROL_PLANE_IPS, '51.158.9.9']);
    const [warning] = (answer?.warnings ?? []).filter((w) => w.startsWith('[leaving_admitted] added leaving server(s): '));
    expect(warning).toContain(`${CP0_IP} of server control-plane-fr-par-1-0 to lb-backend-https (marked needs-update; kOps removes it)`);
    expect(warning).toContain('no other member passes its health check (better a doomed server than none)');
    expect(
      answer?.leaving
        ?.filter((m) => m.verdict === 'admitted')
        .map((m) => m.ip)
        .sort(),
    ).toEqual(DEMO_CONTROL_PLANE_IPS);
  });

  it('the backend is missing and every control plane is marked: it is created with them', async () => {
    stack.emulator.loadSeed(convergedDemoSeed());
    const seedless = await kops.cloud.clusterLoadBalancers('demo.k8s.local');
    const [backend] = stack.emulator.backendHealth().backends;
    await kops.cloud.sdk.send('DELETE', `/lb/v1/zones/fr-par-1/backends/${backend?.backendId}`, undefined);
    expect(seedless).toHaveLength(1);
    for (const id of DEMO_CONTROL_PLANE_IDS) {
      const { server } = await kops.cloud.getServer(id);
      await kops.cloud.sdk.send('PATCH', `/instance/v1/zones/fr-par-1/servers/${id}`, {
        tags: [...server.tags, 'noprefix=kops.k8s.io/needs-update'],
      });
    }
    const run = await sendEvent(stack.events, stack.emulator, demoTarget());
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied', actions: ['CreateBackend'] });
    expect(pool()).toEqual(DEMO_CONTROL_PLANE_IPS);
  });
});
