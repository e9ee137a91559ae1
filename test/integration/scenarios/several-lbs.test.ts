/**
 * A target with a main LB in fr-par-1 and a fallback in fr-par-2 (Cluster API's extra LBs), one event through the real
 * path (local queue, reconcile handler, real SDK -> emulator): a control plane replaced while the fallback is busy.
 * The main LB is written, the event retried, both converge; make-before-break holds on each LB by its own health
 * checks, so one LB may have removed the old member while the other still keeps it. Judged by the emulator's pool
 * history and call log. Nothing races a clock: the fallback's status and the health timing (an hour: "not yet"; 0:
 * "now") are set between deliveries.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { judgeShrink } from '../../../chaos/invariants';
import type { PoolWrite } from '../../../emulator';
import { lineProblems } from '../../../shared/platform/log-schema';
import { sendEvent } from '../../support/deliveries';
import {
  CONTROL_PLANE_ROLE_TAG,
  convergedTwoLbSeed,
  DEMO_CLUSTER_TAG,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  DEMO_LB_ID,
  demoTarget,
  FALLBACK_LB_ID,
  FALLBACK_LB_NAME,
  poolOf,
  twoLbTarget,
} from '../../support/world';
import { useScenarioStack } from '../../support/scenario-stack';

const HOUR = 3_600_000;
const [CP0_IP, CP1_IP, CP2_IP] = DEMO_CONTROL_PLANE_IPS as [string, string, string];
const NEW_0 = '51.15.100.31';

const stack = useScenarioStack({ instancePendingMs: 20 });

beforeEach(() => {
  stack.emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0 });
  stack.emulator.loadSeed(convergedTwoLbSeed());
  stack.emulator.clearForcedHealth();
  stack.emulator.resetHistory();
  stack.emulator.resetCalls();
});
afterEach(() => stack.emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0 }));

const writesOf = (lbId: string): PoolWrite[] =>
  stack.emulator.history().filter((w) => w.lbId === lbId && w.backendName === 'lb-backend-https');
/** kOps' replacement of the first control plane: a new server, a new address. */
function replaceFirstControlPlane(): void {
  stack.emulator.replaceServer(DEMO_CP0_ID, {
    name: 'control-plane-fr-par-1-0b',
    zone: 'fr-par-1',
    publicIps: [NEW_0],
    tags: [DEMO_CLUSTER_TAG, CONTROL_PLANE_ROLE_TAG],
  });
}

const sorted = (ips: readonly string[] | undefined) => [...(ips ?? [])].sort();

/** Every write on each LB: no unsafe shrink, never a pool without a passing member, judged by that LB's own checks. */
function expectSafeOnEach(): void {
  for (const lbId of [DEMO_LB_ID, FALLBACK_LB_ID]) {
    for (const w of writesOf(lbId)) {
      expect(judgeShrink(w, 1), `${lbId} #${w.seq}`).toBeUndefined();
      expect(
        w.pool.filter((ip) => w.health[ip] === 'passed').length,
        `${lbId} #${w.seq} [${w.pool.join(', ')}] ${JSON.stringify(w.health)}`,
      ).toBeGreaterThan(0);
    }
  }
}

describe('a replacement while the fallback LB is busy', () => {
  it('the main LB is written, the event retried; each LB keeps the old member until the new one passes its own check; both converge', async () => {
    // The replaced server's check has not failed yet, the new one's has not passed yet: make-before-break.
    stack.emulator.setBehaviours({ healthPassAfterMs: HOUR, healthFailAfterMs: HOUR });
    replaceFirstControlPlane();
    stack.emulator.setLbStatus(FALLBACK_LB_ID, 'pending');
    const lines: string[] = [];
    const run = await sendEvent(stack.events, stack.emulator, twoLbTarget(), {}, { onLogLine: (line) => lines.push(line) });

    // 1. The main LB gets the new member beside the old one; the fallback is busy: nothing is sent to it.
    const first = await run.next();
    expect(first).toMatchObject({ outcome: 'retry_scheduled', actions: ['SetBackendServers'], error: { code: 'lb_transient_state' } });
    expect(first?.lbs).toMatchObject([
      { loadBalancer: { zone: 'fr-par-1' }, lb: { id: DEMO_LB_ID }, status: 'applied', error: { code: 'removal_deferred' } },
      { loadBalancer: { name: FALLBACK_LB_NAME, zone: 'fr-par-2' }, status: 'failed', actions: [], error: { code: 'lb_transient_state' } },
    ]);
    expect(sorted(poolOf(stack.emulator, DEMO_LB_ID))).toEqual([CP0_IP, CP1_IP, CP2_IP, NEW_0]);
    expect(sorted(poolOf(stack.emulator, FALLBACK_LB_ID))).toEqual([CP0_IP, CP1_IP, CP2_IP]);
    expect(stack.emulator.calls().filter((c) => c.write && c.path.includes('/zones/fr-par-2/'))).toEqual([]);

    // 2. The fallback is ready again; the new member now passes the main LB's check. The main LB lets the old one go;
    //    the fallback adds the new one and keeps the old one: the new one has not passed the fallback's check yet.
    stack.emulator.setLbStatus(FALLBACK_LB_ID, 'ready');
    stack.emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: HOUR });
    const second = await run.next();
    expect(second).toMatchObject({ outcome: 'retry_scheduled', error: { code: 'removal_deferred' } });
    expect(second?.lbs?.map((lb) => [lb.status, lb.error?.code])).toEqual([
      ['applied', undefined],
      ['applied', 'removal_deferred'],
    ]);
    expect(sorted(poolOf(stack.emulator, DEMO_LB_ID))).toEqual([CP1_IP, CP2_IP, NEW_0]);
    expect(sorted(poolOf(stack.emulator, FALLBACK_LB_ID))).toEqual([CP0_IP, CP1_IP, CP2_IP, NEW_0]);

    // 3. The new member passes the fallback's check too: the fallback lets the old one go; the main LB is in sync.
    const last = await run.untilFinal();
    expect(last).toMatchObject({ outcome: 'applied', actions: ['SetBackendServers'] });
    expect(last?.lbs?.map((lb) => [lb.status, lb.actions])).toEqual([
      ['noop', []],
      ['applied', ['SetBackendServers']],
    ]);
    expect(sorted(poolOf(stack.emulator, DEMO_LB_ID))).toEqual([CP1_IP, CP2_IP, NEW_0]);
    expect(sorted(poolOf(stack.emulator, FALLBACK_LB_ID))).toEqual([CP1_IP, CP2_IP, NEW_0]);
    expect(await run.deadLetters()).toEqual([]);

    // Each LB: the new member in before the old one left, and the old one left while it still passed, once the new
    // one passed that LB's own check.
    const [mainAdd, mainRemove] = writesOf(DEMO_LB_ID);
    const [fallbackAdd, fallbackRemove] = writesOf(FALLBACK_LB_ID);
    expect([mainAdd?.pool, mainRemove?.pool].map(sorted)).toEqual([
      [CP0_IP, CP1_IP, CP2_IP, NEW_0],
      [CP1_IP, CP2_IP, NEW_0],
    ]);
    expect([fallbackAdd?.pool, fallbackRemove?.pool].map(sorted)).toEqual([
      [CP0_IP, CP1_IP, CP2_IP, NEW_0],
      [CP1_IP, CP2_IP, NEW_0],
    ]);
    expect(mainRemove?.health[NEW_0]).toBe('passed');
    expect(fallbackRemove?.health[NEW_0]).toBe('passed');
    expect((fallbackAdd?.seq ?? 0) > (mainRemove?.seq ?? 0)).toBe(true);
    expect(writesOf(DEMO_LB_ID)).toHaveLength(2);
    expect(writesOf(FALLBACK_LB_ID)).toHaveLength(2);
    expectSafeOnEach();

    // The final lines: one per delivery, each LB's own figures beside the target's, every line as the schema says.
    const answers = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.log_type === 'reconcile_answer');
    expect(answers).toHaveLength(3);
    for (const line of lines) expect(lineProblems(line)).toEqual([]);
    expect(answers[0]).toMatchObject({
      outcome: 'retry_scheduled',
      writes: [`api.demo.k8s.local (fr-par-1): SetBackendServers lb-backend-https +[${NEW_0}] -[]`],
      lbs: [
        { zone: 'fr-par-1', lb_id: DEMO_LB_ID, status: 'applied', code: 'removal_deferred', members_deferred: 1 },
        { zone: 'fr-par-2', lb_name: FALLBACK_LB_NAME, status: 'failed', code: 'lb_transient_state', writes: [] },
      ],
    });
    // After the second write the fallback still holds the old member with the new one not passing: it is the worst off.
    expect(answers[1]).toMatchObject({ members_added: 1, members_removed: 1, members_deferred: 1 });
    expect(lines.some((l) => l.includes(`plan on load-balancer ${FALLBACK_LB_NAME} (fr-par-2): SetBackendServers`))).toBe(true);
  });

  it('in sync afterwards: one event costs the servers once and two reads per LB, and is noop', async () => {
    const run = await sendEvent(stack.events, stack.emulator, twoLbTarget());
    expect(await run.untilFinal()).toMatchObject({ outcome: 'noop', actions: [], apiCalls: { reads: 5, writes: 0 } });
    expect(
      stack.emulator
        .calls()
        .map((c) => c.operation)
        .sort(),
    ).toEqual(['ListBackends', 'ListBackends', 'ListLbs', 'ListLbs', 'ListServers']);
  });

  it("a sweep's event reads each LB's health: every LB's passing members on its final line", async () => {
    const lines: string[] = [];
    const run = await sendEvent(
      stack.events,
      stack.emulator,
      twoLbTarget(),
      {},
      { event: { source: 'sweep' }, onLogLine: (l) => lines.push(l) },
    );
    expect(await run.untilFinal()).toMatchObject({ outcome: 'noop', apiCalls: { reads: 7, writes: 0 } });
    const stats = stack.emulator.calls().filter((c) => c.operation === 'ListBackendStats');
    expect(stats.map((c) => c.path.split('/')[4])).toEqual(['fr-par-1', 'fr-par-2']);
    const final = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.log_type === 'reconcile_answer');
    expect(final).toMatchObject({
      pool_size: 3,
      pool_passing: 3,
      pool_short: 0,
      lbs: [
        { zone: 'fr-par-1', pool_size: 3, pool_passing: 3, pool_short: 0 },
        { zone: 'fr-par-2', pool_size: 3, pool_passing: 3, pool_short: 0 },
      ],
    });
  });

  it('a shadow deployment: each LB planned, nothing written; the planned writes name their LB', async () => {
    replaceFirstControlPlane();
    const run = await sendEvent(stack.events, stack.emulator, twoLbTarget(), { LBSYNC_MODE: 'shadow' });
    const answer = await run.untilFinal();
    expect(answer).toMatchObject({ outcome: 'dry_run', mode: 'shadow', actions: [] });
    expect(answer?.planned).toEqual([
      `api.demo.k8s.local (fr-par-1): SetBackendServers lb-backend-https +[${NEW_0}] -[${CP0_IP}]`,
      `${FALLBACK_LB_NAME} (fr-par-2): SetBackendServers lb-backend-https +[${NEW_0}] -[${CP0_IP}]`,
    ]);
    expect(answer?.lbs?.map((lb) => [lb.status, lb.planned?.length])).toEqual([
      ['planned', 1],
      ['planned', 1],
    ]);
    expect(stack.emulator.calls().filter((c) => c.write)).toEqual([]);
  });

  it('a one-LB target keeps its shape: no lbs in its answer nor in its final line, 3 reads', async () => {
    const lines: string[] = [];
    const run = await sendEvent(stack.events, stack.emulator, demoTarget(), {}, { onLogLine: (line) => lines.push(line) });
    const answer = await run.untilFinal();
    expect(Object.keys(answer ?? {}).sort()).toEqual(['actions', 'apiCalls', 'attempt', 'eventId', 'outcome', 'target']);
    expect(answer).toMatchObject({ outcome: 'noop', apiCalls: { reads: 3, writes: 0 } });
    const final = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.log_type === 'reconcile_answer');
    expect(final).not.toHaveProperty('lbs');
    expect(final).toMatchObject({ writes: [], pool_size: 3 });
  });

  it('a fallback that does not exist: the main LB is kept right, and the event is dead-lettered naming the fallback', async () => {
    replaceFirstControlPlane();
    const target = twoLbTarget({
      loadBalancers: [
        { id: DEMO_LB_ID, zone: 'fr-par-1' },
        { name: 'api-gone.demo.k8s.local', zone: 'fr-par-2' },
      ],
    });
    const run = await sendEvent(stack.events, stack.emulator, target);
    const answer = await run.untilFinal();
    expect(answer).toMatchObject({
      outcome: 'dead_lettered',
      reason: 'permanent_error',
      error: { code: 'lb_not_found', lb: { name: 'api-gone.demo.k8s.local' } },
    });
    expect(sorted(poolOf(stack.emulator, DEMO_LB_ID))).toEqual([CP1_IP, CP2_IP, NEW_0]);
    const [record] = await run.deadLetters();
    expect(record).toMatchObject({ reason: 'permanent_error', target: target.name, error: { code: 'lb_not_found' } });
  });
});
