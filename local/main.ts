// npm start: the embedded local stack with the demo kOps cluster. `npm start -- --once` runs the
// demo story to the end and exits 0 only if everything converged. SIGINT/SIGTERM stop it cleanly
// ("stopped", exit 0); the npm script execs this process, so a signal sent to npm reaches it.
import { DEMO_CLUSTER, DEMO_HEALTH_TIMING, DEMO_REPLACED_NAME, runDemoStory } from './demo-story';
import type { LocalStack } from './stack';
import { startLocalStack } from './stack';
import type { StartOptions } from './start-options';
import { checkPortsFree, readStartOptions, StartRefused, USAGE } from './start-options';

const say = (line: string) => process.stdout.write(`${line}\n`);

function refuse(error: unknown): never {
  if (!(error instanceof StartRefused)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(error.exitCode);
}

let args: StartOptions;
try {
  args = readStartOptions(process.argv.slice(2));
  if (args.ports) await checkPortsFree(args.ports);
} catch (error) {
  refuse(error);
}
if (args.help) {
  say(USAGE);
  process.exit(0);
}

const starting = startLocalStack({
  seed: args.seed,
  targets: args.targets,
  functionsFrom: 'dist',
  sweepCron: args.once ? false : args.sweepCron,
  watchCron: args.once ? false : args.watchCron,
  auditTrailDelayMs: args.auditTrailDelayMs,
  // Interactive, the LB's checks take their time, so a replacement shows make-before-break in `lbsync status --watch`.
  ...(!args.once && { behaviours: DEMO_HEALTH_TIMING }),
  ...(args.ports && { ports: args.ports }),
  env: {
    LOG_FORMAT: args.logFormat,
    LOG_LEVEL: args.logLevel,
    LBSYNC_RETRY_BASE_MS: '500',
    LBSYNC_RETRY_CAP_MS: '8000',
    LBSYNC_MAX_HOLD_MS: '8000',
    LBSYNC_WAIT_BUDGET_MS: '6000',
    // Shorter than the demo's 4 s of "migrating", so the story shows the retries with backoff.
    LBSYNC_TRANSIENT_WAIT_MS: '1000',
  },
  onDelivery: (d) =>
    say(
      `${new Date().toISOString().slice(11, 23)} ${d.status === 200 ? 'TRIG ' : 'TRIG!'} bridge   delivery ${d.messageId.slice(0, 8)} (receive #${d.attempt}) -> ${d.status} in ${d.durationMs} ms`,
    ),
});

let stopping = false;
/** Stops everything once (a signal during start-up waits for the start to finish, then stops it). */
async function shutdown(code: number, signal?: NodeJS.Signals) {
  if (stopping) return;
  stopping = true;
  const stack = await starting.catch(() => undefined);
  await stack?.stop();
  say(`stopped${signal ? ` (${signal})` : ''}`);
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0, 'SIGINT'));
process.on('SIGTERM', () => void shutdown(0, 'SIGTERM'));

let stack: LocalStack;
try {
  stack = await starting;
} catch (error) {
  process.stderr.write(`error: the local stack could not start: ${(error as Error).message}\n`);
  process.exit(1);
}

say(`scw-lb-sync local stack
  Scaleway API emulator  ${stack.emulator.url}   (control: ${stack.emulator.url}/_emulator/state)
  SQS-compatible queue   ${stack.queue.endpoint}
    reconcile queue      ${stack.reconcileQueueUrl}
    dead-letter queue    ${stack.deadLetterQueueUrl}
  functions              reconcile ${stack.functions.reconcile.url}
                         inject    ${stack.functions.inject.url}
                         sweep     ${stack.functions.sweep.url}
                         watch     ${stack.functions.watch.url}   (Audit Trail delay ${args.auditTrailDelayMs} ms, assumed)
  targets                ${args.targets.length} (${JSON.stringify(args.targets)})`);

/** The stack's environment as one shell line, for running the CLI against it from another terminal. */
function localEnvLine(env: Record<string, string>): string {
  const names = [
    'SCW_API_URL',
    'SCW_ACCESS_KEY',
    'SCW_SECRET_KEY',
    'SCW_DEFAULT_ORGANIZATION_ID',
    'SQS_ENDPOINT',
    'SQS_REGION',
    'SQS_ACCESS_KEY_ID',
    'SQS_SECRET_ACCESS_KEY',
    'RECONCILE_QUEUE_URL',
    'DEAD_LETTER_QUEUE_URL',
    'INJECT_TOKEN',
    'LBSYNC_TARGETS',
    'LBSYNC_FUNCTION_TIMEOUT_MS',
  ];
  return names.map((name) => `${name}='${env[name] ?? ''}'`).join(' ');
}

if (args.once) {
  const steps = await runDemoStory(stack, say);
  const failed = steps.filter((s) => !s.ok);
  say(`\n${failed.length === 0 ? 'converged' : 'NOT converged'}: ${steps.length - failed.length}/${steps.length} steps passed`);
  await shutdown(failed.length === 0 ? 0 : 1);
} else {
  say(`
Try it (in another terminal):
  curl -s -X POST ${stack.functions.inject.url} -H 'Authorization: Bearer ${stack.injectToken}' \\
       -H 'Content-Type: application/json' -d '{"target":"${DEMO_CLUSTER}","source":"manual"}'
  # replace a control plane (as often as you like: its successor takes its name and a free address); the old
  # member keeps passing ${DEMO_HEALTH_TIMING.healthFailAfterMs / 1000} s and is held until the new one passes (${DEMO_HEALTH_TIMING.healthPassAfterMs / 1000} s): lbsync status --watch 2
  curl -s -X POST ${stack.emulator.url}/_emulator/servers/${DEMO_REPLACED_NAME}/replace
  # add a server, and remove one (by name or id)
  curl -s -X POST ${stack.emulator.url}/_emulator/servers -H 'Content-Type: application/json' \\
       -d '{"name":"control-plane-fr-par-1-3","tags":["noprefix=kops.k8s.io/cluster=${DEMO_CLUSTER}","noprefix=kops.k8s.io/role=ControlPlane"]}'
  curl -s -X DELETE ${stack.emulator.url}/_emulator/servers/control-plane-fr-par-1-3

kOps' rolling update of the three control planes, call by call as kOps makes them (lbsync status --watch shows each
one leaving, the new one joining, the workers kOps' apply writes in going again):
  curl -s -X POST ${stack.emulator.url}/_emulator/kops/rolling-update -H 'Content-Type: application/json' \\
       -d '{"cluster":"${DEMO_CLUSTER}","timings":{"drainMs":20000,"validateMs":10000}}'
  curl -s ${stack.emulator.url}/_emulator/kops/rolling-update      # its steps so far

The lbsync CLI against this stack (local, fake credentials), from this folder:
  export ${localEnvLine(stack.env)}
  alias lbsync="node $PWD/bin/lbsync.mjs"
  lbsync status --watch      # each target live: the LB, its members and their health, what is pending (Ctrl-C stops)
  lbsync plan; lbsync dlq list; lbsync watch --once
  lbsync inject --target ${DEMO_CLUSTER} --url ${stack.functions.inject.url}
The sweep runs on "${args.sweepCron}" and the watcher on "${args.watchCron}" (UTC): after a replacement like the
one above, with no inject, the watcher finds it in Audit Trail within about ${Math.round(args.auditTrailDelayMs / 1000) + 60} s. One sweep runs now.${args.ports ? '' : '\nFixed ports instead of free ones: npm start -- --port-base 8090.'}`);
  // A signal may stop the stack while this first sweep is on its way: its failure is then expected.
  await stack.sweep({}).catch((error: unknown) => {
    if (!stopping) throw error;
  });
  if (!stopping) say('ready: Ctrl-C (or SIGTERM) stops everything');
}
