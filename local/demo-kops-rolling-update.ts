// The demo story's kOps rolling update: `kops update cluster` marks the three control planes needs-update, then
// `kops rolling-update` replaces them one at a time (deregistration, drain, terminate, a new server, kOps' apply
// writing the workers in), played with kOps' own calls (emulator/kops/). Beside it, the boot hook's event on each new
// server and the watcher every second. Judged by the emulator's pool history: scw-lb-sync never writes back an
// address kOps deregistered, and the pool ends on the three new control planes.
import type { KopsStep } from '../emulator';
import { KOPS_USER_AGENT, kopsRollingUpdate, scaledKopsTimings } from '../emulator';
import { LBSYNC_USER_AGENT_MARKER } from '../shared/outbound/user-agent';
import type { LocalStack } from './stack';

const ROLE_TAG = 'noprefix=kops.k8s.io/role=ControlPlane';
const NEEDS_UPDATE = 'noprefix=kops.k8s.io/needs-update';

/** kOps' waits, 100 times shorter for the demo (kOps' own: a drain of minutes, 5 s after it, 15 s between control planes). */
const DEMO_KOPS_TIMINGS = scaledKopsTimings(100);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The running control planes not marked for replacement, and every pool of the demo LB. */
function poolsAndWanted(stack: LocalStack, lbId: string): { pools: string[][]; wanted: string[] } {
  const wanted = [...stack.emulator.state.servers.values()]
    .filter((s) => s.state === 'running' && s.tags.includes(ROLE_TAG) && !s.tags.includes(NEEDS_UPDATE))
    .flatMap((s) => s.publicIps.map((ip) => ip.address))
    .sort();
  const pools = stack.emulator
    .backendHealth()
    .backends.filter((b) => b.lbId === lbId)
    .map((b) => b.members.map((m) => m.ip).sort());
  return { pools, wanted };
}

function stepLine(step: KopsStep): string | undefined {
  switch (step.step) {
    case 'marked':
      return `kOps: ${step.server} marked needs-update (UpdateServer)`;
    case 'deregistered':
      return `kOps: ${step.server} (${step.ip}) deregistered from ${step.backends.join(', ') || 'no backend'} (RemoveBackendServers); draining`;
    case 'terminated':
      return `kOps: ${step.server} terminated (ServerAction terminate)`;
    case 'created':
      return `kOps: ${step.server} created (${step.ip}), powering on`;
    case 'backend_written':
      return `kOps: apply wrote ${step.backend} [${step.pool.join(', ')}] (kOps' rule: workers included)`;
    default:
      return undefined;
  }
}

export async function kopsRollingUpdateStep(
  stack: LocalStack,
  say: (line: string) => void,
  options: { cluster: string; lbId: string; watchEveryMs: number; timeoutMs: number },
): Promise<string> {
  const since = Date.now();
  stack.emulator.setBehaviours({ poweronMs: 300, terminateMs: 600 });
  const boots: Promise<unknown>[] = [];
  let kopsDone = false;
  // The watcher's cron, sped up; a run that fails is told and the next one reads the window again.
  const watching = (async () => {
    while (!kopsDone) {
      const answer = await stack.watch({});
      if (answer.status !== 200) say(`   watch answered ${answer.status}`);
      await sleep(options.watchEveryMs);
    }
  })();
  const run = await kopsRollingUpdate({
    apiUrl: stack.emulator.url,
    secretKey: 'kops-operator-0000-4000-8000-000000000de0',
    cluster: options.cluster,
    zone: 'fr-par-1',
    timings: DEMO_KOPS_TIMINGS,
    onStep: (step) => {
      const line = stepLine(step);
      if (line) say(`   ${line}`);
      // The boot hook on the new server: one instance-replacement event once it runs.
      if (step.step === 'running') boots.push(stack.inject({ source: 'instance-replacement', target: options.cluster }));
    },
  }).finally(() => undefined);
  await Promise.all(boots);
  // kOps' last apply wrote the workers in: the watcher sees it once Audit Trail lists it.
  const deadline = Date.now() + options.timeoutMs;
  let { pools, wanted } = poolsAndWanted(stack, options.lbId);
  while (!pools.every((p) => JSON.stringify(p) === JSON.stringify(wanted)) && Date.now() < deadline) {
    await sleep(100);
    ({ pools, wanted } = poolsAndWanted(stack, options.lbId));
  }
  kopsDone = true;
  await watching;
  await stack.bridge.waitIdle({ quietMs: 200, timeoutMs: options.timeoutMs });

  const history = stack.emulator.history().filter((w) => w.at >= since && w.lbId === options.lbId);
  const deregistered = new Set(run.steps.flatMap((s) => (s.step === 'deregistered' ? [s.ip] : [])));
  const putBack = history
    .filter((w) => (w.userAgent ?? '').includes(LBSYNC_USER_AGENT_MARKER))
    .flatMap((w) => w.pool.filter((ip) => !w.poolBefore.includes(ip) && deregistered.has(ip)));
  if (run.replaced.length !== 3) throw new Error(`kOps replaced ${run.replaced.length} control planes, not 3`);
  if (putBack.length > 0) throw new Error(`scw-lb-sync wrote back ${putBack.join(', ')}, which kOps had deregistered`);
  ({ pools, wanted } = poolsAndWanted(stack, options.lbId));
  if (!pools.every((p) => JSON.stringify(p) === JSON.stringify(wanted)))
    throw new Error(`the pool is [${pools.map((p) => p.join(', ')).join('] [')}], not the new control planes [${wanted.join(', ')}]`);
  const ours = history.filter((w) => (w.userAgent ?? '').includes(LBSYNC_USER_AGENT_MARKER)).length;
  const kops = history.filter((w) => w.userAgent === KOPS_USER_AGENT).length;
  return `pool = [${wanted.join(', ')}] after ${Math.round((Date.now() - since) / 100) / 10} s: ${kops} pool writes by kOps, ${ours} by scw-lb-sync, none putting back any of the ${deregistered.size} deregistered control planes`;
}
