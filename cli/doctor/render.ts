// Doctor's lines as text: `ok|fail|warn <check>: <detail>`, a hint under each line that is not ok, and the summary.
import type { Colors } from '../output';
import { plural } from '../output';
import type { Check } from './check';

export function renderCheck(check: Check, c: Colors): string[] {
  const paint = check.status === 'ok' ? c.green : check.status === 'warn' ? c.yellow : c.red;
  const lines = [`${paint(check.status)} ${c.bold(check.name)}: ${check.detail}`];
  if (check.hint && check.status !== 'ok') lines.push(`  ${c.dim('hint:')} ${check.hint}`);
  return lines;
}

/** The closing note: how many checks, failed and warned, and whether the queues were left out. */
export function summary(checks: readonly Check[], queue: boolean): string {
  const failed = checks.filter((c) => c.status === 'fail').length;
  const warned = checks.filter((c) => c.status === 'warn').length;
  return `${plural(checks.length, 'check')}: ${failed} failed, ${plural(warned, 'warning')}${queue ? '' : ' (queues not checked: --no-queue)'}`;
}
