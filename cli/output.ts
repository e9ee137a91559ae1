// Everything the CLI writes goes through here: colours only on a TTY and never with NO_COLOR
// (https://no-color.org), one JSON envelope for -o json, and one way of telling an error (message, fix, hint).
import { stripVTControlCharacters } from 'node:util';
import type { FieldError } from '../shared/errors/field-errors';
import { renderFieldError } from '../shared/errors/field-errors';
import type { LbIdentity } from '../shared/errors/lbsync-error';
import type { CommandErrorCode, ErrorCode } from '../shared/errors/lbsync-error';
import { ERROR_CATALOG, LbSyncError } from '../shared/errors/lbsync-error';
import { QueueHandOffError } from '../shared/adapters/queue';
import { configurationHint, HINTS } from './hints';

export interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface CliIo {
  stdout: Stream;
  stderr: Stream;
  env: NodeJS.ProcessEnv;
}

export const EXIT = {
  ok: 0,
  /** An error: bad configuration, an API or queue failure, a failed reconcile. */
  error: 1,
  /** `plan` and `status` only: the world differs from the targets (drift). */
  drift: 2,
  /** Wrong flags or arguments (commander's usage errors). */
  usage: 64,
} as const;

type Paint = (text: string) => string;
export interface Colors {
  enabled: boolean;
  bold: Paint;
  dim: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  cyan: Paint;
}

const sgr =
  (open: number, close: number): Paint =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`;
const plain: Paint = (text) => text;

export function colorsFor(stream: Stream, env: NodeJS.ProcessEnv, forceOff = false): Colors {
  const enabled = !forceOff && stream.isTTY === true && !(env.NO_COLOR !== undefined && env.NO_COLOR !== '') && env.TERM !== 'dumb';
  const pick = (paint: Paint) => (enabled ? paint : plain);
  return {
    enabled,
    bold: pick(sgr(1, 22)),
    dim: pick(sgr(2, 22)),
    red: pick(sgr(31, 39)),
    green: pick(sgr(32, 39)),
    yellow: pick(sgr(33, 39)),
    cyan: pick(sgr(36, 39)),
  };
}

export type Format = 'text' | 'json';
export const FORMATS: readonly Format[] = ['text', 'json'];

/**
 * What every command prints with -o json, one document on stdout: `ok` is false exactly when the exit code is
 * 1 or 64; `command` is the command's path ("plan", "dlq list"); the command's own fields follow; a failed
 * command carries `error: {code, message, hint?, fieldErrors?, lb?}`. `lbsync doctor -o json` is
 * `{ok, command, checks}`.
 */
export type Envelope = { ok: boolean; command: string; error?: DescribedError } & Record<string, unknown>;

export function envelope(command: string, ok: boolean, payload: Record<string, unknown> = {}, error?: DescribedError): Envelope {
  return { ok, command, ...payload, ...(error && { error }) };
}

export interface Output {
  readonly io: CliIo;
  /** Colours for stdout. */
  readonly c: Colors;
  /** Colours for stderr. */
  readonly ce: Colors;
  readonly format: Format;
  /** The command's path, as the envelope names it: "plan", "dlq list". */
  readonly command: string;
  line(text?: string): void;
  note(text: string): void;
  /** The -o json answer: the envelope {ok, command, ...payload} on stdout. */
  result(ok: boolean, payload?: Record<string, unknown>): void;
  /** Tells an error (on stderr, or as the envelope on stdout with -o json); returns its exit code: 64 for usage, else 1. */
  fail(error: unknown): number;
}

export function createOutput(io: CliIo, options: { noColor?: boolean; format?: Format; command?: string } = {}): Output {
  const c = colorsFor(io.stdout, io.env, options.noColor);
  const ce = colorsFor(io.stderr, io.env, options.noColor);
  const format = options.format ?? 'text';
  const command = options.command ?? 'lbsync';
  const writeJson = (value: unknown) => void io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  return {
    io,
    c,
    ce,
    format,
    command,
    line: (text = '') => void io.stdout.write(`${text}\n`),
    note: (text) => void io.stderr.write(`${text}\n`),
    result: (ok, payload) => writeJson(envelope(command, ok, payload)),
    fail(error) {
      const described = describeError(error);
      if (format === 'json') writeJson(envelope(command, false, {}, described));
      else io.stderr.write(renderError(described, ce));
      return described.code === 'usage' ? EXIT.usage : EXIT.error;
    },
  };
}

export interface DescribedError {
  code: string;
  message: string;
  hint?: string;
  fieldErrors?: FieldError[];
  /** The LB's id and name; the message carries the one kOps' wording uses. */
  lb?: LbIdentity;
}

/** The hint for an error as the CLI tells it: per kind of problem (credentials, targets, queue, network, usage). */
function cliHint(error: LbSyncError): string {
  if (error.code === 'invalid_config') return configurationHint(error.fieldErrors) ?? error.hint;
  if (error.code === 'network_error') return HINTS.network;
  return error.hint;
}

export function describeError(error: unknown): DescribedError {
  if (error instanceof LbSyncError) {
    return {
      code: error.code,
      message: error.message,
      hint: cliHint(error),
      ...(error.fieldErrors && { fieldErrors: error.fieldErrors }),
      ...(error.lb && { lb: error.lb }),
    };
  }
  if (error instanceof QueueHandOffError) {
    return { code: error.code, message: error.message, hint: ERROR_CATALOG.queue_unavailable.hint };
  }
  if (error instanceof CliError) {
    const hint = error.hint ?? (error.code === 'usage' ? HINTS.usage : undefined);
    return {
      code: error.code,
      message: error.message,
      ...(hint && { hint }),
      ...(error.fieldErrors && { fieldErrors: error.fieldErrors }),
    };
  }
  return { code: 'unexpected', message: (error as Error)?.message ?? String(error) };
}

/** An error of the CLI's own (bad flag combination, nothing found), told like the others. */
export class CliError extends Error {
  constructor(
    /** A code of the catalogs, so docs/troubleshooting.md has its entry. */
    readonly code: ErrorCode | CommandErrorCode,
    message: string,
    readonly hint?: string,
    readonly fieldErrors?: FieldError[],
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function renderError(error: DescribedError, c: Colors): string {
  // A validation message already lists its field errors; print them once, with the fix on its own line.
  const [head] = error.message.split('\n');
  const lines = [`${c.red(c.bold('error'))} ${c.dim(`[${error.code}]`)} ${error.fieldErrors ? head : error.message}`];
  for (const fe of error.fieldErrors ?? []) lines.push(`  ${renderFieldLine(fe, c)}`);
  if (error.hint) lines.push(`  ${c.dim('hint:')} ${error.hint}`);
  return `${lines.join('\n')}\n`;
}

export function renderFieldLine(fe: FieldError, c: Colors): string {
  const text = renderFieldError(fe);
  const at = text.indexOf('; fix: ');
  const what = at >= 0 ? text.slice(0, at) : text;
  return `${c.yellow(fe.path)}${what.slice(fe.path.length)}\n      ${c.dim('fix:')} ${fe.fix}`;
}

/** Pads every column but the last to the widest cell. */
export function table(rows: string[][], gap = 2): string[] {
  const visible = (s: string) => stripVTControlCharacters(s).length;
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, visible(cell));
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visible(cell) + gap)))
      .join('')
      .trimEnd(),
  );
}

/** "3 targets", "1 target". */
export const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;
