// npm run chaos -- [--seed S] [--events N] [--targets T] [--production] [--quiet] [--help]
// The whole system under a seeded stream of events and faults; exits 0 only if every invariant holds.
import { runChaos, summaryLine, API_CALLS_PER_EVENT, DELIVERIES_PER_EVENT, PROFILES } from './run';

const HELP = `npm run chaos -- [options]

Runs the whole system on this machine (emulated Scaleway API, SQS-compatible queue and dead-letter queue, the
functions served by Scaleway's local runtime, the queue trigger) under a seeded stream of events and faults,
then judges it by evidence: the emulator's call log and pool history, and the queues. Exits 0 only if every
invariant holds; the last line is the summary.

Options:
  --seed S        replay a run (default: a random seed, printed first)
  --events N      events to produce, 1..1000000 (default 300)
  --targets T     kOps clusters, 1..250 (default 8)
  --production    the deployed maxReceiveCount (${PROFILES.production.maxReceiveCount}) and a retry horizon (LBSYNC_RETRY_HORIZON_MS ${PROFILES.production.retryHorizonMs})
                  shorter than the schedule's stuck LB: it and the crashing function then end in
                  retries_exhausted and queue_redrive dead letters (default: ci, maxReceiveCount ${PROFILES.ci.maxReceiveCount},
                  LBSYNC_RETRY_HORIZON_MS ${PROFILES.ci.retryHorizonMs}, longer than any busy period of the schedule)
  --quiet         no progress lines
                  A run with a violation (or that fails) writes its dump, a JSON file of the emulator's
                  call log, pool history and state, the answers and dead letters, and prints its path;
                  CHAOS_DUMP=path writes it there, and for a run that passes too
  --help          this text

The summary line:
  chaos: seed=S events=N faults=F converged=C/T lost=0 dup_backends=0 bad_pool_writes=0 unsafe_shrinks=0 unbacked_answers=0 api_calls=A needless_writes=0 early_applied=0
  converged         targets whose pool is exactly their running, role-tagged control planes once the
                    schedule's last events are answered (no sweep runs after the schedule)
  lost              events without a final answer (applied, noop, dead_lettered) nor a queue redrive
  dup_backends      backends carrying a managed name twice at the end
  bad_pool_writes   pool writes (emulator history) that were empty or held an address that was never a
                    control plane of that cluster
  unsafe_shrinks    pool writes that removed more serving members than maxUnavailable (1), or left none passing,
                    judged against the pool as it stood when the write was sent (a write the API commits
                    after its client gave up is judged as sent)
  unbacked_answers  final answers without their evidence: applied without a write made for that event,
                    noop without the reads that prove it, dead_lettered without its record in the queue,
                    retries_exhausted of a valid event without the cause of each attempt's failure in the
                    call log (the LB busy, a 409, 429 or 5xx, no answer...) for a whole horizon
  api_calls         calls the emulator answered (bounded by ${API_CALLS_PER_EVENT} per event; deliveries by ${DELIVERIES_PER_EVENT})
  needless_writes   writes that left the backend as it was (its pool as a set, its settings, its health check:
                    the emulator's record of what each write changed), nobody having changed the backend
                    between the writer's read and the write
  early_applied     applied answers given before the emulator showed the write applied: no read of the LB
                    for that event, after its write was answered, showed the LB and every instance ready
`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(HELP);
  process.exit(0);
}
const KNOWN = new Set(['--seed', '--events', '--targets', '--production', '--quiet', '--help', '-h']);
const unknown = args.filter(
  (a, i) => a.startsWith('-') && !KNOWN.has(a.split('=')[0] ?? a) && !/^--(seed|events|targets)$/.test(args[i - 1] ?? ''),
);
if (unknown.length > 0) {
  console.error(`unknown option ${unknown[0]}; see npm run chaos -- --help`);
  process.exit(64);
}

function flag(name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  if (at !== -1) return args[at + 1];
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

function intFlag(name: string, fallback: number, min: number, max: number): number {
  const raw = flag(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.error(`--${name} must be an integer within ${min}..${max} (got ${raw}); see npm run chaos -- --help`);
    process.exit(64);
  }
  return value;
}

const seed = intFlag('seed', Math.floor(Math.random() * 2 ** 31), 0, 2 ** 32 - 1);
const events = intFlag('events', 300, 1, 1_000_000);
const targets = intFlag('targets', 8, 1, 250);
const profile = args.includes('--production') ? 'production' : 'ci';
const quiet = args.includes('--quiet');

console.log(`chaos: seed=${seed} profile=${profile} (replay with --seed ${seed}${profile === 'production' ? ' --production' : ''})`);
try {
  const report = await runChaos({ seed, events, targets, profile, ...(!quiet && { log: (line: string) => console.log(line) }) });
  const faults = Object.entries(report.faultsByType)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  console.log(`schedule ${report.scheduleHash}: ${report.steps} steps in ${(report.durationMs / 1000).toFixed(1)} s`);
  console.log(
    `faults: ${faults}; hand-off failures seen: ${report.handoffFailures}${report.destroyedByDriver ? ` (${report.destroyedByDriver} dead letter(s) went with the deleted DLQ)` : ''}`,
  );
  console.log(
    `answers: ${Object.entries(report.outcomes)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}; backed by evidence: ${report.backedAnswers}, unbacked: ${report.unbackedAnswers}, applied early: ${report.earlyApplied}`,
  );
  console.log(
    `dead letters: ${
      Object.entries(report.deadLetterReasons)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ') || 'none'
    }; refused at inject: ${report.refusedAtInject}`,
  );
  console.log(
    `pool writes: ${report.poolWrites}, bad: ${report.badPoolWrites}, unsafe shrinks: ${report.unsafeShrinks}, needless: ${report.needlessWrites}, committed after the client gave up: ${report.lateCommits}`,
  );
  console.log(
    `kOps rolling updates: ${report.kopsRollingUpdates} (kOps' own calls, not counted below: ${report.kopsApiCalls}); attempts kOps could not finish: ${report.kopsFailures.length}`,
  );
  console.log(
    `api calls: ${report.apiCalls} (bound ${report.apiCallBound} = ${API_CALLS_PER_EVENT}/event); deliveries: ${report.deliveries} (bound ${report.deliveryBound} = ${DELIVERIES_PER_EVENT}/event); queue empty: ${report.queueEmpty}`,
  );
  for (const v of report.violations) console.log(`VIOLATION: ${v}`);
  if (report.dumpPath) console.log(`dump: ${report.dumpPath} (call log, pool history, answers, dead letters)`);
  console.log(summaryLine(report));
  process.exit(report.ok ? 0 : 1);
} catch (error) {
  console.error(`chaos: run failed: ${(error as Error)?.stack ?? String(error)}`);
  console.log(
    `chaos: seed=${seed} events=0 faults=0 converged=0/${targets} lost=? dup_backends=? bad_pool_writes=? unsafe_shrinks=? unbacked_answers=? api_calls=? needless_writes=? early_applied=?`,
  );
  process.exit(1);
}
