// npm run chaos -- [--seed S] [--events N] [--targets T] [--quiet]
// The whole system under a seeded stream of events and faults; exits 0 only if every invariant holds.
import { runChaos, summaryLine, API_CALLS_PER_EVENT, DELIVERIES_PER_EVENT } from './run';

function flag(name: string): string | undefined {
  const args = process.argv.slice(2);
  const at = args.indexOf(`--${name}`);
  if (at !== -1) return args[at + 1];
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

function intFlag(name: string, fallback: number, min: number, max: number): number {
  const raw = flag(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.error(`--${name} must be an integer within ${min}..${max} (got ${raw})`);
    process.exit(2);
  }
  return value;
}

const seed = intFlag('seed', Math.floor(Math.random() * 2 ** 31), 0, 2 ** 32 - 1);
const events = intFlag('events', 300, 1, 1_000_000);
const targets = intFlag('targets', 8, 1, 250);
const quiet = process.argv.includes('--quiet');

console.log(`chaos: seed=${seed} (replay with --seed ${seed})`);
try {
  const report = await runChaos({ seed, events, targets, ...(!quiet && { log: (line: string) => console.log(line) }) });
  const faults = Object.entries(report.faultsByType).map(([k, v]) => `${k}=${v}`).join(' ');
  console.log(`schedule ${report.scheduleHash}: ${report.steps} steps in ${(report.durationMs / 1000).toFixed(1)} s`);
  console.log(`faults: ${faults}; hand-off failures seen: ${report.handoffFailures}${report.destroyedByDriver ? ` (${report.destroyedByDriver} dead letter(s) went with the deleted DLQ)` : ''}`);
  console.log(`answers: ${Object.entries(report.outcomes).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  console.log(`dead letters: ${Object.entries(report.deadLetterReasons).map(([k, v]) => `${k}=${v}`).join(' ') || 'none'}`);
  console.log(`pool writes: ${report.poolWrites}, bad: ${report.badPoolWrites}`);
  console.log(`api calls: ${report.apiCalls} (bound ${report.apiCallBound} = ${API_CALLS_PER_EVENT}/event); deliveries: ${report.deliveries} (bound ${report.deliveryBound} = ${DELIVERIES_PER_EVENT}/event); queue empty: ${report.queueEmpty}`);
  for (const v of report.violations) console.log(`VIOLATION: ${v}`);
  console.log(summaryLine(report));
  process.exit(report.ok ? 0 : 1);
} catch (error) {
  console.error(`chaos: run failed: ${(error as Error)?.stack ?? String(error)}`);
  console.log(`chaos: seed=${seed} events=0 faults=0 converged=0/${targets} lost=? dup_backends=? bad_pool_writes=? api_calls=?`);
  process.exit(1);
}
