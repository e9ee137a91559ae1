// The `config` line: the targets the configuration names (and --target selects), or why it is invalid.
import { ERROR_CATALOG } from '../../shared/errors/lbsync-error';
import type { Target } from '../../shared/schemas/target';
import { configuredTargets, selectTargets } from '../environment';
import { CliError, describeError } from '../output';
import { type Check, fail, fieldProblems, ok } from './check';

export function configCheck(env: NodeJS.ProcessEnv, file?: string, names?: string[]): { check: Check; targets: Target[] } {
  try {
    const targets = selectTargets(configuredTargets(env, file), names);
    return { check: ok('config', `${targets.length} target(s): ${targets.map((t) => t.name).join(', ')}`), targets };
  } catch (error) {
    // A --target the configuration lacks is bad usage (exit 64), not a failed check.
    if (error instanceof CliError && error.code === 'usage') throw error;
    const described = describeError(error);
    const hint = described.fieldErrors?.[0]?.fix ?? described.hint ?? ERROR_CATALOG.invalid_config.hint;
    return { check: fail('config', fieldProblems(described) || described.message, hint), targets: [] };
  }
}
