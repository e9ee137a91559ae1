// `npm start`'s command line, read and checked before anything starts: a bad flag exits 64, a targets file or
// seed that cannot be used exits 1 with its field errors (as `lbsync targets validate` tells them).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { createOutput, describeError, renderError } from '../cli/output';
import type { EmulatorSeed } from '../emulator';
import { HINTS } from '../cli/hints';
import { validationError } from '../shared/errors/lbsync-error';
import type { TargetInput } from '../shared/schemas/target';
import { parseTargets, unwrapTargets } from '../shared/schemas/target';
import { closest } from '../shared/schemas/suggest';
import { DEMO_CLUSTER } from './demo-story';
import { FUNCTION_NAMES, type FunctionName } from '../functions/registry';
import type { LocalStackPorts } from './stack';

export const USAGE = `Usage: npm start [-- --once] [--seed emulator-seed.json] [--targets targets.json] [--port-base 8090]
                 [--sweep-cron "*/5 * * * *"] [--watch-cron "* * * * *"] [--audit-delay-ms 30000] [--log-level debug]
                 [--log-format json]

  Starts the emulated Scaleway API (seeded with a demo kOps cluster, Audit Trail included), a local
  SQS-compatible queue with its dead-letter queue, the four functions (reconcile, inject, sweep, watch)
  served by @scaleway/serverless-functions, the queue-trigger bridge and the sweep and watch crons, and
  prints what happens. Ctrl-C or SIGTERM stops everything ("stopped", exit 0).
  --once            run the demo story (create, replace during a busy LB, replace with only the watcher,
                    dead-letter) and exit 0 only if it converged
  --targets         a targets file (as LBSYNC_CONFIG: an array, or {"targets": [...]}); checked first: an
                    invalid one is refused with its field errors (exit 1) before anything starts
  --port-base N     fixed ports instead of free ones: the emulator on N, the queue on N+1, the functions
                    inject, reconcile, sweep and watch on N+2..N+5 (all on 127.0.0.1, loopback only)
  --audit-delay-ms  how long the emulator waits before listing a change in Audit Trail (assumed; default
                    30000, or 2000 with --once)
  --log-format      pretty (default: one readable line per event) or json: the functions' lines as a deployed
                    function prints them, the lines Cockpit's dashboard and alerts read (docs/operations.md)

Exit codes: 0 converged (--once) or stopped by a signal, 1 not converged or could not start (a bad
targets file, seed or busy port), 64 bad flags.`;

export interface StartOptions {
  help: boolean;
  once: boolean;
  seed: EmulatorSeed;
  targets: TargetInput[];
  ports?: LocalStackPorts;
  sweepCron: string;
  watchCron: string;
  auditTrailDelayMs: number;
  logLevel: string;
  logFormat: 'json' | 'pretty';
}

/** Refused before anything starts: what to print (on stderr) and the exit code. */
export class StartRefused extends Error {
  constructor(
    readonly exitCode: 1 | 64,
    message: string,
  ) {
    super(message);
  }
}

/** emulator N, queue N+1, functions N+2..N+5. */
export function portsFrom(base: number): Required<LocalStackPorts> & { functions: Record<FunctionName, number> } {
  const functions = Object.fromEntries(FUNCTION_NAMES.map((name, i) => [name, base + 2 + i])) as Record<FunctionName, number>;
  return { emulator: base, queue: base + 1, functions };
}

function portBase(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 65_530)
    throw new StartRefused(64, `--port-base must be a whole number from 1 to 65530 (it uses six ports from there), got "${text}"`);
  return n;
}

function readSeed(path: string): EmulatorSeed {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as EmulatorSeed;
  } catch (error) {
    throw new StartRefused(
      1,
      `error [invalid_seed] cannot read the seed ${path}: ${(error as Error).message}\n  hint: give a JSON emulator seed (see emulator/seeds/)`,
    );
  }
}

/** The targets file, validated as the functions will read it (named by its path); the inputs are passed on as written. */
function readTargets(path: string): TargetInput[] {
  const refuse = (error: unknown): never => {
    const out = createOutput({ stdout: process.stdout, stderr: process.stderr, env: process.env });
    throw new StartRefused(1, renderError({ ...describeError(error), hint: HINTS.targets }, out.ce).trimEnd());
  };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return refuse(
      validationError('invalid_config', path, [
        { path, message: `cannot be read as JSON (${why})`, fix: 'give a readable JSON file: an array of targets, or {"targets": [...]}' },
      ]),
    );
  }
  // Like LBSYNC_CONFIG: the bare array, or {"targets": [...]}.
  const wrapped = unwrapTargets(value, path);
  try {
    parseTargets(wrapped.value, wrapped.path);
  } catch (error) {
    return refuse(error);
  }
  return wrapped.value as TargetInput[];
}

const START_FLAGS = {
  once: { type: 'boolean', default: false },
  seed: { type: 'string' },
  targets: { type: 'string' },
  'port-base': { type: 'string' },
  'sweep-cron': { type: 'string', default: '* * * * *' },
  'watch-cron': { type: 'string', default: '* * * * *' },
  'audit-delay-ms': { type: 'string' },
  'log-level': { type: 'string', default: 'info' },
  'log-format': { type: 'string', default: 'pretty' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** node's parseArgs error, with the closest flag for an unknown one (as the lbsync CLI's commander does). */
function badFlag(error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  const unknown = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(--?[^']+)'/.exec(message)?.[1] : undefined;
  if (unknown === undefined) return message;
  const match = closest(unknown.replace(/^-+/, ''), Object.keys(START_FLAGS));
  return `error: unknown option '${unknown}'${match ? ` (did you mean --${match}?)` : ''}`;
}

function parseStartArgs(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: START_FLAGS }).values;
  } catch (error) {
    throw new StartRefused(64, `${badFlag(error)}\n(npm start -- --help for usage)`);
  }
}

export function readStartOptions(argv: string[]): StartOptions {
  const values = parseStartArgs(argv);
  // The real listing delay is unknown (assumed 30 s); --once shortens it so CI does not wait.
  const auditTrailDelayMs = Number(values['audit-delay-ms'] ?? (values.once ? 2_000 : 30_000));
  if (!Number.isInteger(auditTrailDelayMs) || auditTrailDelayMs < 0) {
    throw new StartRefused(64, `--audit-delay-ms must be a whole number of ms >= 0, got ${values['audit-delay-ms']}`);
  }
  const base = portBase(values['port-base']);
  const logFormat = values['log-format'];
  if (logFormat !== 'json' && logFormat !== 'pretty') throw new StartRefused(64, `--log-format must be json or pretty, got "${logFormat}"`);
  if (values.help) return { help: true } as StartOptions;
  return {
    help: false,
    once: values.once,
    seed: readSeed(values.seed ?? new URL('../emulator/seeds/demo.json', import.meta.url).pathname),
    targets: values.targets ? readTargets(values.targets) : [{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }],
    ...(base !== undefined && { ports: portsFrom(base) }),
    sweepCron: values['sweep-cron'],
    watchCron: values['watch-cron'],
    auditTrailDelayMs,
    logLevel: values['log-level'],
    logFormat,
  };
}

function portFree(port: number, host?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, ...(host && { host }) }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Refuses fixed ports that are taken, before anything starts (Scaleway's local runtime would exit the process
 * from inside on a busy port). Everything listens on 127.0.0.1; a function's port is probed on every interface, since
 * Scaleway's local runtime (fastify, host "localhost") does not say which one it takes.
 */
export async function checkPortsFree(ports: LocalStackPorts): Promise<void> {
  const wanted: [string, number | undefined, string | undefined][] = [
    ['the emulator', ports.emulator, '127.0.0.1'],
    ['the queue', ports.queue, '127.0.0.1'],
    ...FUNCTION_NAMES.map((name): [string, number | undefined, undefined] => [`the ${name} function`, ports.functions?.[name], undefined]),
  ];
  const busy: string[] = [];
  for (const [what, port, host] of wanted) if (port !== undefined && !(await portFree(port, host))) busy.push(`${port} (${what})`);
  if (busy.length > 0)
    throw new StartRefused(
      1,
      `port${busy.length > 1 ? 's' : ''} ${busy.join(', ')} in use: pick another --port-base, or stop what listens there`,
    );
}
