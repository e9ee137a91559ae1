// The demo `npm start -- --once` tells, step by step, on the embedded stack:
// sweep creates the backend; a control-plane server is replaced and an instance-replacement event injected
// while the LB is busy, so the event is retried with backoff; the pool ends on the new control plane;
// another is replaced with no event at all (boot hook off, no sweep) and the watcher finds it in Audit Trail;
// a third is replaced while its old member still passes, and held until its successor passes (make-before-break);
// kOps' rolling update replaces all three control planes, as kOps does it, and none it deregistered is put back;
// an invalid event lands in the dead-letter queue.
import { kopsRollingUpdateStep } from './demo-kops-rolling-update';
import type { LocalStack } from './stack';

export const DEMO_CLUSTER = 'demo.k8s.local';
export { DEMO_HEALTH_TIMING } from '../emulator';

/** The control plane the printed hint replaces, by name: its successor takes the name, so the hint works every time. */
export const DEMO_REPLACED_NAME = 'control-plane-fr-par-1-2';
export const DEMO_LB_ID = 'bd9c66b3-ad3c-4d6d-9a3d-1fa7bc8960a9';
const REPLACED_SERVER_ID = '972a8469-1641-4f82-8b9d-2434e465e150';
const WATCHED_SERVER_ID = '9a1de644-815e-46d1-bb8f-aa1837f8a88b';
const WATCHED_NEW_SERVER = {
  id: '5e0b7a2c-8d41-4f6a-b3c9-1e2d3f4a5b62',
  name: 'control-plane-fr-par-1-1-r1',
  zone: 'fr-par-1',
  state: 'running',
  tags: [
    'noprefix=kops.k8s.io/cluster=demo.k8s.local',
    'noprefix=kops.k8s.io/role=ControlPlane',
    'noprefix=kops.k8s.io/instance-group=control-plane-fr-par-1',
  ],
  publicIps: ['51.15.100.15'],
};
const NEW_SERVER = {
  id: '3f1c1d7e-5b6a-4c2e-9a51-7d0c2b9e4a11',
  name: 'control-plane-fr-par-1-0-r1',
  zone: 'fr-par-1',
  state: 'starting',
  tags: [
    'noprefix=kops.k8s.io/cluster=demo.k8s.local',
    'noprefix=kops.k8s.io/role=ControlPlane',
    'noprefix=kops.k8s.io/instance-group=control-plane-fr-par-1',
  ],
  publicIps: ['51.15.100.14'],
  privateNics: [{ ipamAddresses: ['10.0.0.14/22'] }],
};

export interface StoryStep {
  name: string;
  ok: boolean;
  detail: string;
}

type Say = (line: string) => void;

function backendPool(stack: LocalStack): string[] | undefined {
  const state = stack.emulator.dumpState() as { lbs: { id: string; backends: { name: string; pool: string[] }[] }[] };
  return state.lbs.find((lb) => lb.id === DEMO_LB_ID)?.backends.find((b) => b.name === 'lb-backend-https')?.pool;
}

function controlPlaneIps(stack: LocalStack): string[] {
  const state = stack.emulator.dumpState() as { servers: { tags: string[]; public_ips: { address: string }[] }[] };
  return state.servers
    .filter((s) => s.tags.includes('noprefix=kops.k8s.io/role=ControlPlane'))
    .flatMap((s) => s.public_ips.map((ip) => ip.address))
    .sort();
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

const samePool = (a: string[] | undefined, b: string[]) => !!a && a.length === b.length && [...a].sort().every((ip, i) => ip === b[i]);

/** Runs the watcher every `everyMs` (its cron, sped up) until check() holds; returns the runs' answers. */
async function watchUntil(
  stack: LocalStack,
  check: () => boolean,
  everyMs: number,
  timeoutMs: number,
): Promise<{ ms: number; runs: { enqueued: number; targets: string[] }[] }> {
  const started = Date.now();
  const runs: { enqueued: number; targets: string[] }[] = [];
  while (Date.now() - started < timeoutMs) {
    const answer = await stack.watch({});
    if (answer.status !== 200) throw new Error(`watch answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    runs.push(answer.body as { enqueued: number; targets: string[] });
    const until = Date.now() + everyMs;
    while (Date.now() < until) {
      if (check()) return { ms: Date.now() - started, runs };
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`timed out after ${timeoutMs} ms: the watcher did not bring the pool to the new control plane`);
}

export async function runDemoStory(
  stack: LocalStack,
  say: Say,
  options: { lbBusyMs?: number; stepTimeoutMs?: number; watchEveryMs?: number } = {},
): Promise<StoryStep[]> {
  const stepTimeoutMs = options.stepTimeoutMs ?? 45_000;
  const lbBusyMs = options.lbBusyMs ?? 4_000;
  const steps: StoryStep[] = [];
  const step = async (name: string, run: () => Promise<string>) => {
    say(`\n== ${name}`);
    try {
      const detail = await run();
      steps.push({ name, ok: true, detail });
      say(`   ok: ${detail}`);
    } catch (error) {
      steps.push({ name, ok: false, detail: (error as Error).message });
      say(`   FAILED: ${(error as Error).message}`);
    }
  };

  await step('1. sweep: the missing backend is created with the control-plane IPs', async () => {
    const answer = await stack.sweep({});
    if (answer.status !== 200) throw new Error(`sweep answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const wanted = controlPlaneIps(stack);
    const ms = await waitFor('the backend pool', () => samePool(backendPool(stack), wanted), stepTimeoutMs);
    await stack.bridge.waitIdle({ quietMs: 200, timeoutMs: stepTimeoutMs });
    return `pool = [${backendPool(stack)?.join(', ')}] after ${ms} ms`;
  });

  await step('2. a control-plane server is replaced while the LB is busy; the injected event is retried with backoff', async () => {
    stack.emulator.replaceServer(REPLACED_SERVER_ID, NEW_SERVER);
    stack.emulator.setLbStatus(DEMO_LB_ID, 'migrating', lbBusyMs);
    say(`   replaced ${REPLACED_SERVER_ID.slice(0, 8)} by ${NEW_SERVER.name} (51.15.100.14); LB held in "migrating" for ${lbBusyMs} ms`);
    const answer = await stack.inject({ source: 'instance-replacement', target: DEMO_CLUSTER });
    if (answer.status !== 202) throw new Error(`inject answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    say(`   inject answered 202 ${JSON.stringify(answer.body)}`);
    const wanted = controlPlaneIps(stack);
    const ms = await waitFor('the pool to follow the new control plane', () => samePool(backendPool(stack), wanted), stepTimeoutMs);
    const retries = stack.emulator.calls().filter((c) => c.operation === 'ListLbs').length;
    return `pool = [${backendPool(stack)?.join(', ')}] after ${ms} ms (${retries} LB look-ups in all)`;
  });

  await step(
    '3. another control-plane server is replaced with no event at all (boot hook off, no sweep); the watcher finds it in Audit Trail',
    async () => {
      await stack.bridge.waitIdle({ quietMs: 200, timeoutMs: stepTimeoutMs });
      // Step 2's changes are still in the watcher's window (the last 3 minutes); as if they were older, so
      // that what the watcher finds now is this replacement alone.
      stack.emulator.auditTrail.clear();
      const replacedAt = Date.now();
      stack.emulator.replaceServer(WATCHED_SERVER_ID, WATCHED_NEW_SERVER);
      const delayMs = stack.emulator.auditTrail.delayMs();
      say(
        `   replaced ${WATCHED_SERVER_ID.slice(0, 8)} by ${WATCHED_NEW_SERVER.name} (51.15.100.15); nothing injected. Audit Trail lists it after ${delayMs} ms (assumed delay)`,
      );
      const wanted = controlPlaneIps(stack);
      const everyMs = options.watchEveryMs ?? 1_000;
      const { ms, runs } = await watchUntil(stack, () => samePool(backendPool(stack), wanted), everyMs, stepTimeoutMs);
      const noticed = runs.findIndex((r) => r.enqueued > 0);
      say(
        `   watcher runs (every ${everyMs} ms here, every minute when deployed): ${runs.map((r) => (r.enqueued > 0 ? `enqueued ${r.targets.join(', ')}` : 'nothing yet')).join('; ')}`,
      );
      if (noticed === -1) throw new Error('the pool changed but no watcher run enqueued anything');
      const write = stack.emulator.history().find((w) => w.at >= replacedAt && w.operation === 'SetBackendServers');
      if (!write?.pool.includes('51.15.100.15')) throw new Error("no SetBackendServers with the new server in the emulator's pool history");
      return `pool = [${backendPool(stack)?.join(', ')}] after ${ms} ms, noticed on watcher run ${noticed + 1}`;
    },
  );

  await step(
    '4. a control plane replaced while its old member still passes: the old one is held until its successor passes (make-before-break)',
    async () => {
      await stack.bridge.waitIdle({ quietMs: 200, timeoutMs: stepTimeoutMs });
      // Step 2's server has booted by now (a state change on the platform's side: nothing in Audit Trail).
      stack.emulator.upsertServer({ ...NEW_SERVER, state: 'running' });
      const timing = { healthPassAfterMs: 3_000, healthFailAfterMs: 60_000 };
      stack.emulator.setBehaviours(timing);
      try {
        const started = Date.now();
        const at = () => `+${((Date.now() - started) / 1000).toFixed(1)} s`;
        // As the hint `npm start` prints: the control API, by the server's name.
        const answer = await fetch(`${stack.emulator.url}/_emulator/servers/${DEMO_REPLACED_NAME}/replace`, { method: 'POST' });
        const replaced = (await answer.json()) as { publicIps: string[] };
        const newIp = replaced.publicIps[0] as string;
        const oldIp = (backendPool(stack) ?? []).find((ip) => !controlPlaneIps(stack).includes(ip)) as string;
        say(
          `   ${at()} replaced ${DEMO_REPLACED_NAME} (${oldIp}) by its successor (${newIp}); new members pass after ${timing.healthPassAfterMs / 1000} s here`,
        );
        await stack.inject({ source: 'instance-replacement', target: DEMO_CLUSTER });
        await waitFor('the successor added', () => (backendPool(stack) ?? []).includes(newIp), stepTimeoutMs);
        const added = stack.emulator.history().find((w) => w.pool.includes(newIp));
        const oldThen = added?.health[oldIp];
        say(`   ${at()} ${newIp} added, ${oldIp} kept: it still passes (${oldThen ?? 'no report'}) and ${newIp} does not yet`);
        if (!added?.pool.includes(oldIp)) throw new Error(`the write that added ${newIp} removed ${oldIp} at once`);
        await waitFor('the old member removed', () => !(backendPool(stack) ?? []).includes(oldIp), stepTimeoutMs);
        const removal = stack.emulator.history().find((w) => w.poolBefore.includes(oldIp) && !w.pool.includes(oldIp));
        const newAtRemoval = removal?.health[newIp];
        say(`   ${at()} ${oldIp} removed, once ${newIp} passed (${newAtRemoval ?? 'no report'})`);
        if (newAtRemoval !== 'passed') throw new Error(`${oldIp} left before ${newIp} passed (${newAtRemoval})`);
        return `pool = [${backendPool(stack)?.join(', ')}]: the old member served until its successor passed`;
      } finally {
        stack.emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0 });
      }
    },
  );

  await step(
    "5. kOps' rolling update replaces the three control planes (kops update cluster, kops rolling-update); none it deregistered is put back",
    async () => {
      await stack.bridge.waitIdle({ quietMs: 200, timeoutMs: stepTimeoutMs });
      stack.emulator.auditTrail.clear();
      return kopsRollingUpdateStep(stack, say, {
        cluster: DEMO_CLUSTER,
        lbId: DEMO_LB_ID,
        watchEveryMs: options.watchEveryMs ?? 1_000,
        timeoutMs: stepTimeoutMs,
      });
    },
  );

  await step('6. an invalid event goes to the dead-letter queue with its reason', async () => {
    const refused = await stack.inject({ source: 'manual', target: DEMO_CLUSTER, serverIps: ['not-an-ip'] });
    say(`   inject refuses it at the edge: ${refused.status} ${JSON.stringify((refused.body as { errors?: unknown }).errors)}`);
    await stack.events.send(stack.reconcileQueueUrl, '{"version":1,"target":"demo.k8s.local","source":"manual","serverIps":["not-an-ip"]}');
    say('   sent the same event straight onto the queue');
    let records: Awaited<ReturnType<LocalStack['drainDeadLetters']>> = [];
    await waitFor(
      'a dead-letter record',
      async () => {
        records = [...records, ...(await stack.drainDeadLetters())];
        return records.length > 0;
      },
      stepTimeoutMs,
    );
    const [record] = records;
    if (record?.reason !== 'invalid_event') throw new Error(`unexpected dead letter: ${JSON.stringify(record)}`);
    return `dead-lettered: reason=${record.reason}, ${record.error.fieldErrors?.map((e) => e.path).join(', ')}`;
  });

  await step('7. nothing lost, nothing left: the queue drains and the pool holds', async () => {
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: stepTimeoutMs });
    const pool = backendPool(stack);
    const wanted = controlPlaneIps(stack);
    if (!samePool(pool, wanted)) throw new Error(`pool drifted: [${pool?.join(', ')}] vs [${wanted.join(', ')}]`);
    const stats = stack.bridge.stats();
    return `${stats.delivered} deliveries, ${stats.deleted} deleted, ${stats.failed} failed; pool = control plane`;
  });
  return steps;
}
