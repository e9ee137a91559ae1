// The seam between commander and a command: each command's action returns its exit code, and any
// throw is told on stderr (or as the JSON envelope with -o json) with exit 1 (64 for usage).
import type { Command } from 'commander';
import type { CliIo, Format, Output } from './output';
import { CliError, createOutput } from './output';

export interface Cli {
  /** The environment here carries --profile as SCW_PROFILE once a command runs. */
  io: CliIo;
  exitCode: number;
  /** Set once the program is parsed (it depends on --no-color and -o). */
  output(command: Command): Output;
  /** A secret read while running (a token from a file or a named variable): never printed from now on. */
  protect(secret: string): void;
}

/** The options every command takes, given before or after the command's name (commander's global options). */
export interface GlobalOptions {
  output?: Format;
  json?: boolean;
  profile?: string;
  color?: boolean;
}

export function createCli(io: CliIo, protect: (secret: string) => void = () => undefined): Cli {
  return {
    io,
    exitCode: 0,
    protect,
    output(command) {
      const globals = rootOf(command).opts() as GlobalOptions;
      return createOutput(io, { noColor: globals.color === false, format: formatOf(globals), command: commandPath(command) });
    },
  };
}

function rootOf(command: Command): Command {
  let c = command;
  while (c.parent) c = c.parent;
  return c;
}

/** "plan", "dlq list": the command's names below the program. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ') || command.name();
}

/** -o json|text; --json is -o json (given with -o text, the two disagree: a usage error). */
export function formatOf(globals: GlobalOptions): Format {
  return globals.json ? 'json' : (globals.output ?? 'text');
}

function conflictingFormats(globals: GlobalOptions): CliError | undefined {
  if (globals.json && globals.output === 'text') return new CliError('usage', '--json and -o text disagree: give one of them');
  return undefined;
}

/** --profile selects a profile of the scw config file, as SCW_PROFILE does (the flag wins over the variable). */
export function environmentWith(env: NodeJS.ProcessEnv, globals: GlobalOptions): NodeJS.ProcessEnv {
  const profile = globals.profile?.trim();
  return profile ? { ...env, SCW_PROFILE: profile } : env;
}

/** Wraps an action: the last commander argument is the Command; -o decides how its result and errors are told. */
export function act<O>(cli: Cli, run: (options: O, out: Output, command: Command) => Promise<number>) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const options = command.opts() as O;
    const globals = rootOf(command).opts() as GlobalOptions;
    const out = cli.output(command);
    cli.io = { ...cli.io, env: environmentWith(cli.io.env, globals) };
    try {
      const conflict = conflictingFormats(globals);
      if (conflict) throw conflict;
      cli.exitCode = await run(options, out, command);
    } catch (error) {
      cli.exitCode = out.fail(error);
    }
  };
}

/** "Examples:" and "Exit codes:" blocks appended to a command's --help (and what -o json prints, when given). */
export function helpText(examples: string[], exitCodes: [number, string][], json?: string): string {
  const ex = examples.map((e) => `  $ ${e}`).join('\n');
  const codes = exitCodes.map(([code, what]) => `  ${String(code).padEnd(3)} ${what}`).join('\n');
  const shape = json ? `\n\nWith -o json (or --json): ${json}` : '';
  return `\nExamples:\n${ex}\n\nExit codes:\n${codes}${shape}\n`;
}

/** Collects a repeatable option: --target a --target b, or --target a,b. */
export function collect(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== ''),
  ];
}

/**
 * A flag's whole number, written in decimal digits only (Number() would also take 0x10, 1e3 or " "), from `min` to
 * `max`; anything else is a usage error naming the flag.
 */
export function wholeNumber(flag: string, text: string, range: { min: number; max?: number; unit?: string }): number {
  const n = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || n < range.min || (range.max !== undefined && n > range.max)) {
    const bounds = range.max === undefined ? `of at least ${range.min}` : `from ${range.min} to ${range.max}`;
    throw new CliError(
      'usage',
      `${flag} must be a whole number${range.unit ? ` of ${range.unit}` : ''} ${bounds}, in digits, got "${text}"`,
    );
  }
  return n;
}
