// The shape of a Scaleway API key, checked at the edge before any SDK sees it. The SDK's own check throws a message
// that quotes the key back (`Invalid secret key format 'abc'`), so a malformed key must never reach it. Our problems
// name where the key was read and the shape expected, never any part of the value (not even its first characters).
import type { FieldError } from '../errors/field-errors';
import { LbSyncError } from '../errors/lbsync-error';

/** The SDK's own patterns (@scaleway/sdk-client, internal/validations/string-validation). */
const ACCESS_KEY = /^SCW[A-Z0-9]{17}$/i;
const SECRET_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const ACCESS_KEY_SHAPE = '20 characters: "SCW" and 17 letters or digits';
export const SECRET_KEY_SHAPE = 'a UUID: 36 characters, 32 hexadecimal digits in groups of 8-4-4-4-12 joined by "-"';

/** Where each half of the key was read: a variable's name, or a profile's field ("access_key of profile ..."). */
export interface KeySources {
  accessKey: string;
  secretKey: string;
}

const length = (value: string) => `it has ${value.length} character${value.length === 1 ? '' : 's'}`;

function accessKeyProblem(value: string, where: string, secret: string): FieldError | undefined {
  if (ACCESS_KEY.test(value)) return undefined;
  const swapped = SECRET_KEY.test(value) && ACCESS_KEY.test(secret);
  return {
    path: where,
    message: swapped
      ? `holds what looks like a secret key (a UUID), not an access key: the two may be swapped`
      : `is not a Scaleway access key: expected ${ACCESS_KEY_SHAPE}; ${length(value)}`,
    fix: 'copy the access key of an IAM API key (console: IAM > API keys; or the ACCESS KEY column of `scw iam api-key list`); nothing was sent to the API',
  };
}

function secretKeyProblem(value: string, where: string, access: string): FieldError | undefined {
  if (SECRET_KEY.test(value)) return undefined;
  const swapped = ACCESS_KEY.test(value) && SECRET_KEY.test(access);
  return {
    path: where,
    message: swapped
      ? `holds what looks like an access key (SCW...), not a secret key: the two may be swapped`
      : `is not a Scaleway secret key: expected ${SECRET_KEY_SHAPE}; ${length(value)}`,
    fix: 'copy the secret key shown once when the API key was made (make a new key if it is lost); nothing was sent to the API',
  };
}

/** What is wrong with the key's shape, per half; [] when both halves have the shapes the API accepts. */
export function apiKeyProblems(key: { accessKey: string; secretKey: string }, where: KeySources): FieldError[] {
  return [
    accessKeyProblem(key.accessKey, where.accessKey, key.secretKey),
    secretKeyProblem(key.secretKey, where.secretKey, key.accessKey),
  ].filter((p): p is FieldError => p !== undefined);
}

/** A malformed key as the one error every command and function tells (invalid_credentials), naming where it was read. */
export function invalidCredentials(problems: FieldError[]): LbSyncError {
  const lines = problems.map((p) => `  - ${p.path} ${p.message}`).join('\n');
  return new LbSyncError('invalid_credentials', `the Scaleway API key is malformed:\n${lines}`, { fieldErrors: problems });
}

/** Throws invalid_credentials when the key's shape is wrong. */
export function assertApiKeyShape(key: { accessKey: string; secretKey: string }, where: KeySources): void {
  const problems = apiKeyProblems(key, where);
  if (problems.length > 0) throw invalidCredentials(problems);
}

/** Whether a value has the shape of an access key or a secret key: such a value is never echoed. */
export function looksLikeApiKey(value: string): boolean {
  return ACCESS_KEY.test(value.trim()) || SECRET_KEY.test(value.trim());
}

/** For an adapter handed a key by code that did not say where it was read (its callers check it first). */
export const GIVEN_KEY: KeySources = { accessKey: 'the access key given', secretKey: 'the secret key given' };
