// Scaleway credentials the way the `scw` CLI finds them: SCW_* environment variables, over the
// profile SCW_PROFILE (set by --profile; default "default") of the config file SCW_CONFIG_PATH
// (default $XDG_CONFIG_HOME/scw/config.yaml, else ~/.config/scw/config.yaml).
// Values never leave this module except inside the settings handed to the gateway.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Profile } from '@scaleway/configuration-loader';
import { loadProfileFromConfigurationFile, loadProfileFromEnvironmentValues } from '@scaleway/configuration-loader';
import type { ScalewaySettings } from '../shared/adapters/scaleway';
import { ownerIdFromEnv, runtimeConfigFromEnv } from '../shared/platform/config';
import { validationError } from '../shared/errors/lbsync-error';
import { assertApiKeyShape } from '../shared/schemas/api-key';

export interface ResolvedCredentials {
  settings: ScalewaySettings;
  /** default_organization_id of the profile or SCW_DEFAULT_ORGANIZATION_ID (Audit Trail is read per organization). */
  organizationId?: string;
  /** Where the keys came from, for messages: "environment" or "profile <name> in <path>". */
  source: string;
}

export function scwConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SCW_CONFIG_PATH) return env.SCW_CONFIG_PATH;
  const base = env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'scw') : join(homedir(), '.config', 'scw');
  return join(base, 'config.yaml');
}

const credentialsError = (variable: string, message: string, fix: string) =>
  validationError('invalid_config', 'the Scaleway API key', [{ path: variable, message, fix }]);

function profileFromFile(env: NodeJS.ProcessEnv): { profile: Profile; label?: string } {
  const path = scwConfigPath(env);
  const named = env.SCW_PROFILE?.trim();
  if (!existsSync(path)) {
    if (env.SCW_CONFIG_PATH)
      throw credentialsError(
        'SCW_CONFIG_PATH',
        `names ${path}, which does not exist`,
        'point SCW_CONFIG_PATH at your scw config.yaml, or unset it',
      );
    if (named)
      throw credentialsError(
        'SCW_PROFILE',
        `is "${named}" but there is no config file at ${path}`,
        'run `scw init`, or set SCW_CONFIG_PATH',
      );
    return { profile: {} };
  }
  const profileName = named || 'default';
  try {
    return { profile: loadProfileFromConfigurationFile({ filepath: path, profileName }), label: `profile "${profileName}" in ${path}` };
  } catch (error) {
    if (!named) return { profile: {} }; // a file with only named profiles and no default one
    throw credentialsError(
      'SCW_PROFILE',
      `${(error as Error).message.replace(/\.$/, '')} (${path})`,
      'give --profile (or SCW_PROFILE) a profile listed under "profiles:" in the file',
    );
  }
}

const defined = (profile: Profile): Profile =>
  Object.fromEntries(Object.entries(profile).filter(([, v]) => typeof v === 'string' && v.trim() !== '')) as Profile;

/** The environment overrides the file, key by key, as with `scw`. */
export function resolveScalewayCredentials(env: NodeJS.ProcessEnv = process.env): ResolvedCredentials {
  const file = profileFromFile(env);
  // The loader reads process.env itself; the CLI always runs with process.env.
  const fromEnv = defined(loadProfileFromEnvironmentValues());
  const profile: Profile = { ...defined(file.profile), ...fromEnv };
  const where = file.label ?? `${scwConfigPath(env)} (not found)`;
  if (!profile.accessKey) {
    throw credentialsError(
      'SCW_ACCESS_KEY',
      `is not set, and ${where} has no access_key`,
      'export SCW_ACCESS_KEY and SCW_SECRET_KEY (an IAM API key), or run `scw init`, or choose a profile with --profile (or SCW_PROFILE)',
    );
  }
  if (!profile.secretKey) {
    throw credentialsError(
      'SCW_SECRET_KEY',
      `is not set, and ${where} has no secret_key`,
      'export SCW_SECRET_KEY (the secret of the API key whose access key is in use), or run `scw init`',
    );
  }
  // Named as where each half came from (a variable wins over the file key by key), so the message points at it.
  const fromFile = (field: string) => `${field} of ${file.label ?? 'the scw config file'}`;
  assertApiKeyShape(
    { accessKey: profile.accessKey, secretKey: profile.secretKey },
    {
      accessKey: fromEnv.accessKey ? 'SCW_ACCESS_KEY' : fromFile('access_key'),
      secretKey: fromEnv.secretKey ? 'SCW_SECRET_KEY' : fromFile('secret_key'),
    },
  );
  const source = fromEnv.accessKey && fromEnv.secretKey ? 'environment' : (file.label ?? 'environment');
  return {
    source,
    ...(profile.defaultOrganizationId && { organizationId: profile.defaultOrganizationId }),
    settings: {
      accessKey: profile.accessKey,
      secretKey: profile.secretKey,
      ...(profile.defaultProjectId && { projectId: profile.defaultProjectId }),
      ...(profile.defaultZone && { defaultZone: profile.defaultZone }),
      ...(profile.apiURL && { apiUrl: profile.apiURL }),
      requestTimeoutMs: runtimeConfigFromEnv(env).requestTimeoutMs,
      ownerId: ownerIdFromEnv(env),
    },
  };
}
