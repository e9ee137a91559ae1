// lbsync: the operator's command line for scw-lb-sync. Each command lives in cli/commands/ and calls
// shared/ for the work; this file only assembles them and maps commander's own exits to codes.
import { Command, CommanderError, Option } from 'commander';
import { version } from '../package.json';
import { commandPath, createCli } from './command';
import { cockpitCommand } from './commands/cockpit';
import { dlqCommand } from './commands/dlq';
import { doctorCommand } from './commands/doctor';
import { emulatorCommand } from './commands/emulator';
import { injectCommand } from './commands/inject';
import { planCommand } from './commands/plan';
import { provisionCommand } from './commands/provision';
import { bootstrapCommand } from './commands/bootstrap';
import { reconcileCommand } from './commands/reconcile';
import { statusCommand } from './commands/status';
import { sweepCommand } from './commands/sweep';
import { targetsCommand } from './commands/targets';
import { watchCommand } from './commands/watch';
import type { CliIo, Stream } from './output';
import { envelope, EXIT, FORMATS } from './output';
import { configWarnings, secretValues } from '../shared/platform/config';
import type { Scrubber } from '../shared/outbound/scrub';
import { createScrubber } from '../shared/outbound/scrub';
import { HINTS } from './hints';

const OVERVIEW = `
Environment (the same names the functions use):
  targets      LBSYNC_TARGETS (JSON array) or LBSYNC_CONFIG (JSON file); most commands also take --file
  Scaleway     SCW_ACCESS_KEY, SCW_SECRET_KEY, SCW_DEFAULT_PROJECT_ID, SCW_DEFAULT_ZONE, SCW_API_URL,
               SCW_DEFAULT_ORGANIZATION_ID (watch),
               or the scw CLI's profile: --profile (or SCW_PROFILE) in SCW_CONFIG_PATH (~/.config/scw/config.yaml);
               variables override the profile, key by key
  queues       SQS_ENDPOINT, SQS_REGION, SQS_ACCESS_KEY_ID, SQS_SECRET_ACCESS_KEY,
               RECONCILE_QUEUE_URL, DEAD_LETTER_QUEUE_URL (printed by \`lbsync provision\`)
  inject       INJECT_TOKEN (Authorization: Bearer) and FUNCTION_TOKEN (X-Auth-Token of a private
               function), or files: --token-file, --function-token-file; never on the command line
  tuning       LBSYNC_WAIT_BUDGET_MS, LBSYNC_REQUEST_TIMEOUT_MS; NO_COLOR disables colours

Output: text for people; -o json (or --json) prints one JSON document on stdout, the same envelope for every
command: {"ok", "command", ...the command's fields, "error"?: {"code", "message", "hint", "fieldErrors"?}}.

Exit codes: 0 success, 1 error, 2 drift (plan and status only), 64 bad usage. \`lbsync\` alone prints this help (exit 0).
`;

export function buildProgram(io: CliIo, options: { stopSignal?: AbortSignal; protect?: (secret: string) => void } = {}) {
  const cli = createCli(io, options.protect);
  const program = new Command('lbsync')
    .description('keep Scaleway Load Balancer backends in step with the servers that should serve them')
    .version(version, '-V, --version', 'print the version')
    .addOption(new Option('-o, --output <format>', 'text, or json: one JSON envelope on stdout').choices(FORMATS))
    .option('--json', 'same as -o json')
    .option('-p, --profile <name>', 'credentials from this profile of the scw config file (as `scw -p`; wins over SCW_PROFILE)')
    .option('--no-color', 'never colour the output (also: NO_COLOR=1)')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', OVERVIEW)
    .configureOutput({ writeOut: (s) => void io.stdout.write(s), writeErr: (s) => void io.stderr.write(s) })
    .exitOverride()
    .addCommand(doctorCommand(cli))
    .addCommand(planCommand(cli))
    .addCommand(statusCommand(cli, options.stopSignal))
    .addCommand(reconcileCommand(cli))
    .addCommand(injectCommand(cli))
    .addCommand(sweepCommand(cli))
    .addCommand(watchCommand(cli, options.stopSignal))
    .addCommand(dlqCommand(cli))
    .addCommand(targetsCommand(cli))
    .addCommand(provisionCommand(cli))
    .addCommand(bootstrapCommand(cli))
    .addCommand(cockpitCommand(cli))
    .addCommand(emulatorCommand(cli, options.stopSignal));
  // Subcommands inherit exitOverride and the output routing only when set on each.
  const configure = (command: Command) => {
    command.exitOverride((error) => {
      failedCommand = command;
      throw error;
    });
    command.configureOutput({ writeOut: (s) => void io.stdout.write(s), writeErr: (s) => void io.stderr.write(s) });
    command.showHelpAfterError('(add --help for usage)').showSuggestionAfterError(true).configureHelp({ showGlobalOptions: true });
    helpWhenBare(command);
    command.commands.forEach(configure);
  };
  let failedCommand: Command = program;
  configure(program);
  return { program, cli, failedCommand: () => failedCommand };
}

/**
 * A command that only groups others (lbsync, lbsync dlq), given none, prints its help on stdout and exits 0,
 * as kubectl does; commander would print it on stderr as an error.
 */
function helpWhenBare(command: Command): void {
  if (command.commands.length === 0) return;
  const help = command.help.bind(command);
  command.help = ((context?: { error: boolean }) => (context?.error ? help() : help(context))) as Command['help'];
}

/** Whether the command line asks for JSON (read before parsing, for the errors parsing itself finds). */
export function asksForJson(argv: readonly string[]): boolean {
  return argv.some(
    (arg, i) =>
      arg === '--json' || arg === '-ojson' || arg === '--output=json' || ((arg === '-o' || arg === '--output') && argv[i + 1] === 'json'),
  );
}

/** A stream whose every write is scrubbed first (the scrubber may learn secrets while the command runs). */
function scrubbing(stream: Stream, scrubber: () => Scrubber): Stream {
  return {
    write: (text: string) => stream.write(scrubber().text(text)),
    ...(stream.isTTY !== undefined && { isTTY: stream.isTTY }),
  };
}

/** Runs one command line; returns the exit code (never calls process.exit). */
export async function main(argv: string[], io: Partial<CliIo> = {}, options: { stopSignal?: AbortSignal } = {}): Promise<number> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const env = io.env ?? process.env;
  // Everything the CLI prints (its own output, commander's, errors, --json) goes through one scrubber.
  let scrubber = createScrubber(secretValues(env));
  const protect = (secret: string) => {
    scrubber = scrubber.with([secret]);
  };
  const fullIo: CliIo = {
    stdout: scrubbing(io.stdout ?? process.stdout, () => scrubber),
    stderr: scrubbing(io.stderr ?? process.stderr, () => scrubber),
    env,
  };
  for (const warning of configWarnings(env)) fullIo.stderr.write(`warning: ${warning}\n`);
  const { program, cli, failedCommand } = buildProgram(fullIo, { ...options, protect });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exitCode 0; usage errors were already printed on stderr.
      if (error.exitCode === 0) return EXIT.ok;
      if (asksForJson(argv)) {
        const message = error.message.replace(/^error: /, '').replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)');
        fullIo.stdout.write(
          `${JSON.stringify(envelope(commandPath(failedCommand()), false, {}, { code: 'usage', message, hint: HINTS.usage }), null, 2)}\n`,
        );
      }
      return EXIT.usage;
    }
    throw error;
  }
  return cli.exitCode;
}
