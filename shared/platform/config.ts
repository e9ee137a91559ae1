import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import type { AuditTrailSettings } from '../adapters/audit-trail';
import type { ScalewaySettings } from '../adapters/scaleway';
import { type LbSyncError, validationError } from '../errors/lbsync-error';
import type { FieldError } from '../errors/field-errors';
import { assertApiKeyShape } from '../schemas/api-key';
import { toFieldErrors } from '../schemas/zod-issues';
import type { RetryPolicy } from '../core/retry-horizon';
import { defaultMaxAttempts, MAX_ATTEMPTS_LIMIT } from '../core/retry-horizon';
import type { Target } from '../schemas/target';
import { parseTargets, unwrapTargets } from '../schemas/target';
import { deployedName, VARIABLES as V, variableNames } from './environment-catalogue';
import { hasUrlCredentials, stripUrlCredentials, urlCredentials } from '../outbound/scrub';
import { SHIPPED_TARGETS_FILE } from './shipped-targets';

export type Env = Record<string, string | undefined>;

/** write: a deployment that writes; shadow: one that reads, plans and logs, and never writes (docs/deploy.md). */
export const DEPLOYMENT_MODES = ['write', 'shadow'] as const;
export type DeploymentMode = (typeof DEPLOYMENT_MODES)[number];

/** Reads SCW_X, or LBSYNC_SCW_X where the platform reserves SCW_* (deployed functions). */
function scw(env: Env, name: string): string | undefined {
  return nonEmpty(env[`LBSYNC_${name}`]) ?? nonEmpty(env[name]);
}

/**
 * Who reads the Scaleway variables: a deployed function reads LBSYNC_SCW_X (the platform reserves SCW_*), so a missing
 * one is named so there; the CLI and the local stack name SCW_X.
 */
export interface ScalewayReader {
  function?: boolean;
}

/** The variable to set when an SCW_X is missing: LBSYNC_SCW_X in a function, SCW_X elsewhere. */
function scwToSet(name: string, reader: ScalewayReader): string {
  return reader.function ? deployedName(name) : name;
}

/** Where to set it, said the way its reader needs it. */
function scwFix(name: string, reader: ScalewayReader, what: string): string {
  return reader.function
    ? `set ${deployedName(name)} to ${what} (a secret of the function in serverless.yml: SCW_* names are reserved inside Scaleway Functions; the local stack may set ${name})`
    : `set ${name} (or ${deployedName(name)} in a deployed function) to ${what}`;
}

/** The variable scw() read its value from, for messages: LBSYNC_SCW_X when that is set, else SCW_X. */
function scwSource(env: Env, name: string): string {
  return nonEmpty(env[`LBSYNC_${name}`]) !== undefined ? `LBSYNC_${name}` : name;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function missing(variable: string, fix: string): LbSyncError {
  return validationError('invalid_config', 'environment', [{ path: variable, message: 'is not set', fix }]);
}

/** How to give the targets, for the fixes below. */
const TARGETS_WAYS =
  'LBSYNC_TARGETS to a JSON array of targets, LBSYNC_CONFIG to a JSON file holding one, or (a deployment) ship a file in the bundle: npm run build -- --targets FILE';

/**
 * Targets from LBSYNC_TARGETS (JSON array), the JSON file named by LBSYNC_CONFIG, or the file shipped in the
 * function bundle (`shipped`: shipped-targets.ts). A shipped file and a variable at once are refused, both named: neither
 * is chosen silently. Errors about the LBSYNC_CONFIG file start with `fileLabel` (the CLI's --file names the file itself).
 */
export function loadTargets(env: Env = process.env, fileLabel = 'LBSYNC_CONFIG', shipped?: string): Target[] {
  const inline = nonEmpty(env.LBSYNC_TARGETS);
  const file = nonEmpty(env.LBSYNC_CONFIG);
  if (shipped !== undefined) {
    const given = inline ? 'LBSYNC_TARGETS' : file ? 'LBSYNC_CONFIG' : undefined;
    if (given) throw bothGiven(given);
    return parseTargetsText(SHIPPED_TARGETS_FILE, readConfigFile(shipped, SHIPPED_TARGETS_FILE));
  }
  if (!inline && !file && env.LBSYNC_TARGETS !== undefined) {
    // Set to nothing (serverless.yml sends it empty when the deployer leaves it unset) with no file shipped: told so.
    throw validationError('invalid_config', 'environment', [
      {
        path: 'LBSYNC_TARGETS',
        message: 'is set but empty',
        fix: `give it a JSON array of targets, e.g. [{"kops":{"cluster":"prod.k8s.local","zone":"fr-par-1"}}], or unset it and set LBSYNC_CONFIG to a JSON file; a deployment may instead ship the targets in its bundle: npm run build -- --targets FILE`,
      },
    ]);
  }
  if (!inline && !file) throw missing('LBSYNC_TARGETS', `set ${TARGETS_WAYS}`);
  return inline ? parseTargetsText('LBSYNC_TARGETS', inline) : parseTargetsText(fileLabel, readConfigFile(file as string, fileLabel));
}

/** A variable set where the bundle ships its own targets. */
function bothGiven(variable: 'LBSYNC_TARGETS' | 'LBSYNC_CONFIG'): LbSyncError {
  return validationError('invalid_config', 'environment', [
    {
      path: variable,
      message: `is set, and the bundle ships its own targets (${SHIPPED_TARGETS_FILE}, built with --targets): two configurations, and neither is taken over the other`,
      fix: `keep one: deploy with ${variable} unset or empty (serverless.yml then sends it empty), or rebuild without --targets (npm run build) and keep ${variable}`,
    },
  ]);
}

/** The targets in `text`, JSON from `source`: an array, or { "targets": [...] } (its errors then under .targets). */
function parseTargetsText(source: string, text: string): Target[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw validationError('invalid_config', source, [
      {
        path: source,
        message: `is not valid JSON (${(error as Error).message})`,
        fix: 'check quotes and commas; the value must be a JSON array',
      },
    ]);
  }
  const wrapped = unwrapTargets(value, source);
  return parseTargets(wrapped.value, wrapped.path);
}

/** What to fix when a targets file cannot be read, by who named it. */
function unreadableFix(label: string): string {
  if (label === 'LBSYNC_CONFIG') return 'point LBSYNC_CONFIG at a readable JSON file';
  if (label === SHIPPED_TARGETS_FILE) return 'rebuild (npm run build -- --targets FILE) and redeploy: the archive is incomplete';
  return 'point --file at a readable JSON file';
}

function readConfigFile(path: string, label: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw validationError('invalid_config', label, [
      {
        path: label,
        message: `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        fix: unreadableFix(label),
      },
    ]);
  }
}

const OWNER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/**
 * This deployment's owner id (LBSYNC_OWNER_ID), carried in every User-Agent: set, or derived from the reconcile
 * queue's URL (each deployment has its own queue), or `local` (the CLI without a queue).
 */
export function ownerIdFromEnv(env: Env = process.env): string {
  const given = nonEmpty(env.LBSYNC_OWNER_ID);
  if (given !== undefined) {
    if (OWNER_ID.test(given)) return given;
    throw validationError('invalid_config', 'environment', [
      {
        path: 'LBSYNC_OWNER_ID',
        message: 'must be letters, digits, ".", "_" or "-" (at most 63, starting with a letter or digit)',
        received: given,
        fix: 'name the deployment plainly, e.g. LBSYNC_OWNER_ID=prod-par (or leave it unset: derived from RECONCILE_QUEUE_URL)',
      },
    ]);
  }
  const queue = nonEmpty(env.RECONCILE_QUEUE_URL);
  if (queue === undefined) return 'local';
  return `q${createHash('sha256').update(stripUrlCredentials(queue)).digest('hex').slice(0, 10)}`;
}

export function scalewaySettingsFromEnv(env: Env = process.env, reader: ScalewayReader = {}): ScalewaySettings {
  const accessKey = scw(env, 'SCW_ACCESS_KEY');
  const secretKey = scw(env, 'SCW_SECRET_KEY');
  if (!accessKey || !secretKey) {
    // Both named at once: a function told one at a time is redeployed twice.
    const unset = [
      ...(accessKey ? [] : [['SCW_ACCESS_KEY', 'your API access key'] as const]),
      ...(secretKey ? [] : [['SCW_SECRET_KEY', 'your API secret key'] as const]),
    ];
    throw validationError(
      'invalid_config',
      'environment',
      unset.map(([name, what]) => ({ path: scwToSet(name, reader), message: 'is not set', fix: scwFix(name, reader, what) })),
    );
  }
  assertApiKeyShape({ accessKey, secretKey }, { accessKey: scwSource(env, 'SCW_ACCESS_KEY'), secretKey: scwSource(env, 'SCW_SECRET_KEY') });
  const projectId = scw(env, 'SCW_DEFAULT_PROJECT_ID');
  const defaultZone = scw(env, 'SCW_DEFAULT_ZONE');
  // Credentials in the URL are never sent nor shown (configWarnings says so): the API authenticates with the key.
  const rawApiUrl = scw(env, 'SCW_API_URL');
  const apiUrl = rawApiUrl && stripUrlCredentials(rawApiUrl);
  return {
    accessKey,
    secretKey,
    ...(projectId && { projectId }),
    ...(defaultZone && { defaultZone }),
    ...(apiUrl && { apiUrl }),
    requestTimeoutMs: runtimeConfigFromEnv(env).requestTimeoutMs,
    ownerId: ownerIdFromEnv(env),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What the watcher needs to read Audit Trail: the API key (AuditTrailReadOnly on the organization),
 * the organization id, and the principals whose LB backend writes are our own.
 */
export function auditTrailSettingsFromEnv(
  env: Env = process.env,
  reader: ScalewayReader = {},
): AuditTrailSettings & { projectId?: string; ownPrincipalIds: string[] } {
  const scaleway = scalewaySettingsFromEnv(env, reader);
  const organizationId = scw(env, 'SCW_DEFAULT_ORGANIZATION_ID');
  const errors: FieldError[] = [];
  if (!organizationId) {
    errors.push({
      path: scwToSet('SCW_DEFAULT_ORGANIZATION_ID', reader),
      message: 'is not set',
      fix: scwFix('SCW_DEFAULT_ORGANIZATION_ID', reader, 'the organization id: Audit Trail is read per organization'),
    });
  } else if (!UUID.test(organizationId)) {
    errors.push({
      path: scwSource(env, 'SCW_DEFAULT_ORGANIZATION_ID'),
      message: 'must be a UUID',
      received: organizationId,
      fix: 'copy the organization id from the console (Organization settings) or `scw account project list`',
    });
  }
  const ownPrincipalIds = (nonEmpty(env.LBSYNC_WATCH_OWN_PRINCIPAL_IDS) ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  for (const id of ownPrincipalIds.filter((p) => !UUID.test(p))) {
    errors.push({
      path: 'LBSYNC_WATCH_OWN_PRINCIPAL_IDS',
      message: 'must be a comma-separated list of UUIDs',
      received: id,
      fix: 'give the id of the IAM application whose key the reconcile function uses, or leave it unset',
    });
  }
  if (errors.length > 0) throw validationError('invalid_config', 'environment', errors);
  return {
    accessKey: scaleway.accessKey,
    secretKey: scaleway.secretKey,
    organizationId: organizationId as string,
    ...(scaleway.apiUrl && { apiUrl: scaleway.apiUrl }),
    ...(scaleway.projectId && { projectId: scaleway.projectId }),
    ...(scaleway.requestTimeoutMs !== undefined && { requestTimeoutMs: scaleway.requestTimeoutMs }),
    ...(scaleway.ownerId && { ownerId: scaleway.ownerId }),
    ownPrincipalIds,
  };
}

/**
 * A whole number written in decimal digits, and nothing else: Number() would also take 0x10, 1e3, 0b1 or " ", and a
 * typo would become a value nobody meant. Blanks around the digits are dropped, as around every variable.
 */
const intFromEnv = (min: number, max: number) =>
  z
    .string()
    .trim()
    .refine((text) => /^\d+$/.test(text), {
      message: 'must be a whole number in decimal digits (no sign, decimal point, exponent or 0x)',
      params: { fix: 'write the number in digits only, e.g. 15000' },
    })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

// The defaults are the environment catalogue's, which the serverless.yml checker (scripts/serverless-check, plain
// node) reads too, so the two cannot differ.
/** The settings' variables: their values, ranges and defaults. */
export const runtimeSchema = z.object({
  LBSYNC_RETRY_BASE_MS: intFromEnv(1, 3_600_000).default(V.LBSYNC_RETRY_BASE_MS.default),
  LBSYNC_RETRY_CAP_MS: intFromEnv(1, 43_200_000).default(V.LBSYNC_RETRY_CAP_MS.default),
  // Its floor (a transient wait and one backoff step) depends on two other variables: retryPolicy holds it to it.
  LBSYNC_RETRY_HORIZON_MS: intFromEnv(0, 86_400_000).default(V.LBSYNC_RETRY_HORIZON_MS.default),
  // Unset: sized from the horizon (retry-horizon.ts); set, it must not cut the horizon short (checked below).
  LBSYNC_MAX_ATTEMPTS: intFromEnv(1, MAX_ATTEMPTS_LIMIT).optional(),
  LBSYNC_MAX_HOLD_MS: intFromEnv(0, 900_000).default(V.LBSYNC_MAX_HOLD_MS.default),
  LBSYNC_WAIT_BUDGET_MS: intFromEnv(0, 600_000).default(V.LBSYNC_WAIT_BUDGET_MS.default),
  LBSYNC_TRANSIENT_WAIT_MS: intFromEnv(0, 600_000).default(V.LBSYNC_TRANSIENT_WAIT_MS.default),
  LBSYNC_REQUEST_TIMEOUT_MS: intFromEnv(100, 120_000).default(V.LBSYNC_REQUEST_TIMEOUT_MS.default),
  LBSYNC_DUPLICATE_GRACE_MS: intFromEnv(0, 86_400_000).default(V.LBSYNC_DUPLICATE_GRACE_MS.default),
  LBSYNC_WATCH_PERIOD_MS: intFromEnv(100, 3_600_000).default(V.LBSYNC_WATCH_PERIOD_MS.default),
  LBSYNC_WATCH_OVERLAP_MS: intFromEnv(0, 86_400_000).default(V.LBSYNC_WATCH_OVERLAP_MS.default),
  LBSYNC_SWEEP_SPREAD_MS: intFromEnv(0, 900_000).default(V.LBSYNC_SWEEP_SPREAD_MS.default),
  // Scaleway caps a function's timeout at 15 minutes; serverless.yml sets this to reconcile's `timeout`.
  LBSYNC_FUNCTION_TIMEOUT_MS: intFromEnv(1_000, 900_000).default(V.LBSYNC_FUNCTION_TIMEOUT_MS.default),
  LBSYNC_DEADLINE_MARGIN_MS: intFromEnv(0, 600_000).default(V.LBSYNC_DEADLINE_MARGIN_MS.default),
  QUEUE_DELAY_MODE: z.enum(['hold', 'native']).default(V.QUEUE_DELAY_MODE.default as 'hold' | 'native'),
  LBSYNC_MODE: z.enum(DEPLOYMENT_MODES).default(V.LBSYNC_MODE.default as DeploymentMode),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default(V.LOG_LEVEL.default as 'info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).default(V.LOG_FORMAT.default as 'json' | 'pretty'),
});

/** Every runtime variable's value when unset, as the schema applies it. */
export function runtimeDefaults(): z.output<typeof runtimeSchema> {
  return runtimeSchema.parse({});
}

export interface RuntimeConfig {
  /** LBSYNC_MODE: shadow reads, plans and logs, and never writes. */
  mode: DeploymentMode;
  /** Backoff base and cap, the retry horizon, and the safety cap on attempts (sized from the horizon). */
  retry: RetryPolicy;
  delayMode: 'hold' | 'native';
  /** Longest an early message is held inside one invocation before it is re-enqueued instead. */
  maxHoldMs: number;
  /** Budget for waiting until the LB reports the write applied. */
  waitBudgetMs: number;
  /** Budget for waiting, before writing, for an LB in a transient state; past it the event is retried. */
  transientWaitMs: number;
  requestTimeoutMs: number;
  /** Unused duplicates of a managed backend are removed only once older than this. */
  duplicateGraceMs: number;
  /** The watcher reads Audit Trail over the last periodMs + overlapMs (its cron period plus a margin). */
  watch: { periodMs: number; overlapMs: number };
  /** The sweep spreads its targets' notBefore over this interval (0: all at once). */
  sweepSpreadMs: number;
  /** The platform's timeout for one invocation (reconcile's `timeout` in serverless.yml). */
  functionTimeoutMs: number;
  /** Kept free at the end of an invocation for the hand-off (re-enqueue or dead-letter) and the answer. */
  deadlineMarginMs: number;
  logLevel: z.output<typeof runtimeSchema>['LOG_LEVEL'];
  logFormat: 'json' | 'pretty';
}

export function runtimeConfigFromEnv(env: Env = process.env): RuntimeConfig {
  const present = Object.fromEntries(Object.keys(runtimeSchema.shape).flatMap((k) => (nonEmpty(env[k]) ? [[k, env[k]]] : [])));
  const parsed = runtimeSchema.safeParse(present, { reportInput: true });
  if (!parsed.success) throw validationError('invalid_config', 'environment', toFieldErrors(parsed.error));
  const v = parsed.data;
  if (v.LBSYNC_DEADLINE_MARGIN_MS >= v.LBSYNC_FUNCTION_TIMEOUT_MS) {
    throw validationError('invalid_config', 'environment', [
      {
        path: 'LBSYNC_DEADLINE_MARGIN_MS',
        message: `is ${v.LBSYNC_DEADLINE_MARGIN_MS} ms, not less than LBSYNC_FUNCTION_TIMEOUT_MS (${v.LBSYNC_FUNCTION_TIMEOUT_MS} ms): no time would be left to work`,
        fix: 'set LBSYNC_FUNCTION_TIMEOUT_MS to the function timeout and keep the margin a few seconds below it',
      },
    ]);
  }
  return {
    mode: v.LBSYNC_MODE,
    retry: retryPolicy(v),
    delayMode: v.QUEUE_DELAY_MODE,
    maxHoldMs: v.LBSYNC_MAX_HOLD_MS,
    waitBudgetMs: v.LBSYNC_WAIT_BUDGET_MS,
    transientWaitMs: v.LBSYNC_TRANSIENT_WAIT_MS,
    requestTimeoutMs: v.LBSYNC_REQUEST_TIMEOUT_MS,
    duplicateGraceMs: v.LBSYNC_DUPLICATE_GRACE_MS,
    watch: { periodMs: v.LBSYNC_WATCH_PERIOD_MS, overlapMs: v.LBSYNC_WATCH_OVERLAP_MS },
    sweepSpreadMs: v.LBSYNC_SWEEP_SPREAD_MS,
    functionTimeoutMs: v.LBSYNC_FUNCTION_TIMEOUT_MS,
    deadlineMarginMs: v.LBSYNC_DEADLINE_MARGIN_MS,
    logLevel: v.LOG_LEVEL,
    logFormat: v.LOG_FORMAT,
  };
}

/**
 * The horizon's floor: an attempt may wait LBSYNC_TRANSIENT_WAIT_MS for an LB in a transient state before it fails,
 * and the retry after it is due one backoff step later (up to LBSYNC_RETRY_BASE_MS). A shorter horizon dead-letters
 * a transient failure before a whole step (0: at once, with no retry at all).
 */
function retryHorizonFloorMs(v: { LBSYNC_TRANSIENT_WAIT_MS: number; LBSYNC_RETRY_BASE_MS: number }): number {
  return v.LBSYNC_TRANSIENT_WAIT_MS + v.LBSYNC_RETRY_BASE_MS;
}

/**
 * The retry settings, checked together: the horizon must leave room for one retry (its floor) and be reachable, and
 * a set LBSYNC_MAX_ATTEMPTS must not cut it short.
 */
function retryPolicy(v: z.output<typeof runtimeSchema>): RetryPolicy {
  const horizon = { baseMs: v.LBSYNC_RETRY_BASE_MS, capMs: v.LBSYNC_RETRY_CAP_MS, horizonMs: v.LBSYNC_RETRY_HORIZON_MS };
  const floorMs = retryHorizonFloorMs(v);
  if (horizon.horizonMs < floorMs) {
    throw validationError('invalid_config', 'environment', [
      {
        path: 'LBSYNC_RETRY_HORIZON_MS',
        message: `is ${horizon.horizonMs} ms, less than its floor of ${floorMs} ms (an attempt's wait for a transient LB, LBSYNC_TRANSIENT_WAIT_MS ${v.LBSYNC_TRANSIENT_WAIT_MS}, and one backoff step, LBSYNC_RETRY_BASE_MS ${horizon.baseMs}): a transient failure would be dead-lettered before its first retry`,
        received: String(horizon.horizonMs),
        fix: `set at least ${floorMs} (the default is 1800000, 30 minutes), or lower LBSYNC_TRANSIENT_WAIT_MS or LBSYNC_RETRY_BASE_MS`,
      },
    ]);
  }
  const needed = defaultMaxAttempts(horizon);
  const shape = `LBSYNC_RETRY_HORIZON_MS ${horizon.horizonMs} ms with LBSYNC_RETRY_BASE_MS ${horizon.baseMs} and LBSYNC_RETRY_CAP_MS ${horizon.capMs}`;
  if (needed > MAX_ATTEMPTS_LIMIT) {
    throw validationError('invalid_config', 'environment', [
      {
        path: 'LBSYNC_RETRY_HORIZON_MS',
        message: `${shape} may take more than ${MAX_ATTEMPTS_LIMIT} attempts (a retry storm; an event counts at most ${MAX_ATTEMPTS_LIMIT})`,
        fix: 'raise LBSYNC_RETRY_CAP_MS (or LBSYNC_RETRY_BASE_MS), or shorten LBSYNC_RETRY_HORIZON_MS',
      },
    ]);
  }
  const set = v.LBSYNC_MAX_ATTEMPTS;
  if (set !== undefined && set < needed) {
    throw validationError('invalid_config', 'environment', [
      {
        path: 'LBSYNC_MAX_ATTEMPTS',
        message: `is ${set}, fewer than the ${needed} attempts ${shape} may take: valid events would be dead-lettered before the horizon`,
        received: String(set),
        fix: `leave it unset (sized from the horizon: ${needed}) or set at least ${needed}; to give up sooner, shorten LBSYNC_RETRY_HORIZON_MS`,
      },
    ]);
  }
  return { ...horizon, maxAttempts: set ?? needed };
}

export interface InjectSettings {
  /** INJECT_TOKEN: the bearer token every request must present; unset, inject refuses every request. */
  token?: string;
  /** LBSYNC_INJECT_INSECURE=true: no token check (the local stack only; a deployment refuses it). */
  insecure: boolean;
}

/** What the inject function reads besides the queue: its token, and whether to check it at all. */
export function injectSettingsFromEnv(env: Env = process.env): InjectSettings {
  const token = nonEmpty(env.INJECT_TOKEN);
  return { ...(token && { token }), insecure: env.LBSYNC_INJECT_INSECURE === 'true' };
}

export interface QueueConnection {
  endpoint?: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface QueueEnv extends QueueConnection {
  reconcileQueueUrl: string;
  deadLetterQueueUrl: string;
}

const QUEUE_VARIABLES = {
  SQS_ACCESS_KEY_ID: 'set SQS_ACCESS_KEY_ID to the Scaleway Queues credential access key',
  SQS_SECRET_ACCESS_KEY: 'set SQS_SECRET_ACCESS_KEY to the Scaleway Queues credential secret key',
  RECONCILE_QUEUE_URL: 'set RECONCILE_QUEUE_URL to the reconcile queue URL (printed by the provision command)',
  DEAD_LETTER_QUEUE_URL: 'set DEAD_LETTER_QUEUE_URL to the dead-letter queue URL (printed by the provision command)',
} as const;

function requireVariables(env: Env, names: readonly (keyof typeof QUEUE_VARIABLES)[]): void {
  const errors = names
    .filter((name) => !nonEmpty(env[name]))
    .map((name) => ({ path: name, message: 'is not set', fix: QUEUE_VARIABLES[name] }));
  if (errors.length > 0) throw validationError('invalid_config', 'environment', errors);
}

/** The SQS endpoint and credentials, without the queue URLs (provisioning creates those). */
export function queueConnectionFromEnv(env: Env = process.env): QueueConnection {
  requireVariables(env, ['SQS_ACCESS_KEY_ID', 'SQS_SECRET_ACCESS_KEY']);
  const rawEndpoint = nonEmpty(env.SQS_ENDPOINT);
  const endpoint = rawEndpoint && stripUrlCredentials(rawEndpoint);
  return {
    ...(endpoint && { endpoint }),
    region: nonEmpty(env.SQS_REGION) ?? V.SQS_REGION.default,
    accessKeyId: env.SQS_ACCESS_KEY_ID as string,
    secretAccessKey: env.SQS_SECRET_ACCESS_KEY as string,
  };
}

/** One queue URL, named by its variable, checked on its own (a sender needs no dead-letter URL). */
export function queueUrlFromEnv(env: Env, name: 'RECONCILE_QUEUE_URL' | 'DEAD_LETTER_QUEUE_URL'): string {
  requireVariables(env, [name]);
  return stripUrlCredentials(env[name]?.trim() as string);
}

export function queueEnvFromEnv(env: Env = process.env): QueueEnv {
  requireVariables(env, ['SQS_ACCESS_KEY_ID', 'SQS_SECRET_ACCESS_KEY', 'RECONCILE_QUEUE_URL', 'DEAD_LETTER_QUEUE_URL']);
  return {
    ...queueConnectionFromEnv(env),
    reconcileQueueUrl: queueUrlFromEnv(env, 'RECONCILE_QUEUE_URL'),
    deadLetterQueueUrl: queueUrlFromEnv(env, 'DEAD_LETTER_QUEUE_URL'),
  };
}

const SECRET_VARIABLES = variableNames((v) => v.secret);
/** Variables holding URLs whose userinfo (user:password@) is a secret. */
const URL_VARIABLES = variableNames((v) => v.url);

/**
 * Values that must never reach a log line, a dead-letter record, an answer or the CLI's output (`shipped`: the
 * targets file the function bundle ships, whose credentials name variables too).
 */
export function secretValues(
  env: Env = process.env,
  shipped?: string,
  load: () => Target[] = () => loadTargets(env, undefined, shipped),
): string[] {
  const plain = SECRET_VARIABLES.map((n) => nonEmpty(env[n]));
  const inUrls = URL_VARIABLES.flatMap((n) => urlCredentials(nonEmpty(env[n])));
  return [...plain, ...inUrls, ...targetKeyValues(env, load)].filter((v): v is string => v !== undefined && v.length >= 6);
}

/** The values of the variables the configured targets' credentials name (targets that do not load name none). */
function targetKeyValues(env: Env, load: () => Target[]): (string | undefined)[] {
  let targets: Target[];
  try {
    targets = load();
  } catch {
    return [];
  }
  return targets.flatMap((t) =>
    t.credentials ? [nonEmpty(env[t.credentials.accessKeyEnv]), nonEmpty(env[t.credentials.secretKeyEnv])] : [],
  );
}

/** What is wrong but harmless enough to run with, told once when a process starts. */
export function configWarnings(env: Env = process.env): string[] {
  return URL_VARIABLES.filter((n) => hasUrlCredentials(nonEmpty(env[n]))).map(
    (n) =>
      `${n} carries credentials (user:password@); they are removed: never sent and never shown (the Scaleway APIs authenticate with the keys)`,
  );
}
