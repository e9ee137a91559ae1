import type { Logger } from './log';
import { invocationLogger } from './log';
import type { PlatformContext, PlatformEvent, PlatformResponse } from './platform';
import { jsonResponse, requestId } from './platform';
import type { FunctionRuntime } from './runtime';
import { createFunctionRuntime } from './runtime';

export type Handle = (event: PlatformEvent, context?: PlatformContext) => Promise<PlatformResponse>;
type Run = (event: PlatformEvent, runtime: FunctionRuntime, logger: Logger) => Promise<PlatformResponse>;

/**
 * The part every function shares: the runtime read once per process, a per-invocation logger
 * with Powertools' keys, and a configuration error turned into a logged 500 rather than a crash.
 */
export function functionShell(name: string, run: Run, configErrorBody: (message: string) => unknown): Handle {
  let runtime: FunctionRuntime | undefined;
  let coldStart = true;
  return async (event, context = {}) => {
    const wasCold = coldStart;
    coldStart = false;
    try {
      runtime ??= createFunctionRuntime(`lbsync-${name}`);
      const id = requestId(event);
      const logger = invocationLogger(runtime.logger, {
        functionName: context.functionName || name,
        coldStart: wasCold,
        ...(context.memoryLimitInMb !== undefined && { memorySizeMb: context.memoryLimitInMb }),
        ...(id && { requestId: id }),
      });
      return await run(event, runtime, logger);
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      if (runtime) runtime.logger.error(message);
      else console.error(JSON.stringify({ level: 'ERROR', timestamp: new Date().toISOString(), service: `lbsync-${name}`, message }));
      return jsonResponse(500, configErrorBody(message));
    }
  };
}
