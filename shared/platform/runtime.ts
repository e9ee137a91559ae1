import type { EventQueue } from '../adapters/queue';
import { createEventQueue } from '../adapters/queue';
import type { Target } from '../schemas/target';
import type { Env, QueueEnv, RuntimeConfig } from './config';
import { configWarnings, loadTargets, queueEnvFromEnv, runtimeConfigFromEnv, secretValues } from './config';
import type { Logger } from './log';
import { createLogger } from './log';
import type { Scrubber } from '../outbound/scrub';
import { createScrubber } from '../outbound/scrub';
import { shippedTargetsPath } from './shipped-targets';

/** What a function needs, read once per process from the environment; each part only when first used. */
export interface FunctionRuntime {
  readonly logger: Logger;
  readonly config: RuntimeConfig;
  /** Applied to every log line, answer and dead-letter record this process writes. */
  readonly scrubber: Scrubber;
  targets(): Target[];
  targetsByName(): ReadonlyMap<string, Target>;
  queueEnv(): QueueEnv;
  queue(): EventQueue;
}

/** Runs make() on the first call only; later calls return its value. */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/** `shipped`: the targets file the bundle ships (none when run from source). */
/** Like once, and a failure is kept too: make() runs once whether it returns or throws. */
function onceEvenIfThrown<T>(make: () => T): () => T {
  const outcome = once((): { value: T } | { error: unknown } => {
    try {
      return { value: make() };
    } catch (error) {
      return { error };
    }
  });
  return () => {
    const made = outcome();
    if ('error' in made) throw made.error;
    return made.value;
  };
}

export function createFunctionRuntime(service: string, env: Env = process.env, shipped = shippedTargetsPath()): FunctionRuntime {
  const config = runtimeConfigFromEnv(env);
  // The targets are parsed once per process: the scrubber needs their key variables at once, and a shipped fleet
  // (1,000 targets, 300 KiB) parsed a second time would add to every cold start. A bad configuration is kept and
  // thrown each time the targets are asked for.
  const targets = onceEvenIfThrown(() => loadTargets(env, undefined, shipped));
  const scrubber = createScrubber(secretValues(env, shipped, targets));
  // A shadow deployment marks every line it prints. A writing deployment adds no mode, so its lines stay as before.
  const logger = createLogger({
    service,
    level: config.logLevel,
    format: config.logFormat,
    scrubber,
    ...(config.mode === 'shadow' && { base: { mode: config.mode } }),
  });
  for (const warning of configWarnings(env)) logger.warn({ warning }, warning);
  const targetsByName = once(() => new Map(targets().map((t) => [t.name, t])));
  const queueEnv = once(() => queueEnvFromEnv(env));
  const queue = once(() => {
    const q = queueEnv();
    return createEventQueue({
      ...(q.endpoint && { endpoint: q.endpoint }),
      region: q.region,
      accessKeyId: q.accessKeyId,
      secretAccessKey: q.secretAccessKey,
    });
  });
  return { logger, config, scrubber, targets, targetsByName, queueEnv, queue };
}
