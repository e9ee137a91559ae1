// When each target of a sweep is due, and when the sweep sends it. Pure.
//
// A sweep of N targets spread over S ms gives target i a due time drawn uniformly in its own slot
// [i*S/N, (i+1)*S/N). The targets are evenly spread, with jitter, and no two share a slot. Each no-op costs 3
// reads, so the API sees about 3*N/S reads per ms instead of 3*N at once.
//
// Scaleway Queues have no DelaySeconds, so a message is delivered at once. An early one would make a reconcile
// instance sit idle until it is due, or re-enqueue it again and again. So in hold mode the sweep itself sends each
// event when it is due, and no reconcile ever waits. It sends batches of up to 10 events due within one second, when
// the last of them is due. With a queue that has DelaySeconds (native mode), the sweep sends everything at once,
// each message delayed until due.
//
// Scaleway's rate limits count per organization and project, and a platform team often lists its targets team by
// team. Slots taken in that order would give one project's targets a tenth of the period, and its API ten times its
// mean rate. So the slots are dealt out group by group (spreadOrder), and each project's targets span the whole
// period.

export const MAX_BATCH = 10;
/** Events due within this of a batch's first are sent together (the first waits at most this long). */
export const BATCH_WINDOW_MS = 1_000;
/** SQS caps DelaySeconds at 15 minutes. */
export const MAX_DELAY_SECONDS = 900;

/** Due time (epoch ms) of each of `count` targets, in order, spread over [startMs, startMs + spreadMs). */
export function spreadDueTimes(count: number, spreadMs: number, startMs: number, random: () => number = Math.random): number[] {
  if (count === 0) return [];
  const slot = spreadMs / count;
  return Array.from({ length: count }, (_, i) => Math.floor(startMs + (i + random()) * slot));
}

/**
 * The order in which `items` take the sweep's slots: each group (by `groupOf`) spread evenly over the whole list,
 * its members in their own order. Item k of a group of n sits at (k + 0.5) / n; ties keep the list's order, so
 * equal groups are dealt round-robin. Returns indexes into `items`.
 */
export function spreadOrder<T>(items: readonly T[], groupOf: (item: T) => string): number[] {
  const sizes = new Map<string, number>();
  for (const item of items) sizes.set(groupOf(item), (sizes.get(groupOf(item)) ?? 0) + 1);
  const seen = new Map<string, number>();
  const position = items.map((item) => {
    const group = groupOf(item);
    const rank = seen.get(group) ?? 0;
    seen.set(group, rank + 1);
    return (rank + 0.5) / (sizes.get(group) as number);
  });
  return items.map((_, i) => i).sort((a, b) => (position[a] as number) - (position[b] as number) || a - b);
}

export interface PacedSend {
  /** When to send: the due time of the batch's last event. */
  sendAt: number;
  /** Indexes into the due-time list. */
  indexes: number[];
}

/** Groups ascending due times into sends of at most MAX_BATCH events due within BATCH_WINDOW_MS of the first. */
export function pacedSends(dueTimes: readonly number[], maxBatch = MAX_BATCH, windowMs = BATCH_WINDOW_MS): PacedSend[] {
  const sends: PacedSend[] = [];
  let current: PacedSend | undefined;
  let firstDue = 0;
  dueTimes.forEach((due, index) => {
    if (current && current.indexes.length < maxBatch && due - firstDue <= windowMs) {
      current.indexes.push(index);
      current.sendAt = Math.max(current.sendAt, due);
      return;
    }
    current = { sendAt: due, indexes: [index] };
    firstDue = due;
    sends.push(current);
  });
  return sends;
}

/** DelaySeconds for a message due at dueMs, sent at nowMs (native mode): never before it is due. */
export function delaySecondsUntil(dueMs: number, nowMs: number): number {
  return Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((dueMs - nowMs) / 1000)));
}
