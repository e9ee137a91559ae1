import type { Logger } from 'pino';
import pino from 'pino';
import { LbSyncError } from '../errors/lbsync-error';
import type { Scrubber } from '../outbound/scrub';
import { createScrubber, REDACTED, SECRET_FIELDS } from '../outbound/scrub';

export type { Logger } from 'pino';

export { REDACTED } from '../outbound/scrub';

/** Paths that may carry credentials, wherever they appear in a log object (the names are scrub.ts'). */
const REDACT_PATHS = [
  ...SECRET_FIELDS.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name)).flatMap((name) => [name, `*.${name}`]),
  'headers.authorization',
  '*.headers.authorization',
  'headers["x-auth-token"]',
  '*.headers["x-auth-token"]',
];

export interface LoggerOptions {
  service: string;
  level?: string;
  /** json (default, for the platform's log pipeline) or pretty (one readable line per event, for people). */
  format?: 'json' | 'pretty';
  /** Literal secret values to scrub from any string that reaches the log (a second guard, beside the paths). */
  secrets?: readonly string[];
  /** Or the scrubber itself (its secrets, plus URL credentials); wins over `secrets`. */
  scrubber?: Scrubber;
  destination?: pino.DestinationStream;
  /** Keys every line carries besides `service` (a shadow deployment's `mode`). */
  base?: Record<string, string>;
}

/** An error on a log line, in Powertools' shape; what our own errors add to it comes after, in snake_case. */
export interface LoggedError {
  name: string;
  /** file:line of the first stack frame that names one. */
  location: string;
  message: string;
  stack?: string;
  cause?: unknown;
  [attribute: string]: unknown;
}

const MAX_CAUSE_DEPTH = 5;

/** Powertools' getCodeLocation: the file and line of the first stack frame that has them. */
function codeLocation(stack: string | undefined): string {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const match = /\(([^)]*?):(\d+):\d+\)\\?$/.exec(line) ?? /^\s*at (\S+?):(\d+):\d+$/.exec(line);
    if (match) return `${match[1]}:${Number(match[2])}`;
  }
  return '';
}

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const POWERTOOLS_KEYS = new Set(['name', 'message', 'stack', 'cause']);

/**
 * What an error carries besides Powertools' keys. For our own errors (LbSyncError and its kinds), every own field, in
 * snake_case (code, error_class, hint, retry_after_ms, lb, ...). For another library's, only the usual diagnostic
 * fields, a system error's code and an HTTP status. Never its other properties: an SDK error may contain a request
 * or a response.
 */
function ownAttributes(error: Error): Record<string, unknown> {
  if (error instanceof LbSyncError) {
    return Object.fromEntries(
      Object.entries(error)
        .filter(([key, value]) => !POWERTOOLS_KEYS.has(key) && value !== undefined)
        .map(([key, value]) => [snakeCase(key), value]),
    );
  }
  const { code, status } = error as { code?: unknown; status?: unknown };
  return { ...(typeof code === 'string' && { code }), ...(typeof status === 'number' && { status }) };
}

function formatCause(cause: unknown, depth: number): unknown {
  if (!(cause instanceof Error)) return cause;
  return depth < MAX_CAUSE_DEPTH
    ? formatError(cause, depth + 1)
    : { name: cause.name, location: codeLocation(cause.stack), message: cause.message };
}

/**
 * The one serializer of errors on log lines (Powertools' formatError): `{name, location, message, stack, cause}`,
 * the cause in the same shape. Every logger made here applies it to the `error` key, so a log line passes the
 * error itself: `log.warn({ error }, ...)`. Secrets are scrubbed from the whole line by the logger's destination.
 */
export function formatError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error))
    return { name: 'Error', location: '', message: typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error)) };
  const cause = formatCause(error.cause, depth);
  return {
    name: error.name,
    location: codeLocation(error.stack),
    message: error.message,
    ...(error.stack !== undefined && { stack: error.stack }),
    ...(cause !== undefined && { cause }),
    ...ownAttributes(error),
  };
}

/** One logger per process, Powertools-style keys: level, message, timestamp, service. */
export function createLogger(options: LoggerOptions): Logger {
  const scrubber = options.scrubber ?? createScrubber(options.secrets ?? []);
  const scrub = (line: string) => scrubber.text(line);
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  const render = options.format === 'pretty' ? prettyLine : (line: string) => line;
  const scrubbingDestination: pino.DestinationStream = { write: (line: string) => destination.write(render(scrub(line))) };
  return pino(
    {
      level: options.level ?? 'info',
      messageKey: 'message',
      errorKey: 'error',
      base: { service: options.service, ...options.base },
      timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label.toUpperCase() }) },
      serializers: { error: (value: unknown) => (value instanceof Error ? formatError(value) : value) },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
    },
    scrubbingDestination,
  );
}

export interface InvocationInfo {
  functionName: string;
  memorySizeMb?: number;
  requestId?: string;
  coldStart: boolean;
}

/** The per-invocation child: persistent keys every line of this invocation carries. */
export function invocationLogger(base: Logger, info: InvocationInfo): Logger {
  return base.child({
    cold_start: info.coldStart,
    function_name: info.functionName,
    ...(info.memorySizeMb !== undefined && { function_memory_size: info.memorySizeMb }),
    ...(info.requestId && { function_request_id: info.requestId }),
  });
}

const PERSISTENT_KEYS = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'cold_start',
  'function_name',
  'function_memory_size',
  'function_request_id',
  'event_id',
  'target',
  'attempt',
]);

/** "20:10:05.123 INFO  reconcile demo.k8s.local evt-1234 #1  plan: ..." for the local stack and CLI. */
export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof entry.timestamp === 'string' ? entry.timestamp.slice(11, 23) : '';
  const level = String(entry.level ?? '').padEnd(5);
  const who = String(entry.function_name ?? entry.service ?? '').replace(/^lbsync-/, '');
  const scope = [
    entry.target,
    typeof entry.event_id === 'string' ? entry.event_id.slice(0, 12) : undefined,
    entry.attempt !== undefined ? `#${entry.attempt}` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(' ');
  const extra = Object.entries(entry).filter(([key]) => !PERSISTENT_KEYS.has(key) && !['plan', 'pool', 'warning'].includes(key));
  const tail = entry.level === 'DEBUG' && extra.length > 0 ? `  ${JSON.stringify(Object.fromEntries(extra))}` : '';
  return `${time} ${level} ${who.padEnd(9)} ${scope ? `${scope}  ` : ''}${String(entry.message ?? '')}${tail}\n`;
}
