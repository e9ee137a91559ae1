// The seam between commander and a command: each command's action returns its exit code, and any
// throw is told on stderr (or as JSON with --json) with exit 1.
import type { Command } from 'commander';
import type { CliIo, Output } from './output';
import { CliError, createOutput, EXIT } from './output';

export interface Cli {
  io: CliIo;
  exitCode: number;
  /** Set once the program is parsed (it depends on --no-color). */
  output(command: Command): Output;
  /** A secret read while running (a token from a file or a named variable): never printed from now on. */
  protect(secret: string): void;
}

export function createCli(io: CliIo, protect: (secret: string) => void = () => undefined): Cli {
  return {
    io,
    exitCode: 0,
    protect,
    output(command) {
      const root = rootOf(command);
      return createOutput(io, { noColor: root.opts().color === false });
    },
  };
}

function rootOf(command: Command): Command {
  let c = command;
  while (c.parent) c = c.parent;
  return c;
}

/** Wraps an action: the last commander argument is the Command; its --json decides how errors are told. */
export function act<O>(cli: Cli, run: (options: O, out: Output, command: Command) => Promise<number>) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const options = command.opts() as O;
    const out = cli.output(command);
    try {
      cli.exitCode = await run(options, out, command);
    } catch (error) {
      const usage = error instanceof CliError && error.code === 'usage';
      cli.exitCode = usage ? (out.fail(error), EXIT.usage) : out.fail(error, (options as { json?: boolean }).json === true);
    }
  };
}

/** "Examples:" and "Exit codes:" blocks appended to a command's --help. */
export function helpText(examples: string[], exitCodes: [number, string][]): string {
  const ex = examples.map((e) => `  $ ${e}`).join('\n');
  const codes = exitCodes.map(([code, what]) => `  ${String(code).padEnd(3)} ${what}`).join('\n');
  return `\nExamples:\n${ex}\n\nExit codes:\n${codes}\n`;
}

/** Collects a repeatable option: --target a --target b, or --target a,b. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')];
}
