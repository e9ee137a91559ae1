// The environment catalogue (environment-catalogue.json: every variable scw-lb-sync reads, which functions read it,
// secret or not, required, default, meaning), typed for the code. The data is JSON so that the serverless.yml
// checker (scripts/serverless-check, plain node) reads the very same file.
import CATALOGUE from './environment-catalogue.json';

/** Each variable as the JSON holds it: its fields typed as written (a default keeps its own type). */
export const VARIABLES = CATALOGUE.variables;
export type VariableName = keyof typeof VARIABLES;

export interface EnvironmentVariable {
  /** The deployed functions that read it. */
  functions: 'all' | readonly string[];
  /** The lbsync CLI reads it too. */
  cli?: boolean;
  /** A function that reads it does not start without it. */
  required?: boolean;
  /** A credential: deployed under `secret`, and its value never reaches a log, answer or output. */
  secret: boolean;
  /** May be deployed under `secret` as well as `env` (a value too long for a plain variable). */
  secretAllowed?: boolean;
  /** A URL whose user:password@ is removed, never sent nor shown. */
  url?: boolean;
  default?: string | number;
  /** Must not be set on a deployed function, and why. */
  notDeployed?: string;
  /** Read by node itself, not by our code. */
  readByNode?: boolean;
  meaning: string;
}

/** The variables whose names the targets give (each target's `credentials`): who reads them, and as what. */
export const NAMED_BY_TARGETS = CATALOGUE.namedByTargets as EnvironmentVariable & { name: string };

/** Every variable, in the catalogue's order. */
export const ENVIRONMENT_CATALOGUE = Object.entries(VARIABLES) as [VariableName, EnvironmentVariable][];

/** The name a deployed function reads: Scaleway reserves SCW_* inside Functions, so LBSYNC_SCW_X stands for SCW_X there. */
export function deployedName(name: string): string {
  return name.startsWith('SCW_') ? `LBSYNC_${name}` : name;
}

/** The names, both spellings of SCW_* ones, of the variables that are `which`. */
export function variableNames(which: (variable: EnvironmentVariable) => boolean | undefined): string[] {
  return ENVIRONMENT_CATALOGUE.filter(([, variable]) => which(variable)).flatMap(([name]) =>
    deployedName(name) === name ? [name] : [name, deployedName(name)],
  );
}
