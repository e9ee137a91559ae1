import { Command } from 'commander';
import { runtimeConfigFromEnv } from '../../shared/platform/config';
import type { ReconcileSettings } from '../../shared/reconcile/reconcile-target';
import { notStarted, reconcileSettings } from '../../shared/reconcile/reconcile-target';
import type { Target } from '../../shared/schemas/target';
import type { Cli } from '../command';
import { act, collect, helpText } from '../command';
import { configuredTargets, queueAccess, scalewayGateway, selectTargets, targetGateway } from '../environment';
import type { Output } from '../output';
import { CliError, EXIT } from '../output';
import type { ShadowSource } from '../status-read';
import { readQueueDepths, readShadowCounts, readTargetStatus } from '../status-read';
import { withWriters } from '../status-view';
import { readWriters } from '../writers-read';
import { createLokiQuery } from '../adapters/loki-query';
import type { StatusBlock, StatusSnapshot } from '../status-view';
import { appendedLines, renderStatus, statusBlocks, statusExitCode, statusPayload, targetStatus, terminalFrame } from '../status-view';

interface StatusOptions {
  target?: string[];
  file?: string;
  queue: boolean;
  watch?: string | true;
  shadow?: boolean;
  logsUrl?: string;
}

const SHADOW_HINT =
  "the count is read from the functions' logs: COCKPIT_TOKEN, a Cockpit token with the logs query permission (console: Cockpit > Tokens), and --logs-url, the logs data source's URL (console: Cockpit > Data sources, type Logs, origin Scaleway)";

/** Where the shadow count is read from, when the deployment is in shadow mode (LBSYNC_MODE=shadow, or --shadow). */
function shadowSource(options: StatusOptions, env: NodeJS.ProcessEnv, protect: (secret: string) => void): ShadowSource | undefined {
  if (!options.shadow && runtimeConfigFromEnv(env).mode !== 'shadow') return undefined;
  const token = env.COCKPIT_TOKEN?.trim();
  if (!options.logsUrl) return { notRead: 'no --logs-url', hint: SHADOW_HINT };
  if (!/^https?:\/\/[^@/]+/.test(options.logsUrl))
    throw new CliError('usage', `--logs-url must be an http(s) URL without credentials`, SHADOW_HINT);
  if (!token) return { notRead: 'COCKPIT_TOKEN is not set', hint: SHADOW_HINT };
  protect(token);
  return { query: createLokiQuery({ url: options.logsUrl, token, timeoutMs: runtimeConfigFromEnv(env).requestTimeoutMs }) };
}

const DEFAULT_EVERY_SECONDS = 5;

/** --watch alone refreshes every 5 s; --watch N every N seconds (1 to 3600). */
function refreshSeconds(watch: string | true): number {
  if (watch === true) return DEFAULT_EVERY_SECONDS;
  const seconds = Number(watch);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600)
    throw new CliError('usage', `--watch takes a whole number of seconds from 1 to 3600, got "${watch}"`);
  return seconds;
}

interface Reader {
  targets: readonly Target[];
  env: NodeJS.ProcessEnv;
  settings: ReconcileSettings;
  queue: boolean;
  shadow?: ShadowSource;
  /** Learns each target key read (the CLI's output scrubber). */
  protect: (secret: string) => void;
}

async function readSnapshot(reader: Reader, queueOf: () => ReturnType<typeof queueAccess>): Promise<StatusSnapshot> {
  const at = new Date().toISOString();
  const queues = reader.queue ? readQueueDepths(queueOf) : undefined;
  const shadow = reader.shadow
    ? readShadowCounts(
        reader.shadow,
        reader.targets.map((t) => t.name),
        Date.parse(at),
      )
    : undefined;
  const targets = [];
  // One gateway per target: its call count is that target's cost.
  for (const target of reader.targets) {
    const own = targetGateway(reader.env, target, reader.protect);
    const read =
      'error' in own
        ? { target, result: notStarted(target, {}, own.error), health: new Map(), apiCalls: { reads: 0, writes: 0, byOperation: {} } }
        : await readTargetStatus(target, own.gateway, reader.settings);
    targets.push(targetStatus(read));
  }
  // Who else wrote the pools (Audit Trail, when the organization is known): named, and a contest warned.
  const writers = await readWriters(reader.env, reader.targets, Date.now(), reader.protect);
  // Targets whose organization's trail no key of theirs may read are told nothing about their writers.
  if (writers.read) for (const t of targets) if (!writers.unread.some((u) => u.targets.includes(t.target))) withWriters(t, writers);
  const counts = await shadow;
  for (const t of targets) {
    const count = counts?.get(t.target);
    if (count) t.shadow = count;
  }
  return { at, targets, ...(queues && { queues: await queues }) };
}

/** Waits this long, or less when stopped. */
function pause(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    stop.addEventListener('abort', wake, { once: true });
  });
}

/** Prints one refresh: the JSON envelope, a redrawn terminal frame, or the blocks that changed. */
function printer(out: Output, everySeconds: number | undefined) {
  let previous: StatusBlock[] | undefined;
  return (snapshot: StatusSnapshot) => {
    const code = statusExitCode(snapshot);
    if (out.format === 'json') out.result(code !== EXIT.error, statusPayload(snapshot));
    else if (everySeconds === undefined) for (const line of renderStatus(snapshot, out.c)) out.line(line);
    else if (out.io.stdout.isTTY === true) out.io.stdout.write(terminalFrame(snapshot, out.c, everySeconds));
    else {
      const blocks = statusBlocks(snapshot, out.c);
      for (const line of appendedLines(previous, blocks, snapshot.at)) out.line(line);
      previous = blocks;
    }
    return code;
  };
}

export function statusCommand(cli: Cli, stopSignal?: AbortSignal): Command {
  return new Command('status')
    .description(
      "read-only live view per target: the LB and its status, each backend's members with the LB's health check of each, desired vs current and what is pending and why, and the queues' depths",
    )
    .option('-t, --target <name>', 'only this target (repeatable, or comma-separated)', collect)
    .option('-f, --file <path>', 'targets file (instead of LBSYNC_TARGETS / LBSYNC_CONFIG)')
    .option('--no-queue', 'leave the queues out (no SQS variables needed)')
    .option(
      '--shadow',
      "show each target's shadow count (read from the functions' logs) as a shadow deployment does; implied by LBSYNC_MODE=shadow",
    )
    .option('--logs-url <url>', "the logs data source's URL, for the shadow count (with COCKPIT_TOKEN, a token that may query logs)")
    .option(
      '-w, --watch [seconds]',
      `refresh every N seconds (default ${DEFAULT_EVERY_SECONDS}) until Ctrl-C: redrawn in place on a terminal; otherwise a time-stamped block appended for each target that changed`,
    )
    .addHelpText(
      'after',
      helpText(
        [
          'lbsync status',
          'lbsync status --watch            # a rolling update converging, live',
          'lbsync status -t prod.k8s.local --no-queue --watch 2 | tee converge.log',
          'LBSYNC_MODE=shadow COCKPIT_TOKEN=... lbsync status --logs-url https://<id>.logs.cockpit.fr-par.scw.cloud',
          "lbsync status -o json | jq '.targets[] | {target, inSync, members}'",
        ],
        [
          [0, 'every target in sync'],
          [2, 'a target is not in sync: a reconcile would write, or a removal waits (make-before-break)'],
          [1, 'a target or the queues could not be read; errors win (with --watch: the last refresh decides)'],
          [64, 'bad flags, or a --target the configuration lacks'],
        ],
        '{ok, command: "status", inSync, exitCode, at, targets: [{target, inSync, state, lb, desiredPool, backends, members: [{backend, ip, health, inPool, desired, change?, why?}], actions, apiCalls, shadow?: {window, wouldHaveWritten} | {window, notRead, hint?}, error?}], queues?: {reconcile: {waiting, inFlight}, deadLetter: {waiting, inFlight}} | {error}}; with --watch, one per refresh',
      ),
    )
    .action(
      act<StatusOptions>(cli, async (options, out) => {
        const env = cli.io.env;
        const everySeconds = options.watch === undefined ? undefined : refreshSeconds(options.watch);
        const targets = selectTargets(configuredTargets(env, options.file), options.target);
        const shadow = shadowSource(options, env, cli.protect);
        const reader: Reader = {
          targets,
          env,
          settings: reconcileSettings(runtimeConfigFromEnv(env)),
          queue: options.queue,
          ...(shadow && { shadow }),
          protect: cli.protect,
        };
        scalewayGateway(env); // credentials missing or invalid: exit 1 now, not once per refresh
        let access: ReturnType<typeof queueAccess> | undefined;
        const queueOf = () => {
          access ??= queueAccess(env);
          return access;
        };
        const print = printer(out, everySeconds);
        if (everySeconds === undefined) return print(await readSnapshot(reader, queueOf));
        const stop = new AbortController();
        const onSignal = () => stop.abort();
        process.once('SIGINT', onSignal);
        stopSignal?.addEventListener('abort', onSignal, { once: true });
        try {
          let code = print(await readSnapshot(reader, queueOf));
          while (!stop.signal.aborted) {
            await pause(everySeconds * 1000, stop.signal);
            if (!stop.signal.aborted) code = print(await readSnapshot(reader, queueOf));
          }
          return code;
        } finally {
          process.off('SIGINT', onSignal);
        }
      }),
    );
}
