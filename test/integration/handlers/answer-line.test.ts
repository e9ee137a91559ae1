// The reconcile function's final line (shared/platform/log-schema.ts' reconcile_answer), one per delivery, on the
// real path (local queue, reconcile handler, real SDK -> emulator), judged against the emulator's pool history:
// outcome and code, the pool after the answer and its passing members, members added / removed / deferred, the
// writes, and convergence_ms from the originating event's occurredAt through the retries. Dry runs say dry_run.
import { beforeEach, describe, expect, it } from 'vitest';
import { lineProblems } from '../../../shared/platform/log-schema';
import { sendEvent } from '../../support/deliveries';
import {
  CONTROL_PLANE_ROLE_TAG,
  DEMO_CLUSTER_TAG,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  demoBackend,
  demoSeedWith,
  demoTarget,
} from '../../support/world';
import { useScenarioStack } from '../../support/scenario-stack';

const HOUR = 3_600_000;
const NEW_0 = '51.15.100.31';
const [CP0_IP] = DEMO_CONTROL_PLANE_IPS as [string];
const TAGS = [DEMO_CLUSTER_TAG, CONTROL_PLANE_ROLE_TAG];

const stack = useScenarioStack({ instancePendingMs: 20 });
let lines: Record<string, unknown>[];
let problems: string[];
beforeEach(() => {
  stack.emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0 });
  stack.emulator.loadSeed(demoSeedWith({ backends: [demoBackend()] })); // in sync, three control planes passing
  stack.emulator.clearForcedHealth();
  stack.emulator.resetHistory();
  lines = [];
  problems = [];
});

const capture = (line: string) => {
  problems.push(...lineProblems(line));
  lines.push(JSON.parse(line) as Record<string, unknown>);
};
const answerLines = () => lines.filter((l) => l.log_type === 'reconcile_answer');
const send = (event: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
  sendEvent(stack.events, stack.emulator, demoTarget(), env, { event, onLogLine: capture });
const replaceCp0 = () => stack.emulator.replaceServer(DEMO_CP0_ID, { name: 'cp-0b', zone: 'fr-par-1', publicIps: [NEW_0], tags: TAGS });

describe('the final line of each delivery', () => {
  it('a make-before-break rollout: the hold with its deferred member, then the removal; convergence from the first occurredAt', async () => {
    stack.emulator.setBehaviours({ healthPassAfterMs: HOUR, healthFailAfterMs: HOUR }); // the new member does not pass yet
    replaceCp0();
    const tenMinutesAgo = Date.now() - 600_000;
    const run = await send({ occurredAt: new Date(tenMinutesAgo).toISOString() });

    expect(await run.next()).toMatchObject({ outcome: 'retry_scheduled', error: { code: 'removal_deferred' } });
    expect(answerLines()).toHaveLength(1);
    expect(answerLines()[0]).toMatchObject({
      level: 'INFO',
      outcome: 'retry_scheduled',
      code: 'removal_deferred',
      source: 'manual',
      attempt: 0,
      next_attempt: 1,
      members_added: 1,
      members_removed: 0,
      members_deferred: 1,
      pool_size: 4, // the new member is in, the old one stays
      pool_passing: 3, // the LB's checks as read before the write: the new member not yet
      writes: [`SetBackendServers lb-backend-https +[${NEW_0}] -[]`],
    });
    expect(answerLines()[0]).not.toHaveProperty('convergence_ms');
    expect(stack.emulator.history().map((w) => w.pool.length)).toEqual([4]);

    stack.emulator.setBehaviours({ healthPassAfterMs: 0 });
    expect(await run.untilFinal()).toMatchObject({ outcome: 'applied' });
    const final = answerLines().at(-1);
    expect(final).toMatchObject({
      outcome: 'applied',
      members_added: 0,
      members_removed: 1,
      members_deferred: 0,
      pool_size: 3,
      pool_passing: 3,
      writes: [`SetBackendServers lb-backend-https +[] -[${CP0_IP}]`],
    });
    expect(final?.attempt).toBeGreaterThan(0);
    // From the first event's occurredAt, carried through every retry: not from the retry's own time.
    expect(final?.convergence_ms).toBeGreaterThanOrEqual(600_000);
    expect(final?.convergence_ms).toBeLessThan(Date.now() - tenMinutesAgo + 1_000);
    expect(stack.emulator.history().at(-1)?.pool.sort()).toEqual([...DEMO_CONTROL_PLANE_IPS.slice(1), NEW_0].sort());
    expect(answerLines()).toHaveLength(run.answers.length); // one final line per delivery
    expect(problems).toEqual([]);
  });

  it('a no-op: convergence_ms, the pool as read, no passing count (no health read), no write', async () => {
    const run = await send();
    expect(await run.untilFinal()).toMatchObject({ outcome: 'noop' });
    const [line] = answerLines();
    expect(line).toMatchObject({ outcome: 'noop', pool_size: 3, members_added: 0, members_removed: 0, writes: [], api_writes: 0 });
    expect(line).not.toHaveProperty('pool_passing');
    expect(line?.convergence_ms).toEqual(expect.any(Number));
    expect(problems).toEqual([]);
  });

  it("the reconcile's duration: on the line of a delivery that reconciled, absent from one refused before any reconcile", async () => {
    const reconciled = await send();
    expect(await reconciled.untilFinal()).toMatchObject({ outcome: 'noop' });
    expect(answerLines()[0]?.duration_ms).toEqual(expect.any(Number));

    lines = [];
    const refused = await send({ target: 'nowhere.k8s.local' });
    expect(await refused.untilFinal()).toMatchObject({ outcome: 'dead_lettered' });
    expect(answerLines()).toHaveLength(1);
    expect(answerLines()[0]).not.toHaveProperty('duration_ms');
    expect(problems).toEqual([]);
  });

  it.each([
    ['with a write planned', true],
    ['in sync', false],
  ])('a dry run %s: answer and line say dry_run (never noop), with the writes it would make; nothing written', async (_name, replaced) => {
    if (replaced) replaceCp0();
    const run = await send({ dryRun: true });
    const answer = await run.untilFinal();
    const wouldWrite = replaced ? [`SetBackendServers lb-backend-https +[${NEW_0}] -[${CP0_IP}]`] : [];
    expect(answer).toMatchObject({ outcome: 'dry_run', planned: wouldWrite, actions: [] });
    expect(answerLines()).toEqual([
      expect.objectContaining({ outcome: 'dry_run', writes: wouldWrite, pool_size: 3, members_added: replaced ? 1 : 0 }),
    ]);
    expect(answerLines()[0]).not.toHaveProperty('convergence_ms');
    expect(stack.emulator.history()).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('a dead letter: its reason and code, no pool figures (nothing was reconciled)', async () => {
    const run = await sendEvent(
      stack.events,
      stack.emulator,
      demoTarget(),
      {},
      { event: { target: 'nowhere.k8s.local' }, onLogLine: capture },
    );
    expect(await run.untilFinal()).toMatchObject({ outcome: 'dead_lettered', reason: 'unknown_target' });
    expect(answerLines()).toEqual([
      expect.objectContaining({
        level: 'WARN',
        outcome: 'dead_lettered',
        reason: 'unknown_target',
        code: 'unknown_target',
        record_id: expect.stringMatching(/^dl-/),
        members_added: 0,
        writes: [],
      }),
    ]);
    expect(answerLines()[0]).not.toHaveProperty('pool_size');
    expect(problems).toEqual([]);
  });

  it("a sweep event reads every backend's health even in sync: passing members, the majority needed, and how many lack", async () => {
    stack.emulator.resetCalls();
    const inSync = await send({ source: 'sweep' });
    expect(await inSync.untilFinal()).toMatchObject({ outcome: 'noop', apiCalls: { reads: 4, writes: 0 } });
    expect(stack.emulator.calls().filter((c) => c.operation === 'ListBackendStats')).toHaveLength(1);
    expect(answerLines().at(-1)).toMatchObject({ outcome: 'noop', pool_size: 3, pool_passing: 3, pool_needed: 2, pool_short: 0 });

    // Two of three control planes fail their check (their servers still run: nothing to remove): one short of 2.
    stack.emulator.forceHealth('51.15.100.12', 'failed');
    stack.emulator.forceHealth('51.15.100.13', 'failed');
    await (await send({ source: 'sweep' })).untilFinal();
    expect(answerLines().at(-1)).toMatchObject({ pool_passing: 1, pool_needed: 2, pool_short: 1 });
    stack.emulator.forceHealth(CP0_IP, 'failed');
    await (await send({ source: 'sweep' })).untilFinal();
    expect(answerLines().at(-1)).toMatchObject({ pool_passing: 0, pool_short: 2 });

    // Another source's no-op still costs its 3 reads, no health read (the no-op contract).
    stack.emulator.resetCalls();
    expect(await (await send()).untilFinal()).toMatchObject({ outcome: 'noop', apiCalls: { reads: 3, writes: 0 } });
    expect(answerLines().at(-1)).not.toHaveProperty('pool_passing');
    // Every line carries how late it was received and what the API calls took.
    for (const line of answerLines()) expect(line).toMatchObject({ age_ms: expect.any(Number), api_ms: expect.any(Number) });
    expect(problems).toEqual([]);
  });
});
