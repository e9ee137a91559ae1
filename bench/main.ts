/**
 * `npm run bench [-- --quick] [-- --json [file]] [-- --only fleet]`: measures scw-lb-sync side by side with kOps'
 * call pattern and prints one table. --quick is the CI smoke mode (smaller N, same measurements); --only fleet
 * runs the fleet-scale section alone (14: bench/fleet-scale.ts).
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { writeFileSync } from 'node:fs';
import { measureApiCalls } from './api-calls';
import { measureBundleSize } from './bundle-size';
import { measureCliStart } from './cli-start';
import { measureColdStart } from './cold-start';
import { computeCost } from './cost';
import { fleetScaleMisses, type FleetScalePlan, measureFleetScale, renderFleetScale } from './fleet-scale';
import { measureConvergence } from './convergence';
import { measurePerEvent } from './per-event';
import { jsonSummary, renderReport, type Measurements } from './report';
import { measureRollingUpdate } from './rolling-update';
import { measureRss } from './rss';
import { measureSequential } from './sequential';
import { buildDist, buildForDefaultHeap, FUNCTION_NODE, prepareOut } from './support/bundles';
import { measureSweepScale } from './sweep-scale';
import { measureSweepSpread } from './sweep-spread';
import { measureWatchLatency } from './watch-latency';
import { FLEET_SCALE } from './support/tenant-fleet';

/** The node running the functions (LBSYNC_CODE_CACHE_NODE, else this one). */
function functionsNodeVersion(): string {
  return FUNCTION_NODE === process.execPath
    ? process.version
    : execFileSync(FUNCTION_NODE, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
}

function parseArgs(argv: string[]): { quick: boolean; json?: string; only?: 'fleet' } {
  const quick = argv.includes('--quick');
  const only = argv[argv.indexOf('--only') + 1];
  if (argv.includes('--only') && only !== 'fleet') throw new Error(`--only takes "fleet" (got ${only ?? 'nothing'})`);
  const at = argv.indexOf('--json');
  const base = { quick, ...(only === 'fleet' && { only: 'fleet' as const }) };
  if (at === -1) return base;
  const next = argv[at + 1];
  return { ...base, json: next && !next.startsWith('--') ? next : 'bench-results.json' };
}

/** The fleet of issue 26 (1,000 targets; 300 in the quick run), its sweep over the deployed 5 minutes. */
const fleetPlan = (targets: number, watchTicks: number, injectEvents: number, sweepInstanceSpreadS: number): FleetScalePlan => ({
  fleet: { ...FLEET_SCALE, targets },
  spreadMs: 300_000,
  watchTicks,
  injectEvents,
  sweepInstanceSpreadS,
});

const PLAN = {
  full: {
    coldRuns: 7,
    perEvent: 1000,
    burst: 200,
    sweepReconcileUpTo: 1000,
    convergenceRuns: 5,
    sequential: 1000,
    unbounded: true,
    cliRuns: 7,
    watchRuns: 10,
    spreadTargets: 10_000,
    rollingScale: 30,
    fleet: fleetPlan(FLEET_SCALE.targets, 10, 100, 10),
  },
  quick: {
    coldRuns: 3,
    perEvent: 200,
    burst: 100,
    sweepReconcileUpTo: 100,
    convergenceRuns: 1,
    sequential: 100,
    unbounded: false,
    cliRuns: 3,
    watchRuns: 3,
    spreadTargets: 2_000,
    rollingScale: 100,
    fleet: fleetPlan(300, 3, 20, 2),
  },
};

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const plan = args.quick ? PLAN.quick : PLAN.full;
  const started = performance.now();
  const step = async <T>(label: string, run: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    process.stderr.write(`bench: ${label}...`);
    const result = await run();
    process.stderr.write(` ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    return result;
  };
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  prepareOut();
  await step('build (npm run build)', buildDist);
  const fleetStep = () => step(`fleet scale (${plan.fleet.fleet.targets} targets)`, () => measureFleetScale(plan.fleet));
  if (args.only === 'fleet') {
    const fleet = await fleetStep();
    process.stdout.write(`== 14. One deployment serving a fleet\n${renderFleetScale(fleet).join('\n')}\n`);
    if (args.json) writeFileSync(args.json, `${JSON.stringify({ fleetScale: fleet }, null, 2)}\n`);
    if (fleetScaleMisses(fleet).length > 0) process.exitCode = 1;
    return;
  }
  const apiCalls = await step('API calls', measureApiCalls);
  const bundle = await step('bundle sizes', measureBundleSize);
  const coldStart = await step(`cold start (N=${plan.coldRuns})`, () => measureColdStart(plan.coldRuns));
  const perEvent = await step('per-event overhead', () => measurePerEvent(plan.perEvent));
  const rss = await step('peak RSS', () => measureRss(plan.burst, 10));
  const sweep = await step('sweep scale', () => measureSweepScale([10, 100, 1000], plan.sweepReconcileUpTo));
  const sweepSpread = await step(`sweep spread (${plan.spreadTargets} targets)`, () => measureSweepSpread(plan.spreadTargets));
  // Its own process: it runs the local stack, whose environment the bundles read once per process.
  const watchLatency = await step(`watcher latency (N=${plan.watchRuns})`, () => measureWatchLatency(plan.watchRuns));
  const sequential = await step(
    `memory per instance (${plan.sequential} events of each kind, one at a time${plan.unbounded ? "; and with V8's default heap" : ''})`,
    () => measureSequential(plan.sequential, plan.unbounded ? { compare: { execArgv: [], handler: buildForDefaultHeap() } } : {}),
  );
  const cli = await step(`CLI start (N=${plan.cliRuns})`, () => measureCliStart(plan.cliRuns));
  const fleetScale = await fleetStep();
  // Its own process: the local stack, kOps' rolling update played twice (alone, then beside scw-lb-sync).
  const rollingUpdate = await step(`kOps rolling update (x${plan.rollingScale} clock)`, () => measureRollingUpdate(plan.rollingScale));
  // Last: the local stack sets this process' environment and loads the bundles in-process.
  const convergence = await step('convergence', () => measureConvergence(plan.convergenceRuns));

  const measurements: Measurements = {
    machine: {
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      cores: cpus().length,
      node: process.version,
      functionsNode: functionsNodeVersion(),
      date: new Date().toISOString(),
      mode: args.quick ? 'quick' : 'full',
      durationS: Math.round((performance.now() - started) / 1000),
    },
    apiCalls,
    bundle,
    coldStart,
    perEvent,
    rss,
    sweep,
    convergence,
    sweepSpread,
    watchLatency,
    rollingUpdate,
    fleetScale,
    platform: { sequential, cli, cost: computeCost(sequential.rows, apiCalls) },
  };
  process.stdout.write(`${renderReport(measurements)}\n`);
  if (args.json) {
    writeFileSync(args.json, `${JSON.stringify(jsonSummary(measurements), null, 2)}\n`);
    process.stderr.write(`bench: wrote ${args.json}\n`);
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`\nbench failed: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
