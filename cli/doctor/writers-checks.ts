// Each target's other writers in the last 30 minutes (Audit Trail), as doctor's `writers` lines.
import { CONTEST_THRESHOLD, contestWarning } from '../../shared/core/contest';
import { WARNING_CATALOG } from '../../shared/errors/lbsync-error';
import type { Target } from '../../shared/schemas/target';
import type { WritersRead } from '../writers-read';
import { type Check, ok, skipped, warn } from './check';

/**
 * ok when none, or when none is contested; warn pool_contested naming the writer. Audit Trail not readable (no
 * permission): one skipped line each; no organization known: no line.
 */
export function writersChecks(writers: WritersRead, targets: readonly Target[]): Check[] {
  // No organization known: Audit Trail is not this key's to read (the watch function has its own), nothing is said.
  if (!writers.read && !writers.configured) return [];
  return targets.map((target) => {
    const name = `target:${target.name}:writers`;
    if (!writers.read) return skipped(name, writers.why);
    const unread = writers.unread.find((u) => u.targets.includes(target.name));
    if (unread) return skipped(name, unread.why);
    const contested = writers.contests.filter((c) => c.target === target.name);
    if (contested.length > 0)
      return warn(name, contested.map((c) => contestWarning(c, writers.ownerId)).join('; '), WARNING_CATALOG.pool_contested.hint);
    const foreign = writers.foreign.filter((w) => w.target === target.name);
    if (foreign.length === 0) return ok(name, 'no pool or backend write by anyone else in the last 30 minutes (Audit Trail)');
    const counts = new Map<string, number>();
    for (const w of foreign) counts.set(w.writer, (counts.get(w.writer) ?? 0) + 1);
    return ok(
      name,
      `written by others in the last 30 minutes, none reverted ${CONTEST_THRESHOLD} times: ${[...counts].map(([w, n]) => `${w} (${n})`).join(', ')}`,
    );
  });
}
