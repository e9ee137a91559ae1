import { LbSyncError } from '../errors/lbsync-error';
import { secretValues } from './config';
import type { Logger } from './log';
import { formatError, invocationLogger } from './log';
import type { LineFields } from './log-schema';
import type { PlatformContext, PlatformEvent, PlatformResponse } from './request-response';
import { jsonResponse, requestId } from './request-response';
import type { FunctionRuntime } from './runtime';
import { createFunctionRuntime } from './runtime';
import { shippedTargetsPath } from './shipped-targets';
import type { Scrubber } from '../outbound/scrub';
import { createScrubber } from '../outbound/scrub';

export type Handle = (event: PlatformEvent, context?: PlatformContext) => Promise<PlatformResponse>;
type Run = (event: PlatformEvent, runtime: FunctionRuntime, logger: Logger) => Promise<PlatformResponse>;
/** The 500's body when the function could not run: its message (scrubbed) and code (invalid_config, or unexpected). */
type FailureBody = (message: string, code: string) => unknown;

/**
 * The part every function shares. It reads the runtime once per process and makes a logger per invocation, with
 * Powertools' keys. A configuration error becomes a logged 500, not a crash. Every answer is scrubbed of secrets,
 * because an API error that echoes a key must not reach the caller.
 */
export function functionShell(name: string, run: Run, failureBody: FailureBody): Handle {
  let runtime: FunctionRuntime | undefined;
  let coldStart = true;
  return async (event, context = {}) => {
    const wasCold = coldStart;
    coldStart = false;
    const startedMs = Date.now();
    let logger: Logger | undefined;
    try {
      runtime ??= createFunctionRuntime(`lbsync-${name}`);
      const id = requestId(event);
      logger = invocationLogger(runtime.logger, {
        functionName: context.functionName || name,
        coldStart: wasCold,
        ...(context.memoryLimitInMb !== undefined && { memorySizeMb: context.memoryLimitInMb }),
        ...(id && { requestId: id }),
      });
      logger.info({ log_type: 'invocation_start' } satisfies LineFields<'invocation_start'>, 'invocation started');
      const answer = scrubbed(await run(event, runtime, logger), runtime.scrubber);
      logEnd(logger, answer.statusCode, startedMs);
      return answer;
    } catch (error) {
      const scrubber = runtime?.scrubber ?? createScrubber(secretValues(process.env, shippedTargetsPath()));
      const message = scrubber.text((error as Error)?.message ?? String(error));
      const code = failureCode(error);
      const failed: LineFields<'function_failed'> = { log_type: 'function_failed', code };
      if (runtime) runtime.logger.error({ ...failed, error }, message);
      else
        console.error(
          JSON.stringify({
            level: 'ERROR',
            timestamp: new Date().toISOString(),
            service: `lbsync-${name}`,
            message,
            ...failed,
            error: scrubber.value(formatError(error)),
          }),
        );
      if (logger) logEnd(logger, 500, startedMs);
      return scrubbed(jsonResponse(500, failureBody(message, code)), scrubber);
    }
  };
}

/** The invocation's last line: its status, its duration and the process's memory (an invocation cut short has none). */
function logEnd(logger: Logger, status: number, startedMs: number): void {
  const end: LineFields<'invocation_end'> = {
    log_type: 'invocation_end',
    status,
    duration_ms: Math.max(0, Date.now() - startedMs),
    memory_mb: Math.round(process.memoryUsage.rss() / (1024 * 1024)),
  };
  logger.info(end, `invocation answered ${status} in ${end.duration_ms} ms`);
}

function scrubbed(response: PlatformResponse, scrubber: Scrubber): PlatformResponse {
  return { ...response, body: scrubber.text(response.body) };
}

/** Our error's code, else unexpected. It is mostly invalid_config: a function fails here when its configuration is invalid. */
function failureCode(error: unknown): string {
  return error instanceof LbSyncError ? error.code : 'unexpected';
}
