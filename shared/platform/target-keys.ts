// The API key each target's calls authenticate with: its own, read from the variables its `credentials` name, or
// the deployment's. A key is read when first needed and only ever named by its variables in what is told
// (docs/configuration.md, "A fleet: several projects, organizations and keys").
import type { ScalewayGateway, ScalewaySettings } from '../adapters/scaleway';
import { createScalewayGateway } from '../adapters/scaleway';
import { validationError } from '../errors/lbsync-error';
import type { FieldError } from '../errors/field-errors';
import { assertApiKeyShape } from '../schemas/api-key';
import type { Target } from '../schemas/target';

export type Env = Record<string, string | undefined>;

export interface KeyPair {
  accessKey: string;
  secretKey: string;
}

/** The key of every target without credentials. */
export const DEPLOYMENT_KEY = 'deployment';

/** Which key serves a target, by name only: `deployment`, or its variables `ACCESS_VAR/SECRET_VAR`. */
export function keyIdOf(target: Pick<Target, 'credentials'>): string {
  const c = target.credentials;
  return c ? `${c.accessKeyEnv}/${c.secretKeyEnv}` : DEPLOYMENT_KEY;
}

/** The key as messages name it: its variables, never its value. */
export function keyLabel(target: Pick<Target, 'credentials'>, deploymentLabel = "the deployment's key"): string {
  const c = target.credentials;
  return c ? `the key in ${c.accessKeyEnv} / ${c.secretKeyEnv}` : deploymentLabel;
}

const value = (env: Env, name: string): string | undefined => {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
};

/**
 * The target's own key from the variables its credentials name; undefined for a target without credentials (the
 * deployment's key serves it). An unset variable is invalid_config naming the target and the variable, a malformed
 * key invalid_credentials naming the variable: only this target fails, the others go on. `protect` learns each
 * value read (the CLI's output scrubber).
 */
export function targetKeyPair(target: Target, env: Env, protect?: (secret: string) => void): KeyPair | undefined {
  const c = target.credentials;
  if (!c) return undefined;
  const accessKey = value(env, c.accessKeyEnv);
  const secretKey = value(env, c.secretKeyEnv);
  for (const secret of [accessKey, secretKey]) if (secret !== undefined) protect?.(secret);
  const unset: FieldError[] = [
    ...(accessKey === undefined ? [unsetVariable(target, c.accessKeyEnv, 'accessKeyEnv', 'access key')] : []),
    ...(secretKey === undefined ? [unsetVariable(target, c.secretKeyEnv, 'secretKeyEnv', 'secret key')] : []),
  ];
  if (unset.length > 0) throw validationError('invalid_config', `the credentials of target "${target.name}"`, unset);
  const key = { accessKey: accessKey as string, secretKey: secretKey as string };
  assertApiKeyShape(key, {
    accessKey: `${c.accessKeyEnv} (credentials of target "${target.name}")`,
    secretKey: `${c.secretKeyEnv} (credentials of target "${target.name}")`,
  });
  return key;
}

function unsetVariable(target: Target, variable: string, field: string, half: string): FieldError {
  return {
    path: variable,
    message: `is not set; target "${target.name}" names it in credentials.${field}`,
    fix: `set ${variable} to the ${half} of the IAM API key for target "${target.name}" (deployed: under the reconcile and watch functions' \`secret\`), or remove the target's credentials so that the deployment's key serves it`,
  };
}

/**
 * The gateway for a target: one per key pair, made on first use, with the deployment's connection (API URL,
 * project, timeouts, owner id) and the target's key (or the deployment's). Every call made through it
 * authenticates with that key; a target never borrows another's. `extra` is what this invocation adds (its
 * deadline, its event id).
 */
export function targetGateways(
  deployment: () => ScalewaySettings,
  env: Env,
  extra: Partial<ScalewaySettings> = {},
  protect?: (secret: string) => void,
): (target: Target) => ScalewayGateway {
  const made = new Map<string, ScalewayGateway>();
  return (target) => {
    const id = keyIdOf(target);
    const known = made.get(id);
    if (known) return known;
    const gateway = createScalewayGateway({ ...deployment(), ...extra, ...targetKeyPair(target, env, protect) });
    made.set(id, gateway);
    return gateway;
  };
}
