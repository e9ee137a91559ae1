/** One problem in an input, named by its path, with what was wrong and how to fix it. */
export interface FieldError {
  path: string;
  message: string;
  received?: string;
  allowed?: string[];
  fix: string;
}

export function renderFieldError(e: FieldError): string {
  const got = e.received !== undefined ? ` (got ${e.received})` : '';
  return `${e.path}: ${e.message}${got}; fix: ${e.fix}`;
}

/** How many problems an error lists; the rest are counted in one more entry (10,000 bad targets are one short error). */
export const LISTED_PROBLEMS = 10;

/** The summaries listedProblems made, and how many problems each stands for (those not listed). */
const unlisted = new WeakMap<FieldError, number>();

/**
 * The first LISTED_PROBLEMS problems and, if there are more, one entry at `root` that counts the rest. This keeps
 * the shape of a field error, and keeps an error message short whatever the input. Such a list may be passed in again
 * with other problems added: its summary entry is then counted, not listed.
 */
export function listedProblems(errors: readonly FieldError[], root: string): FieldError[] {
  const named = errors.filter((e) => !unlisted.has(e));
  const total = problemCount(errors);
  if (total <= LISTED_PROBLEMS) return named;
  const listed = named.slice(0, LISTED_PROBLEMS);
  const summary: FieldError = {
    path: root,
    message: `and ${total - listed.length} more problems (${total} in all)`,
    fix: `fix the ${listed.length} above and check again: the next ones are listed then`,
  };
  unlisted.set(summary, total - listed.length);
  return [...listed, summary];
}

/** How many problems a list of field errors stands for (a list from listedProblems counts those it left out). */
export function problemCount(errors: readonly FieldError[]): number {
  return errors.reduce((n, e) => n + (unlisted.get(e) ?? 1), 0);
}
