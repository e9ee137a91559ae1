/** A function's name: a folder of functions/ (test/unit/functions/names.test.ts fails when they differ). */
export type FunctionName = 'inject' | 'reconcile' | 'sweep' | 'watch';

/** The functions' names, sorted: one per folder of functions/ that holds a handler.ts. */
export declare const FUNCTION_NAMES: readonly FunctionName[];
