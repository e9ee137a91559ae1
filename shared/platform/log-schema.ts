// The log lines other tools read, as one table: which lines, which keys, their types. Three things use it:
// - the functions build these lines with its types;
// - Cockpit's dashboard and alert rules (cockpit/queries.ts) may filter only on its keys (cockpit/logql-check.ts,
//   run by test/unit/cockpit/queries.test.ts and generated.test.ts);
// - the lines a real local run prints are checked against it (test/cli/npm-start.test.ts).
// So docs, dashboard and alerts cannot drift from what the functions print. Every key is snake_case.
import * as z from 'zod';
import { DEAD_LETTER_REASONS } from '../core/disposition';
import { EVENT_SOURCES } from '../schemas/event-sources';
import { WRITER_KINDS } from '../schemas/primitives';

/** The key that names a line of this table; a line without it is free text for people (with the common keys). */
export const LOG_TYPE_KEY = 'log_type';

/** How a reconcile ended, as its answer and its final line say (the outcomes of docs/architecture.md, plus the 500 of a failed hand-off). */
export const ANSWER_OUTCOMES = ['applied', 'noop', 'dry_run', 'retry_scheduled', 'dead_lettered', 'handoff_failed'] as const;
export type AnswerOutcome = (typeof ANSWER_OUTCOMES)[number];

const count = z.number().int().min(0);
const isoTime = z.iso.datetime({ offset: true });

/** The error a line carries, as shared/platform/log.ts' formatError writes it (our own fields after, snake_case). */
const loggedError = z.looseObject({ name: z.string(), message: z.string(), location: z.string() });

/** Keys any line may carry: Powertools' (level, message, timestamp, service, the function's) and the event's. */
export const commonKeys = {
  level: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']),
  message: z.string(),
  timestamp: isoTime,
  service: z.string(),
  cold_start: z.boolean().optional(),
  function_name: z.string().optional(),
  function_memory_size: z.number().optional(),
  function_request_id: z.string().optional(),
  event_id: z.string().optional(),
  target: z.string().optional(),
  attempt: count.optional(),
  /** Only in a shadow deployment (LBSYNC_MODE=shadow), on every line. */
  mode: z.literal('shadow').optional(),
};

/**
 * The reconcile function's final line for one message: what it answered, and the figures a dashboard needs. The
 * pool is the target's members after the answer, over all its backends; a dry run leaves it as read. pool_passing is
 * there only if this reconcile read the LB's health checks, as it does before a removal (a no-op reads none).
 */
export const reconcileAnswerLine = z.strictObject({
  ...commonKeys,
  log_type: z.literal('reconcile_answer'),
  outcome: z.enum(ANSWER_OUTCOMES),
  /** What produced the event. */
  source: z.enum(EVENT_SOURCES).optional(),
  /** The error code (retry_scheduled, dead_lettered, handoff_failed); docs/troubleshooting.md has one entry each. */
  code: z.string().optional(),
  /** Why it was dead-lettered. */
  reason: z.enum(DEAD_LETTER_REASONS).optional(),
  record_id: z.string().optional(),
  retry_in_ms: count.optional(),
  next_attempt: count.optional(),
  pool_size: count.optional(),
  pool_passing: count.optional(),
  members_added: count,
  members_removed: count,
  members_deferred: count,
  /** Leaving servers (kOps' needs-update mark, or the target's leavingTags) the pools met: kept, kept out or admitted. */
  members_leaving: count.optional(),
  /** The writes made, one line each; in a dry run, the writes it would make. */
  writes: z.array(z.string()),
  /** From the first event's occurredAt (kept through retries) to an applied or noop answer. */
  convergence_ms: count.optional(),
  api_reads: count.optional(),
  api_writes: count.optional(),
  /** In a shadow deployment, for an event that was no dry run itself: the writes a writing deployment would have made. */
  shadow_writes: count.optional(),
  /** With pool_passing: how many passing members the target needs (a majority of its desired pool), and how many it lacks. */
  pool_needed: count.optional(),
  pool_short: count.optional(),
  /** How late the reconcile received the event: from when it was due (notBefore, else occurredAt) to its receipt. */
  age_ms: count.optional(),
  /** The Scaleway API requests of this reconcile: their total time and the slowest one. */
  api_ms: count.optional(),
  api_max_ms: count.optional(),
  /** How long the reconcile took, from its first read to its last wait (absent when the event was not reconciled). */
  duration_ms: count.optional(),
  /**
   * A target with several LBs: each LB's own figures, in the target's order. The pool figures above are then the
   * worst-off LB's, and the changes and writes (each naming its LB) count over all of them.
   */
  lbs: z
    .array(
      z.strictObject({
        zone: z.string(),
        lb_id: z.string().optional(),
        lb_name: z.string().optional(),
        status: z.enum(['applied', 'noop', 'planned', 'failed']),
        code: z.string().optional(),
        writes: z.array(z.string()),
        pool_size: count.optional(),
        pool_passing: count.optional(),
        pool_short: count.optional(),
        members_deferred: count,
      }),
    )
    .optional(),
  error: loggedError.optional(),
});

const heartbeat = {
  ...commonKeys,
  /** ok: the run did its job; failed: it could not (`code` says why); the next run makes up for it. */
  status: z.enum(['ok', 'failed']),
  code: z.string().optional(),
  targets_enqueued: count,
  /** The run's window: what the watcher read; the interval the sweep's events are due in. */
  window_from: isoTime,
  window_to: isoTime,
  dry_run: z.boolean(),
  error: loggedError.optional(),
};

const refused = z.array(z.strictObject({ target: z.string(), code: z.string(), message: z.string() }));

/** One per sweep run, at its end (in hold mode, once its last batch is sent). */
export const sweepHeartbeatLine = z.strictObject({
  ...heartbeat,
  log_type: z.literal('sweep_heartbeat'),
  targets_selected: count,
  targets_failed: count,
  failed: refused,
  unknown_targets: z.array(z.string()),
  batches: count,
  sending: z.enum(['all-at-once', 'delayed', 'paced']),
  spread_ms: count,
  /** The queues' depths at the run's end (GetQueueAttributes; approximate, as SQS says); absent when not read. */
  reconcile_queue_waiting: count.optional(),
  reconcile_queue_in_flight: count.optional(),
  dead_letters_waiting: count.optional(),
  dead_letters_in_flight: count.optional(),
});

/** One per watch run. */
export const watchHeartbeatLine = z.strictObject({
  ...heartbeat,
  log_type: z.literal('watch_heartbeat'),
  events_read: count,
  events_relevant: count,
  ignored: z.record(z.string(), count),
  list_calls: count,
  truncated_regions: z.array(z.string()),
  /** Targets whose organization's Audit Trail no key of theirs may read this run (left to the sweep). */
  unread_targets: z.array(z.string()),
  failed: refused.optional(),
});

/** The watcher: one per pool or backend write on a target's backend made by anyone but this deployment. */
export const foreignWriteLine = z.strictObject({
  ...commonKeys,
  log_type: z.literal('foreign_write'),
  method: z.string(),
  user_agent: z.string(),
  /** Who, as an operator reads it: `kOps 1.37.0`, `Terraform (...)`, `another scw-lb-sync deployment (owner x)`. */
  writer: z.string(),
  writer_kind: z.enum(WRITER_KINDS),
  /** When the call was recorded. */
  at: isoTime,
  principal_id: z.string().optional(),
  backend: z.string().optional(),
  lb_id: z.string().optional(),
});

/** The watcher: scw-lb-sync kept reverting one writer on one target (3 times in 30 minutes); see troubleshooting. */
export const poolContestedLine = z.strictObject({
  ...commonKeys,
  log_type: z.literal('pool_contested'),
  code: z.literal('pool_contested'),
  writer: z.string(),
  writer_kind: z.enum(WRITER_KINDS),
  user_agent: z.string(),
  reverts: count,
  window_minutes: count,
  /** Another scw-lb-sync deployment's owner id. */
  owner: z.string().optional(),
});

/** Every invocation of every function, as it starts (logged by the function shell, before anything else). */
export const invocationStartLine = z.strictObject({
  ...commonKeys,
  log_type: z.literal('invocation_start'),
});

/**
 * Every invocation that ended with an answer (the function shell's last line): its HTTP status, how long it took,
 * and the process's resident memory then. An invocation that crashed, timed out or ran out of memory has a start
 * line and no end line: that gap is what Cockpit's alert counts.
 */
export const invocationEndLine = z.strictObject({
  ...commonKeys,
  log_type: z.literal('invocation_end'),
  status: z.number().int().min(100).max(599),
  duration_ms: count,
  memory_mb: count,
});

/** A function that could not run at all (an invalid configuration, mostly): it answered 500. */
export const functionFailedLine = z.strictObject({
  ...commonKeys,
  log_type: z.literal('function_failed'),
  code: z.string(),
  error: loggedError.optional(),
});

export const LOG_LINES = {
  reconcile_answer: reconcileAnswerLine,
  sweep_heartbeat: sweepHeartbeatLine,
  watch_heartbeat: watchHeartbeatLine,
  foreign_write: foreignWriteLine,
  pool_contested: poolContestedLine,
  function_failed: functionFailedLine,
  invocation_start: invocationStartLine,
  invocation_end: invocationEndLine,
} as const;
export type LogType = keyof typeof LOG_LINES;
export const LOG_TYPES = Object.keys(LOG_LINES) as LogType[];

/** Any line: the common keys typed, anything else free, and log_type (when present) one of the table's. */
export const anyLine = z.looseObject({ ...commonKeys, log_type: z.enum(LOG_TYPES as [LogType, ...LogType[]]).optional() });

type Common = keyof typeof commonKeys;
/** What a handler passes to the logger for a line of this type: the line less what the logger adds; an Error as it is. */
export type LineFields<T extends LogType> = Omit<z.input<(typeof LOG_LINES)[T]>, Common | 'error'> & { error?: unknown };

/** Every key a line of the table may carry (the fields a query may read after `| json`). */
export function loggedKeys(): Set<string> {
  return new Set([...Object.keys(commonKeys), ...Object.values(LOG_LINES).flatMap((line) => Object.keys(line.shape))]);
}

/** Checks one printed line (a JSON text) against the table: the field errors, or [] when it fits. */
export function lineProblems(text: string): string[] {
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch {
    return [`not JSON: ${text.slice(0, 120)}`];
  }
  const base = anyLine.safeParse(entry);
  if (!base.success) return base.error.issues.map((i) => `${i.path.join('.') || '(line)'}: ${i.message}`);
  const typed = base.data.log_type;
  if (typed === undefined) return [];
  const strict = LOG_LINES[typed].safeParse(entry);
  return strict.success ? [] : strict.error.issues.map((i) => `${typed}: ${i.path.join('.') || '(line)'}: ${i.message}`);
}
