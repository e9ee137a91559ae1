// One hint per kind of problem, so a missing SQS key is not answered with the targets file's hint. A
// configuration error (invalid_config) names its fields; the first field says which kind it is.
import type { FieldError } from '../shared/errors/field-errors';

export type ProblemKind = 'credentials' | 'targets' | 'queue' | 'network' | 'environment' | 'usage';

const TARGET_SOURCES =
  'The targets come from a file (--file; npm start: --targets), LBSYNC_TARGETS (a JSON array) or LBSYNC_CONFIG (a JSON file); each field error names the path and the fix.';

export const HINTS: Record<ProblemKind, string> = {
  credentials:
    "Scaleway credentials come from SCW_ACCESS_KEY and SCW_SECRET_KEY, or from a profile of the scw CLI's config file (--profile or SCW_PROFILE, in SCW_CONFIG_PATH, default ~/.config/scw/config.yaml; `scw init` writes one); variables win key by key.",
  targets: `${TARGET_SOURCES} \`lbsync targets validate\` checks them alone.`,
  queue:
    "The queue commands need SQS_ACCESS_KEY_ID and SQS_SECRET_ACCESS_KEY (a Scaleway Queues credential; list, show and redrive need receive rights), SQS_ENDPOINT for another endpoint than Scaleway's, and RECONCILE_QUEUE_URL / DEAD_LETTER_QUEUE_URL (`lbsync provision` prints both).",
  network:
    'The Scaleway API gave no answer: the message names the URL and the cause. Check SCW_API_URL (unset it for https://api.scaleway.com), DNS, a proxy or firewall on the way, and outbound network; LBSYNC_REQUEST_TIMEOUT_MS bounds each request.',
  environment: 'A tuning variable (LBSYNC_*, QUEUE_DELAY_MODE, LOG_*) is out of range; each field error names the variable and the fix.',
  usage: 'Run the command with --help for its options and examples.',
};

/** A --target the configuration lacks: a usage error (exit 64), pointing at where the names are listed. */
export const UNKNOWN_TARGET_HINT =
  '--target takes the name of a configured target (a kOps shorthand is named after its cluster); `lbsync targets validate` lists them.';

/** The targets hint for `lbsync targets validate` itself, which must not send the user to the command they ran. */
export const TARGETS_VALIDATE_HINT = TARGET_SOURCES;

const CREDENTIAL_VARIABLES = /^(LBSYNC_)?SCW_|^--profile/;
const QUEUE_VARIABLES = /^(SQS_|RECONCILE_QUEUE_URL$|DEAD_LETTER_QUEUE_URL$)/;
const TARGET_PATHS = /^(LBSYNC_TARGETS|LBSYNC_CONFIG|targets|--targets?|--file)\b/;
const ENVIRONMENT_VARIABLE = /^[A-Z][A-Z0-9_]*$/;

/** Which kind of configuration a field error is about, from its path (a targets file's errors start with its path). */
export function kindOfField(error: FieldError): ProblemKind {
  if (CREDENTIAL_VARIABLES.test(error.path)) return 'credentials';
  if (QUEUE_VARIABLES.test(error.path)) return 'queue';
  if (TARGET_PATHS.test(error.path)) return 'targets';
  if (ENVIRONMENT_VARIABLE.test(error.path)) return 'environment';
  return 'targets';
}

/** The hint for a configuration error (by its first field), or undefined to keep the error's own. */
export function configurationHint(fieldErrors: readonly FieldError[] | undefined): string | undefined {
  const first = fieldErrors?.[0];
  return first ? HINTS[kindOfField(first)] : undefined;
}
