import pino from 'pino';
import type { Logger } from 'pino';

export type { Logger } from 'pino';

export const REDACTED = '[redacted]';

/** Paths that may carry credentials, wherever they appear in a log object. */
const REDACT_PATHS = [
  'secretKey', '*.secretKey', 'accessKey', '*.accessKey', 'secretAccessKey', '*.secretAccessKey',
  'accessKeyId', '*.accessKeyId', 'token', '*.token', 'password', '*.password',
  'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'headers["x-auth-token"]', '*.headers["x-auth-token"]', 'env', '*.env',
];

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Literal secret values to scrub from any string that reaches the log (belt and braces over paths). */
  secrets?: readonly string[];
  destination?: pino.DestinationStream;
}

function scrubber(secrets: readonly string[]) {
  const needles = secrets.filter((s) => s.length >= 6);
  if (needles.length === 0) return (line: string) => line;
  return (line: string) => needles.reduce((text, secret) => text.split(secret).join(REDACTED), line);
}

/** One logger per process, Powertools-style keys: level, message, timestamp, service. */
export function createLogger(options: LoggerOptions): Logger {
  const scrub = scrubber(options.secrets ?? []);
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  const scrubbingDestination: pino.DestinationStream = { write: (line: string) => destination.write(scrub(line)) };
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
