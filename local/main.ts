// npm start: the embedded local stack with the demo kOps cluster. `npm start -- --once` runs the
// demo story to the end and exits 0 only if everything converged.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { EmulatorSeed } from '../emulator';
import type { TargetInput } from '../shared/schemas/target';
import { DEMO_CLUSTER, runDemoStory } from './demo-story';
import { startLocalStack } from './stack';

const { values: args } = parseArgs({
  options: {
    once: { type: 'boolean', default: false },
    seed: { type: 'string' },
    targets: { type: 'string' },
    'sweep-cron': { type: 'string', default: '* * * * *' },
    'watch-cron': { type: 'string', default: '* * * * *' },
    'audit-delay-ms': { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (args.help) {
  console.log(`Usage: npm start [-- --once] [--seed emulator-seed.json] [--targets targets.json] [--sweep-cron "*/5 * * * *"]
                 [--watch-cron "* * * * *"] [--audit-delay-ms 30000] [--log-level debug]

  Starts the emulated Scaleway API (seeded with a demo kOps cluster, Audit Trail included), a local
  SQS-compatible queue with its dead-letter queue, the four functions (reconcile, inject, sweep, watch)
  served by @scaleway/serverless-functions, the queue-trigger bridge and the sweep and watch crons, and
  prints what happens.
  --once            run the demo story (create, replace during a busy LB, replace with only the watcher,
                    dead-letter) and exit 0 only if it converged
  --audit-delay-ms  how long the emulator waits before listing a change in Audit Trail (assumed; default
                    30000, or 2000 with --once)`);
  process.exit(0);
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const seed = readJson<EmulatorSeed>(args.seed ?? new URL('../emulator/seeds/demo.json', import.meta.url).pathname);
const targets = args.targets ? readJson<TargetInput[]>(args.targets) : [{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' as const } }];
const say = (line: string) => process.stdout.write(`${line}\n`);
// The real listing delay is unknown (assumed 30 s); --once shortens it so CI does not wait.
const auditTrailDelayMs = Number(args['audit-delay-ms'] ?? (args.once ? 2_000 : 30_000));
if (!Number.isInteger(auditTrailDelayMs) || auditTrailDelayMs < 0) {
  console.error(`--audit-delay-ms must be a whole number of ms >= 0, got ${args['audit-delay-ms']}`);
  process.exit(64);
}

const stack = await startLocalStack({
  seed,
  targets,
  functionsFrom: 'dist',
  sweepCron: args.once ? false : args['sweep-cron'],
  watchCron: args.once ? false : args['watch-cron'],
  auditTrailDelayMs,
  env: {
    LOG_FORMAT: 'pretty',
    LOG_LEVEL: args['log-level'] ?? 'info',
    LBSYNC_RETRY_BASE_MS: '500',
    LBSYNC_RETRY_CAP_MS: '8000',
    LBSYNC_MAX_HOLD_MS: '8000',
    LBSYNC_WAIT_BUDGET_MS: '6000',
    // Shorter than the demo's 4 s of "migrating", so the story shows the retries with backoff.
    LBSYNC_TRANSIENT_WAIT_MS: '1000',
  },
  onDelivery: (d) => say(`${new Date().toISOString().slice(11, 23)} ${d.status === 200 ? 'TRIG ' : 'TRIG!'} bridge   delivery ${d.messageId.slice(0, 8)} (receive #${d.attempt}) -> ${d.status} in ${d.durationMs} ms`),
});

say(`scw-lb-sync local stack
  Scaleway API emulator  ${stack.emulator.url}   (control: ${stack.emulator.url}/_emulator/state)
  SQS-compatible queue   ${stack.queue.endpoint}
    reconcile queue      ${stack.reconcileQueueUrl}
    dead-letter queue    ${stack.deadLetterQueueUrl}
  functions              reconcile ${stack.functions.reconcile.url}
                         inject    ${stack.functions.inject.url}
                         sweep     ${stack.functions.sweep.url}
                         watch     ${stack.functions.watch.url}   (Audit Trail delay ${auditTrailDelayMs} ms, assumed)
  targets                ${targets.length} (${JSON.stringify(targets)})`);

/** The stack's environment as one shell line, for running the CLI against it from another terminal. */
function localEnvLine(env: Record<string, string>): string {
  const names = ['SCW_API_URL', 'SCW_ACCESS_KEY', 'SCW_SECRET_KEY', 'SCW_DEFAULT_ORGANIZATION_ID', 'SQS_ENDPOINT', 'SQS_REGION', 'SQS_ACCESS_KEY_ID', 'SQS_SECRET_ACCESS_KEY', 'RECONCILE_QUEUE_URL', 'DEAD_LETTER_QUEUE_URL', 'INJECT_TOKEN', 'LBSYNC_TARGETS'];
  return names.map((name) => `${name}='${env[name] ?? ''}'`).join(' ');
}

let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  await stack.stop();
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

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
  curl -s -X POST ${stack.emulator.url}/_emulator/servers/972a8469-1641-4f82-8b9d-2434e465e150/replace \\
       -H 'Content-Type: application/json' -d '{"name":"cp-new","zone":"fr-par-1","tags":["noprefix=kops.k8s.io/cluster=${DEMO_CLUSTER}","noprefix=kops.k8s.io/role=ControlPlane"],"publicIps":["51.15.100.44"]}'

The lbsync CLI against this stack (local, fake credentials):
  export ${localEnvLine(stack.env)}
  npx lbsync plan; npx lbsync dlq list; npx lbsync watch --once; npx lbsync inject --target ${DEMO_CLUSTER} --url ${stack.functions.inject.url}
The sweep runs on "${args['sweep-cron']}" and the watcher on "${args['watch-cron']}" (UTC): after a replacement like the
one above, with no inject, the watcher finds it in Audit Trail within about ${Math.round(auditTrailDelayMs / 1000) + 60} s. One sweep runs now. Ctrl-C stops everything.
`);
  await stack.sweep({});
}
