// What a command needs from the environment, read the same way the functions read it (shared/config.ts).
import type { EventQueue, QueueSettings } from '../shared/adapters/queue';
import { createEventQueue } from '../shared/adapters/queue';
import type { ScalewayGateway } from '../shared/adapters/scaleway';
import { createScalewayGateway } from '../shared/adapters/scaleway';
import type { QueueEnv } from '../shared/config';
import { loadTargets, queueEnvFromEnv } from '../shared/config';
import { validationError } from '../shared/errors';
import type { Target } from '../shared/schemas/target';
import { resolveScalewayCredentials } from './credentials';

/** LBSYNC_TARGETS / LBSYNC_CONFIG, or the file given with --file (which then wins over both). */
export function configuredTargets(env: NodeJS.ProcessEnv, file?: string): Target[] {
  return loadTargets(file ? { ...env, LBSYNC_TARGETS: undefined, LBSYNC_CONFIG: file } : env);
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
    throw validationError(
      'invalid_config',
      '--target',
      unknown.map((n) => ({ path: '--target', message: `no target named "${n}" in the configuration`, received: n, allowed: known, fix: `use one of: ${known.join(', ')}` })),
    );
  }
  return targets.filter((t) => names.includes(t.name));
}

export function scalewayGateway(env: NodeJS.ProcessEnv): ScalewayGateway {
  return createScalewayGateway(resolveScalewayCredentials(env).settings);
}

export interface QueueAccess extends QueueEnv {
  queue: EventQueue;
}

export function queueAccess(env: NodeJS.ProcessEnv): QueueAccess {
  const queueEnv = queueEnvFromEnv(env);
  return { ...queueEnv, queue: createEventQueue(queueSettingsOf(queueEnv)) };
}

function queueSettingsOf(q: Pick<QueueEnv, 'endpoint' | 'region' | 'accessKeyId' | 'secretAccessKey'>): QueueSettings {
  return { ...(q.endpoint && { endpoint: q.endpoint }), region: q.region, accessKeyId: q.accessKeyId, secretAccessKey: q.secretAccessKey };
}

/** SQS credentials only (provision runs before the queue URLs exist). */
export function queueSettingsFromEnv(env: NodeJS.ProcessEnv): QueueSettings {
  // queueEnvFromEnv checks the credentials with the functions' own messages; the URLs are not needed yet.
  const q = queueEnvFromEnv({ ...env, RECONCILE_QUEUE_URL: 'unused', DEAD_LETTER_QUEUE_URL: 'unused' });
  return queueSettingsOf(q);
}
