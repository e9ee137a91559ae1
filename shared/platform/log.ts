import pino from 'pino';
import type { Logger } from 'pino';
import type { Scrubber } from './scrub';
import { createScrubber, REDACTED, SECRET_FIELDS } from './scrub';

export type { Logger } from 'pino';

export { REDACTED } from './scrub';

/** Paths that may carry credentials, wherever they appear in a log object (the names are scrub.ts'). */
const REDACT_PATHS = [
  ...SECRET_FIELDS.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name)).flatMap((name) => [name, `*.${name}`]),
  'headers.authorization', '*.headers.authorization', 'headers["x-auth-token"]', '*.headers["x-auth-token"]',
];

export interface LoggerOptions {
  service: string;
  level?: string;
  /** json (default, for the platform's log pipeline) or pretty (one readable line per event, for people). */
  format?: 'json' | 'pretty';
  /** Literal secret values to scrub from any string that reaches the log (belt and braces over paths). */
  secrets?: readonly string[];
  /** Or the scrubber itself (its secrets, plus URL credentials); wins over `secrets`. */
  scrubber?: Scrubber;
  destination?: pino.DestinationStream;
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
      base: { service: options.service },
      timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label.toUpperCase() }) },
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

const PERSISTENT_KEYS = new Set(['level', 'message', 'timestamp', 'service', 'cold_start', 'function_name', 'function_memory_size', 'function_request_id', 'event_id', 'target', 'attempt']);

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
  const scope = [entry.target, typeof entry.event_id === 'string' ? entry.event_id.slice(0, 12) : undefined, entry.attempt !== undefined ? `#${entry.attempt}` : undefined]
    .filter((part) => part !== undefined)
    .join(' ');
  const extra = Object.entries(entry).filter(([key]) => !PERSISTENT_KEYS.has(key) && !['plan', 'pool', 'warning'].includes(key));
  const tail = entry.level === 'DEBUG' && extra.length > 0 ? `  ${JSON.stringify(Object.fromEntries(extra))}` : '';
  return `${time} ${level} ${who.padEnd(9)} ${scope ? `${scope}  ` : ''}${String(entry.message ?? '')}${tail}\n`;
}
