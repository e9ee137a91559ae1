// The Scaleway side, per key pair: its credentials line, its permissions (each proven by the reads its targets
// really make, recorded by the ledger), and its targets' lines.
import type { ExchangeRecorder } from '../adapters/http-recorder';
import type { ScalewayGateway } from '../../shared/adapters/scaleway';
import { createScalewayGateway } from '../../shared/adapters/scaleway';
import { DEPLOYMENT_KEY, keyIdOf } from '../../shared/core/target-accounts';
import { ERROR_CATALOG } from '../../shared/errors/lbsync-error';
import { runtimeConfigFromEnv } from '../../shared/platform/config';
import { gatewayPerKey } from '../../shared/platform/target-keys';
import type { ReconcileSettings } from '../../shared/reconcile/reconcile-target';
import { reconcileSettings } from '../../shared/reconcile/reconcile-target';
import type { Target } from '../../shared/schemas/target';
import { resolveScalewayCredentials } from '../credentials';
import { describeError } from '../output';
import { readWriters } from '../writers-read';
import { type Check, fail, fieldProblems, ok, warn } from './check';
import { KeyRefused } from './key-refused';
import { PermissionLedger } from './permission-ledger';
import { targetChecks } from './target-checks';
import { writersChecks } from './writers-checks';

const KEY_FORMAT_FIX =
  'nothing was sent to the API: copy the access key (SCW and 17 more characters) and the secret key (a UUID) of an IAM API key exactly, e.g. from `scw iam api-key get <access key>` and the secret shown when the key was made';

/** A key's failure before or at its first call, as its credentials line. */
function keyFailure(name: string, error: unknown, source: string): Check {
  const described = describeError(error);
  // The SDK checks the keys' format as it makes its client: refused before any call, so nothing was sent.
  if (source !== '') return fail(name, `the key from ${source} was refused before any call: ${described.message}`, KEY_FORMAT_FIX);
  return fail(
    name,
    fieldProblems(described) || described.message.replace(/\s*\n\s*-?\s*/g, ' '),
    described.code === 'invalid_credentials'
      ? ERROR_CATALOG.invalid_credentials.hint
      : (described.fieldErrors?.[0]?.fix ?? ERROR_CATALOG.authentication_denied.hint),
  );
}

/** One key pair and the targets it serves: the deployment's (checks named as ever) or a target's own (`:<its access key variable>`). */
interface KeyUse {
  suffix: string;
  source: string;
  targets: Target[];
  gateway: () => ScalewayGateway;
}

/** A key pair's credentials line, its permissions, and its targets' lines. */
async function keyChecks(use: KeyUse, settings: ReconcileSettings): Promise<{ key: Check[]; targets: Check[] }> {
  const name = `credentials${use.suffix}`;
  const serves = use.targets.map((t) => t.name).join(', ');
  let gateway: ScalewayGateway;
  try {
    gateway = use.gateway();
  } catch (error) {
    // A target's key unset or malformed is told by its variables (field problems); the deployment's, by its source.
    return { key: [keyFailure(name, error, use.suffix === '' ? use.source : '')], targets: [] };
  }
  const ledger = new PermissionLedger();
  const watched = ledger.watch(gateway);
  const checks: Check[] = [];
  try {
    for (const target of use.targets) checks.push(...(await targetChecks(watched, target, settings)));
  } catch (error) {
    if (!(error instanceof KeyRefused)) throw error;
    return {
      key: [
        fail(name, `the API refused the key from ${use.source} (401): ${error.error.message}`, ERROR_CATALOG.authentication_denied.hint),
      ],
      targets: [],
    };
  }
  const credentials =
    use.targets.length === 0
      ? warn(name, `key found (${use.source}), not tried: no target to read`)
      : ledger.anyAnswered()
        ? ok(name, `the API accepted the key from ${use.source}; it serves ${serves}`)
        : warn(
            name,
            `key found (${use.source}), not proven: no read got an answer from the API (see the failed lines); it serves ${serves}`,
          );
  return { key: [credentials, ...ledger.checks(use.suffix)], targets: checks };
}

/** The key pairs in use: the deployment's, and each target's own; each with the targets it serves. */
function keyUses(
  env: NodeJS.ProcessEnv,
  targets: readonly Target[],
  credentials: ReturnType<typeof resolveScalewayCredentials>,
  recorder?: ExchangeRecorder,
  protect?: (secret: string) => void,
): KeyUse[] {
  // Each target's calls go out with its own key (its credentials), else the deployment's: one gateway per key pair.
  const gatewayFor = gatewayPerKey(
    env,
    (key) => createScalewayGateway({ ...credentials.settings, ...key, ...(recorder && { recorder }) }),
    protect,
  );
  const uses = new Map<string, KeyUse>();
  uses.set(DEPLOYMENT_KEY, {
    suffix: '',
    source: credentials.source,
    targets: [],
    gateway: () => createScalewayGateway({ ...credentials.settings, ...(recorder && { recorder }) }),
  });
  for (const target of targets) {
    const id = keyIdOf(target);
    const c = target.credentials;
    const use = uses.get(id) ?? {
      suffix: c ? `:${c.accessKeyEnv}` : '',
      source: c ? `${c.accessKeyEnv} / ${c.secretKeyEnv}` : credentials.source,
      targets: [],
      gateway: () => gatewayFor(target),
    };
    use.targets.push(target);
    uses.set(id, use);
  }
  // The deployment's key is told even when it serves no target (as with no target at all), unless others serve them all.
  const deployment = uses.get(DEPLOYMENT_KEY) as KeyUse;
  if (deployment.targets.length === 0 && uses.size > 1) uses.delete(DEPLOYMENT_KEY);
  return [...uses.values()];
}

/** Every key pair's lines, then every target's in the configuration's order, then their other writers (Audit Trail). */
export async function scalewayChecks(
  env: NodeJS.ProcessEnv,
  targets: readonly Target[],
  recorder?: ExchangeRecorder,
  protect?: (secret: string) => void,
): Promise<Check[]> {
  let credentials: ReturnType<typeof resolveScalewayCredentials>;
  let settings: ReconcileSettings;
  try {
    // Both read the runtime settings (LBSYNC_REQUEST_TIMEOUT_MS...): an invalid one fails here, as credentials.
    settings = reconcileSettings(runtimeConfigFromEnv(env));
    credentials = resolveScalewayCredentials(env);
  } catch (error) {
    return [keyFailure('credentials', error, '')];
  }
  const keyLines: Check[] = [];
  const targetLines = new Map<string, Check[]>();
  for (const use of keyUses(env, targets, credentials, recorder, protect)) {
    const { key, targets: lines } = await keyChecks(use, settings);
    keyLines.push(...key);
    for (const line of lines) {
      const target = line.name.split(':')[1] ?? '';
      targetLines.set(target, [...(targetLines.get(target) ?? []), line]);
    }
  }
  const inOrder = targets.flatMap((t) => targetLines.get(t.name) ?? []);
  return [...keyLines, ...inOrder, ...writersChecks(await readWriters(env, targets, Date.now(), protect), targets)];
}
