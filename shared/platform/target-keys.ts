// The API key each target's calls authenticate with: its own, read from the variables its `credentials` name, or
// else the deployment's. A key is read when first needed. Messages only ever name its variables, never its value
// (docs/configuration.md, "A fleet"). No SDK is imported here: each function passes in how to make its gateway from a
// key, so each bundle keeps only its own SDKs.
import { keyIdOf } from '../core/target-accounts';
import { validationError } from '../errors/lbsync-error';
import type { FieldError } from '../errors/field-errors';
import { assertApiKeyShape } from '../schemas/api-key';
import type { Target } from '../schemas/target';

export type Env = Record<string, string | undefined>;

export interface KeyPair {
  accessKey: string;
  secretKey: string;
}

const value = (env: Env, name: string): string | undefined => {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
};

/**
 * The target's own key, from the variables its credentials name. Undefined for a target without credentials, which
 * uses the deployment's key. An unset variable is invalid_config, naming the target and the variable. A malformed key
 * is invalid_credentials, naming the variable. Either way only this target fails; the others go on. `protect` is told
 * each value read, so the CLI's output scrubber knows it.
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
  if (unset.length > 0) throw validationError('invalid_config', `the key of target "${target.name}"`, unset);
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
 * The gateway for a target, made by `make` from the target's key (undefined: the deployment's). It is made once per
 * key pair, so targets with the same key share it, and no target uses another's key. Every call made through it
 * authenticates with that key. Throws what targetKeyPair throws, for that target only.
 */
export function gatewayPerKey<G>(
  env: Env,
  make: (key: KeyPair | undefined) => G,
  protect?: (secret: string) => void,
): (target: Target) => G {
  const made = new Map<string, G>();
  return (target) => {
    const id = keyIdOf(target);
    if (made.has(id)) return made.get(id) as G;
    const gateway = make(targetKeyPair(target, env, protect));
    made.set(id, gateway);
    return gateway;
  };
}
