// What a command needs from the environment, read the same way the functions read it (shared/platform/config.ts).
import type { EventQueue, QueueSettings } from '../shared/adapters/queue';
import { createEventQueue } from '../shared/adapters/queue';
import type { ScalewayGateway } from '../shared/adapters/scaleway';
import { createScalewayGateway } from '../shared/adapters/scaleway';
import type { QueueEnv } from '../shared/platform/config';
import { loadTargets, queueConnectionFromEnv, queueEnvFromEnv, queueUrlFromEnv } from '../shared/platform/config';
import { LbSyncError, validationError } from '../shared/errors/lbsync-error';
import { gatewayPerKey } from '../shared/platform/target-keys';
import { didYouMean } from '../shared/schemas/suggest';
import type { Target } from '../shared/schemas/target';
import { resolveScalewayCredentials } from './credentials';
import { UNKNOWN_TARGET_HINT } from './hints';
import { CliError } from './output';

/** LBSYNC_TARGETS / LBSYNC_CONFIG, or the file given with --file (which then wins over both, and names its errors). */
export function configuredTargets(env: NodeJS.ProcessEnv, file?: string): Target[] {
  return file ? loadTargets({ ...env, LBSYNC_TARGETS: undefined, LBSYNC_CONFIG: file }, file) : loadTargets(env);
}

/** Where configuredTargets reads the targets from, as an operator names it: the --file, or the variable that wins. */
export function targetsSource(env: NodeJS.ProcessEnv, file?: string): string {
  if (file) return file;
  if (env.LBSYNC_TARGETS?.trim()) return 'LBSYNC_TARGETS';
  const config = env.LBSYNC_CONFIG?.trim();
  return config ? `LBSYNC_CONFIG (${config})` : 'LBSYNC_TARGETS';
}

export function targetsConfigured(env: NodeJS.ProcessEnv): boolean {
  return !!(env.LBSYNC_TARGETS?.trim() || env.LBSYNC_CONFIG?.trim());
}

/** The targets named with --target (all when none), failing on a name the configuration lacks. */
export function selectTargets(targets: readonly Target[], names: readonly string[] | undefined): Target[] {
  if (!names || names.length === 0) return [...targets];
  const known = targets.map((t) => t.name);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    // A flag value the configuration does not have: bad usage (exit 64), as any other bad flag value.
    const fieldErrors = unknown.map((n) => ({
      path: '--target',
      message: `no target named "${n}" in the configuration${didYouMean(n, known)}`,
      received: n,
      allowed: known,
      fix: known.length > 0 ? `use one of: ${known.join(', ')}` : 'configure the target first',
    }));
    throw new CliError('usage', validationError('invalid_config', '--target', fieldErrors).message, UNKNOWN_TARGET_HINT, fieldErrors);
  }
  return targets.filter((t) => names.includes(t.name));
}

/** The CLI's own gateway: its key (SCW_* or the scw profile), for the checks that concern no target. */
export function scalewayGateway(env: NodeJS.ProcessEnv): ScalewayGateway {
  return createScalewayGateway(resolveScalewayCredentials(env).settings);
}

/**
 * The gateway for one target, fresh (its call count is that target's cost): its own key (its credentials' variables,
 * read from this environment) or the CLI's, with the CLI's connection. A target whose key cannot be read gets the
 * error instead, and fails alone.
 */
export function targetGateway(
  env: NodeJS.ProcessEnv,
  target: Target,
  protect?: (secret: string) => void,
): { gateway: ScalewayGateway } | { error: LbSyncError } {
  const { settings } = resolveScalewayCredentials(env);
  try {
    return { gateway: gatewayPerKey(env, (key) => createScalewayGateway({ ...settings, ...key }), protect)(target) };
  } catch (error) {
    if (error instanceof LbSyncError) return { error };
    throw error;
  }
}

/** A queue client and the queue URL a command needs; only that URL's variable is required. */
export function queueFor(env: NodeJS.ProcessEnv, url: 'RECONCILE_QUEUE_URL' | 'DEAD_LETTER_QUEUE_URL'): { queue: EventQueue; url: string } {
  return { queue: createEventQueue(queueConnectionFromEnv(env)), url: queueUrlFromEnv(env, url) };
}

/** Both queues (dead-letter commands read one and redrive into the other). */
export function queueAccess(env: NodeJS.ProcessEnv): QueueEnv & { queue: EventQueue } {
  const queueEnv = queueEnvFromEnv(env);
  return { ...queueEnv, queue: createEventQueue(queueEnv) };
}

/** SQS credentials only (provision runs before the queue URLs exist). */
export function queueSettingsFromEnv(env: NodeJS.ProcessEnv): QueueSettings {
  return queueConnectionFromEnv(env);
}

/**
 * The reconcile function's timeout in seconds, as `--function-timeout` defaults it: LBSYNC_FUNCTION_TIMEOUT_MS, the
 * variable the function itself reads (so the CLI run with a deployment's environment agrees with it), else 60
 * (serverless.yml's timeout).
 */
export function defaultFunctionTimeoutSeconds(env: NodeJS.ProcessEnv): string {
  // Decimal digits only, as the function reads it (shared/platform/config.ts); else the next source.
  const ms = env.LBSYNC_FUNCTION_TIMEOUT_MS?.trim() ?? '';
  if (/^\d+$/.test(ms) && Number(ms) > 0) return String(Math.ceil(Number(ms) / 1000));
  return '60';
}
