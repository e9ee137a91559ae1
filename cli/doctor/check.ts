// One line of `lbsync doctor`: ok | fail | warn, what was found, and for a failure how to fix it.
import type { LbSyncError } from '../../shared/errors/lbsync-error';
import type { DescribedError } from '../output';

export type CheckStatus = 'ok' | 'fail' | 'warn';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  hint?: string;
}

export const ok = (name: string, detail: string): Check => ({ name, status: 'ok', detail });
export const warn = (name: string, detail: string, hint?: string): Check => ({ name, status: 'warn', detail, ...(hint && { hint }) });
export const fail = (name: string, detail: string, hint: string): Check => ({ name, status: 'fail', detail, hint });

/** A check that could not run: told, with why, never left out (its cause is a failed line of its own). */
export const skipped = (name: string, why: string): Check => warn(name, `skipped: ${why}`);

export function failedWith(name: string, error: LbSyncError): Check {
  return fail(name, error.message, error.hint);
}

/** `path: message` of each field error, without the fix (a failed check prints the fix once, as its hint). */
export function fieldProblems(described: DescribedError): string {
  return (described.fieldErrors ?? []).map((fe) => `${fe.path}: ${fe.message}`).join('; ');
}

/** Warnings pass; one failed line fails the run. */
export function doctorPassed(checks: readonly Check[]): boolean {
  return checks.every((c) => c.status !== 'fail');
}
