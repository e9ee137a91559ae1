import { Command } from 'commander';
import { runtimeConfigFromEnv } from '../../shared/platform/config';
import type { ReconcileSettings } from '../../shared/reconcile/reconcile-target';
import { reconcileSettings } from '../../shared/reconcile/reconcile-target';
import type { Target } from '../../shared/schemas/target';
import type { Cli } from '../command';
import { act, collect, helpText } from '../command';
import { configuredTargets, queueAccess, scalewayGateway, selectTargets } from '../environment';
import type { Output } from '../output';
import { CliError, EXIT } from '../output';
import { readQueueDepths, readTargetStatus } from '../status-read';
import { withWriters } from '../status-view';
import { readWriters } from '../writers-read';
import type { StatusBlock, StatusSnapshot } from '../status-view';
import { appendedLines, renderStatus, statusBlocks, statusExitCode, statusPayload, targetStatus, terminalFrame } from '../status-view';

interface StatusOptions {
  target?: string[];
  file?: string;
  queue: boolean;
  watch?: string | true;
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
}

async function readSnapshot(reader: Reader, queueOf: () => ReturnType<typeof queueAccess>): Promise<StatusSnapshot> {
  const at = new Date().toISOString();
  const queues = reader.queue ? readQueueDepths(queueOf) : undefined;
  const targets = [];
  // One gateway per target: its call count is that target's cost.
  for (const target of reader.targets)
    targets.push(targetStatus(await readTargetStatus(target, scalewayGateway(reader.env), reader.settings)));
  // Who else wrote the pools (Audit Trail, when the organization is known): named, and a contest warned.
  const writers = await readWriters(reader.env, reader.targets);
  if (writers.read) for (const t of targets) withWriters(t, writers);
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
          "lbsync status -o json | jq '.targets[] | {target, inSync, members}'",
        ],
        [
          [0, 'every target in sync'],
          [2, 'a target is not in sync: a reconcile would write, or a removal waits (make-before-break)'],
          [1, 'a target or the queues could not be read; errors win (with --watch: the last refresh decides)'],
          [64, 'bad flags, or a --target the configuration lacks'],
        ],
        '{ok, command: "status", inSync, exitCode, at, targets: [{target, inSync, state, lb, desiredPool, backends, members: [{backend, ip, health, inPool, desired, change?, why?}], actions, apiCalls, error?}], queues?: {reconcile: {waiting, inFlight}, deadLetter: {waiting, inFlight}} | {error}}; with --watch, one per refresh',
      ),
    )
    .action(
      act<StatusOptions>(cli, async (options, out) => {
        const env = cli.io.env;
        const everySeconds = options.watch === undefined ? undefined : refreshSeconds(options.watch);
        const targets = selectTargets(configuredTargets(env, options.file), options.target);
        const reader: Reader = { targets, env, settings: reconcileSettings(runtimeConfigFromEnv(env)), queue: options.queue };
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
