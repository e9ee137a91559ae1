// The functions, listed once. Each has a folder functions/<name>/ with its handler.ts. functions/names.mjs reads those
// folders for the build scripts (plain node), and test/unit/functions/names.test.ts checks the two lists are equal.
// Cockpit, the local stack, the bench and the docs' table of the functions' answers read this one.

/** What starts a function: the reconcile queue's trigger, an HTTP request, a cron trigger. */
export type Trigger = 'queue' | 'http' | 'cron';

export const FUNCTION = {
  reconcile: { trigger: 'queue' },
  inject: { trigger: 'http' },
  sweep: { trigger: 'cron' },
  watch: { trigger: 'cron' },
} as const satisfies Record<string, { trigger: Trigger }>;

export type FunctionName = keyof typeof FUNCTION;

/** In the order the docs and Cockpit name them. */
export const FUNCTIONS = Object.keys(FUNCTION) as readonly FunctionName[];

/** Sorted: the order the build, the local stack (its ports) and the bench take them in. */
export const FUNCTION_NAMES: readonly FunctionName[] = [...FUNCTIONS].sort();
