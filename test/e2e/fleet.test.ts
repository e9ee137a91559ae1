// One deployment for a fleet, end to end on the local stack (the real functions served, the queue, the trigger
// bridge): two organizations, three projects, each target on its own key. Every key is answered for its own
// organization only, so a call made with the wrong key would find nothing or be refused. The evidence: the
// emulator's pools, Audit Trail's record of who wrote each pool (the principal of the key), the queue and the
// dead-letter queue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalIdOf } from '../../emulator';
import type { LocalStack } from '../../local/stack';
import { startLocalStack } from '../../local/stack';
import type { Delivery } from '../../local/trigger-bridge';
import type { WatchReport } from '../../shared/handlers/watch-request';
import type { TargetInput } from '../../shared/schemas/target';
import { FLEET, FLEET_DENIALS, type FleetCluster, fleetSeed, fleetTargets, KEYS, ORG_B } from '../support/fleet';
import { CONTROL_PLANE_ROLE_TAG } from '../support/world';

/** A target whose credentials name variables nobody set: it fails alone. */
const EPSILON: TargetInput = {
  kops: {
    cluster: 'epsilon.k8s.local',
    zone: 'fr-par-1',
    credentials: { accessKeyEnv: 'TEAM_E_ACCESS_KEY', secretKeyEnv: 'TEAM_E_SECRET_KEY' },
  },
};
/** Which key serves each cluster (organization B's lacks AuditTrailReadOnly in this deployment). */
const KEY_OF: Record<string, { accessKey: string; secretKey: string }> = {
  'alpha.k8s.local': KEYS.deployment,
  'beta.k8s.local': KEYS.teamA2,
  'gamma.k8s.local': KEYS.teamBNoAuditTrail,
  'delta.k8s.local': KEYS.teamBNoAuditTrail,
};
const [alpha, , gamma] = FLEET as [FleetCluster, FleetCluster, FleetCluster, FleetCluster];

let stack: LocalStack;
const deliveries: Delivery[] = [];

function poolOf(lbId: string): string[] | undefined {
  const state = stack.emulator.dumpState() as { lbs: { id: string; backends: { name: string; pool: string[] }[] }[] };
  return state.lbs
    .find((lb) => lb.id === lbId)
    ?.backends.find((b) => b.name === 'lb-backend-https')
    ?.pool.slice()
    .sort();
}

/** Who wrote each LB's backends, as Audit Trail recorded it: the principal of the key each write was made with. */
function writersByLb(): Map<string, Set<string>> {
  const writers = new Map<string, Set<string>>();
  for (const event of stack.emulator.auditTrail.events()) {
    const backend = event.resources?.find((r) => r.type === 'load_balancer_backend') as
      | { load_balancer_backend_info?: { lb_id?: string } }
      | undefined;
    const lbId = backend?.load_balancer_backend_info?.lb_id;
    if (!lbId) continue;
    writers.set(lbId, new Set([...(writers.get(lbId) ?? []), (event.principal as { id: string }).id]));
  }
  return writers;
}

const idle = () => stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 30_000 });

beforeAll(async () => {
  stack = await startLocalStack({
    seed: fleetSeed(),
    targets: [...fleetTargets(), EPSILON],
    functionsFrom: 'source',
    instancePendingMs: 50,
    sweepCron: false,
    auditTrailDelayMs: 0,
    denyApis: FLEET_DENIALS,
    env: {
      LOG_LEVEL: 'silent',
      LBSYNC_WAIT_BUDGET_MS: '2000',
      SCW_ACCESS_KEY: KEYS.deployment.accessKey,
      SCW_SECRET_KEY: KEYS.deployment.secretKey,
      TEAM_A2_ACCESS_KEY: KEYS.teamA2.accessKey,
      TEAM_A2_SECRET_KEY: KEYS.teamA2.secretKey,
      TEAM_B_ACCESS_KEY: KEYS.teamBNoAuditTrail.accessKey,
      TEAM_B_SECRET_KEY: KEYS.teamBNoAuditTrail.secretKey,
    },
    onDelivery: (d) => deliveries.push(d),
  });
});

afterAll(async () => {
  await stack?.stop();
});

describe('a fleet across two organizations and three projects (local stack)', () => {
  it('a sweep reconciles every target through the real handler, each with its own key; a target whose key is unset fails alone', async () => {
    expect((await stack.sweep({})).body).toMatchObject({ selected: 5, enqueued: 5 });
    await idle();

    for (const c of FLEET) expect(poolOf(c.lbId), c.cluster).toEqual([...c.controlPlanes].sort());
    // Each pool was written with its target's key and no other.
    const writers = writersByLb();
    for (const c of FLEET) expect(writers.get(c.lbId), c.cluster).toEqual(new Set([principalIdOf(KEY_OF[c.cluster]?.secretKey ?? '')]));

    const answers = deliveries.map((d) => JSON.parse(d.answer ?? '{}') as { target: string; outcome: string });
    expect(
      answers
        .filter((a) => a.outcome === 'applied')
        .map((a) => a.target)
        .sort(),
    ).toEqual(FLEET.map((c) => c.cluster).sort());
    const [record, ...more] = await stack.drainDeadLetters();
    expect(more).toEqual([]);
    expect(record).toMatchObject({ reason: 'permanent_error', target: 'epsilon.k8s.local', error: { code: 'invalid_config' } });
    expect(record?.error.message).toContain('the key of target "epsilon.k8s.local"');
    expect(record?.error.message).toContain('TEAM_E_ACCESS_KEY: is not set');

    const told = JSON.stringify({ answers: deliveries.map((d) => d.answer), record });
    for (const key of Object.values(KEYS)) for (const value of [key.accessKey, key.secretKey]) expect(told).not.toContain(value);
  });

  it("watch, organization B's key lacking AuditTrailReadOnly: a warning for B's targets, A's change enqueued and reconciled; the sweep still covers B", async () => {
    deliveries.length = 0;
    const replace = (c: FleetCluster, address: string) => {
      const old = [...stack.emulator.state.servers.values()].find((s) => s.publicIps.some((ip) => ip.address === c.controlPlanes[0]));
      if (!old) throw new Error(`no server at ${c.controlPlanes[0]}`);
      stack.emulator.replaceServer(old.id, {
        name: `${old.name}-r1`,
        zone: c.zone,
        tags: [`noprefix=kops.k8s.io/cluster=${c.cluster}`, CONTROL_PLANE_ROLE_TAG],
        publicIps: [address],
      });
      return [address, ...c.controlPlanes.slice(1)].sort();
    };
    const alphaPool = replace(alpha, '51.15.11.9');
    const gammaPool = replace(gamma, '51.15.21.9');

    const run = await stack.watch({});
    expect(run.status).toBe(200);
    const report = run.body as WatchReport;
    expect(report.unread).toEqual([
      expect.objectContaining({ organizationId: ORG_B, region: 'fr-par', targets: ['gamma.k8s.local'], code: 'permissions_denied' }),
      expect.objectContaining({ organizationId: ORG_B, region: 'nl-ams', targets: ['delta.k8s.local'], code: 'permissions_denied' }),
    ]);
    expect(report.targets).toContain('alpha.k8s.local');
    expect(report.targets).not.toContain('gamma.k8s.local');
    await idle();
    expect(poolOf(alpha.lbId)).toEqual(alphaPool);
    // Gamma's replacement was not seen (its trail unread): the sweep is its net.
    expect(poolOf(gamma.lbId)).not.toEqual(gammaPool);
    await stack.sweep({ targets: ['gamma.k8s.local'] });
    await idle();
    expect(poolOf(gamma.lbId)).toEqual(gammaPool);
  });
});
