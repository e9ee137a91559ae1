// The `config` line: the targets the configuration names (and --target selects) and where they were read, or why
// they are invalid.
import { ERROR_CATALOG } from '../../shared/errors/lbsync-error';
import type { Target } from '../../shared/schemas/target';
import { configuredTargets, selectTargets, targetsSource } from '../environment';
import { CliError, describeError } from '../output';
import { type Check, fail, fieldProblems, ok } from './check';

export function configCheck(env: NodeJS.ProcessEnv, file?: string, names?: string[]): { check: Check; targets: Target[] } {
  try {
    const targets = selectTargets(configuredTargets(env, file), names);
    const detail = `${targets.length} target(s) from ${targetsSource(env, file)}: ${targets.map((t) => t.name).join(', ')}`;
    return { check: ok('config', detail), targets };
  } catch (error) {
    // A --target the configuration lacks is bad usage (exit 64), not a failed check.
    if (error instanceof CliError && error.code === 'usage') throw error;
    const described = describeError(error);
    const hint = described.fieldErrors?.[0]?.fix ?? described.hint ?? ERROR_CATALOG.invalid_config.hint;
    return { check: fail('config', fieldProblems(described) || described.message, hint), targets: [] };
  }
}
