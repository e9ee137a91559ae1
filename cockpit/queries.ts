// The one source of Cockpit's queries: every panel of cockpit/dashboard.json and every rule of cockpit/alerts.yaml,
// with the words docs/operations.md shows for them. `npm run cockpit` writes all three from here. The queries read
// only the lines and keys of shared/platform/log-schema.ts and Cockpit's labels (test/unit/cockpit/queries.test.ts
// checks each one with Grafana's LogQL grammar).
import type { ErrorCode } from '../shared/errors/lbsync-error';
import type { LogType } from '../shared/platform/log-schema';
import type { FunctionName } from './settings';
import { FUNCTIONS, SWEEP_PERIOD_MINUTES, selector } from './settings';

/** Which functions print each kind of line. */
export const PRINTED_BY: Record<LogType, readonly FunctionName[]> = {
  reconcile_answer: ['reconcile'],
  sweep_heartbeat: ['sweep'],
  watch_heartbeat: ['watch'],
  function_failed: FUNCTIONS,
};

/**
 * The lines of these types, parsed, then filtered by `stages`: `{<selector>} |= "reconcile_answer" | json |
 * log_type="reconcile_answer" | outcome="applied"`. The line filter first, so Loki parses only those lines.
 */
export function lines(types: LogType | readonly LogType[], ...stages: string[]): string {
  const list = typeof types === 'string' ? [types] : [...types];
  const functions = FUNCTIONS.filter((name) => list.some((type) => PRINTED_BY[type].includes(name)));
  const [first] = list;
  const typed =
    list.length === 1 ? `|= "${first}" | json | log_type="${first}"` : `|~ "${list.join('|')}" | json | log_type=~"${list.join('|')}"`;
  return [`${selector(functions)} ${typed}`, ...stages].join(' | ');
}

/** Grafana's variables in the dashboard's queries: the panel's step, and the dashboard's target filter (a regex). */
export const DASHBOARD_VARIABLES = { interval: '$__interval', range: '$__range', target: '$target' } as const;
const STEP = DASHBOARD_VARIABLES.interval;

/** The reconcile function's final lines of the targets the dashboard shows. */
const answers = (...stages: string[]) => lines('reconcile_answer', `target=~"${DASHBOARD_VARIABLES.target}"`, ...stages);
const SUCCESS = 'outcome=~"applied|noop"';
const unwrap = (key: string) => [`unwrap ${key}`, '__error__=""'];

/**
 * A shadow deployment's answers that would have written (shadow_writes > 0), counted by target over `range`: the
 * dashboard's shadow panel and `lbsync status` (in shadow mode) read this one query, so both say the same N.
 */
export function shadowWritesQuery(range: string, targetFilter?: string): string {
  const filter = targetFilter === undefined ? [] : [`target=~"${targetFilter}"`];
  return `sum by (target) (count_over_time(${lines('reconcile_answer', ...filter, 'shadow_writes > 0')} [${range}]))`;
}

/** The window `lbsync status` reads the shadow count over. */
export const SHADOW_STATUS_RANGE = '24h';

export interface PanelQuery {
  expr: string;
  /** Grafana's legend format: `{{target}} {{outcome}}`. */
  legend: string;
  /** One value per series at the end of the range (a stat), instead of a series over time. */
  instant?: boolean;
}

export interface PanelSpec {
  title: string;
  description: string;
  kind: 'timeseries' | 'stat' | 'logs';
  /** Grafana's unit id: short, ms, dateTimeFromNow. */
  unit?: string;
  /** Bars stacked per step, for counts. */
  bars?: boolean;
  queries: PanelQuery[];
}

export const PANELS: readonly PanelSpec[] = [
  {
    title: 'Outcomes per target',
    description:
      'Each message the reconcile function answered, by target and outcome: applied (wrote), noop (in sync), dry_run, retry_scheduled, dead_lettered, handoff_failed.',
    kind: 'timeseries',
    bars: true,
    unit: 'short',
    queries: [{ expr: `sum by (target, outcome) (count_over_time(${answers()} [${STEP}]))`, legend: '{{target}} {{outcome}}' }],
  },
  {
    title: 'Shadow mode: would have written, per target',
    description:
      'LBSYNC_MODE=shadow: the answers that would have written in the time range (nothing was written), by target; lbsync status shows the same count. A drift nobody fixes is planned again by every reconcile (each sweep), so the count grows while it lasts. Empty for a writing deployment.',
    kind: 'stat',
    unit: 'short',
    queries: [{ expr: shadowWritesQuery(DASHBOARD_VARIABLES.range, DASHBOARD_VARIABLES.target), legend: '{{target}}', instant: true }],
  },
  {
    title: 'Convergence latency per target (p50, p95)',
    description:
      "From the originating event's occurredAt (kept through retries) to its applied or noop answer: a server replaced, seen by the watcher, and the pool written.",
    kind: 'timeseries',
    unit: 'ms',
    queries: [0.5, 0.95].map((q) => ({
      expr: `quantile_over_time(${q}, ${answers(SUCCESS, ...unwrap('convergence_ms'))} [${STEP}]) by (target)`,
      legend: `{{target}} p${q * 100}`,
    })),
  },
  {
    title: 'Last applied or noop, per target',
    description:
      'When each target last got a successful answer (the sweep gives every target one per period); nothing in the last 24 hours shows no value.',
    kind: 'stat',
    unit: 'dateTimeFromNow',
    queries: [
      {
        expr: `max by (target) (max_over_time(${answers(SUCCESS, 'label_format answered_at="{{ __timestamp__ | unixEpoch }}"', ...unwrap('answered_at'))} [24h])) * 1000`,
        legend: '{{target}}',
        instant: true,
      },
    ],
  },
  {
    title: 'Retries by reason',
    description: 'Retries scheduled, by the error code that caused them (docs/troubleshooting.md has an entry for each).',
    kind: 'timeseries',
    bars: true,
    unit: 'short',
    queries: [
      { expr: `sum by (code) (count_over_time(${answers('outcome="retry_scheduled"', 'code!=""')} [${STEP}]))`, legend: '{{code}}' },
    ],
  },
  {
    title: 'Dead letters by reason',
    description: 'Events put in the dead-letter queue, by reason and error code: `lbsync dlq list` shows them.',
    kind: 'timeseries',
    bars: true,
    unit: 'short',
    queries: [
      { expr: `sum by (reason, code) (count_over_time(${answers('outcome="dead_lettered"')} [${STEP}]))`, legend: '{{reason}} {{code}}' },
    ],
  },
  {
    title: 'Rate-limited answers',
    description: "Answers whose error was the API gateway's 429 (rate_limited), per target.",
    kind: 'timeseries',
    bars: true,
    unit: 'short',
    queries: [{ expr: `sum by (target) (count_over_time(${answers('code="rate_limited"')} [${STEP}]))`, legend: '{{target}}' }],
  },
  {
    title: 'Make-before-break: holds and deferred removals',
    description:
      'Answers that held removals back (removal_deferred, discovery_suspect), and how many members wait to leave: during a rolling update they wait for the new members to pass the health check.',
    kind: 'timeseries',
    unit: 'short',
    queries: [
      {
        expr: `sum by (target, code) (count_over_time(${answers('code=~"removal_deferred|discovery_suspect"')} [${STEP}]))`,
        legend: '{{target}} {{code}}',
      },
      {
        expr: `max by (target) (max_over_time(${answers(...unwrap('members_deferred'))} [${STEP}]))`,
        legend: '{{target}} members deferred',
      },
    ],
  },
  {
    title: 'Pool per target: members and passing',
    description:
      "The target's members after each answer, and how many passed the LB's health check when this reconcile read it (only reconciles that remove members read it).",
    kind: 'timeseries',
    unit: 'short',
    queries: [
      { expr: `max by (target) (max_over_time(${answers(...unwrap('pool_size'))} [${STEP}]))`, legend: '{{target}} members' },
      { expr: `min by (target) (min_over_time(${answers(...unwrap('pool_passing'))} [${STEP}]))`, legend: '{{target}} passing' },
    ],
  },
  {
    title: 'Sweep and watch heartbeats',
    description: `One line per run: the sweep every ${SWEEP_PERIOD_MINUTES} minutes (logged once its last batch is sent), the watcher every minute; failed runs by status.`,
    kind: 'timeseries',
    bars: true,
    unit: 'short',
    queries: [
      { expr: `sum by (status) (count_over_time(${lines('sweep_heartbeat')} [${STEP}]))`, legend: 'sweep {{status}}' },
      { expr: `sum by (status) (count_over_time(${lines('watch_heartbeat')} [${STEP}]))`, legend: 'watch {{status}}' },
    ],
  },
  {
    title: 'Targets enqueued and Audit Trail events read',
    description: 'What the runs did: targets the sweep and the watcher put on the queue, events the watcher read.',
    kind: 'timeseries',
    unit: 'short',
    queries: [
      {
        expr: `sum(sum_over_time(${lines('sweep_heartbeat', ...unwrap('targets_enqueued'))} [${STEP}]))`,
        legend: 'sweep: targets enqueued',
      },
      {
        expr: `sum(sum_over_time(${lines('watch_heartbeat', ...unwrap('targets_enqueued'))} [${STEP}]))`,
        legend: 'watch: targets enqueued',
      },
      { expr: `sum(sum_over_time(${lines('watch_heartbeat', ...unwrap('events_read'))} [${STEP}]))`, legend: 'watch: events read' },
    ],
  },
  {
    title: 'Configuration errors and failed hand-offs',
    description:
      'Functions that could not run (invalid_config: the configuration was refused), and messages or runs the queue did not take (queue_unavailable).',
    kind: 'timeseries',
    bars: true,
    unit: 'short',
    queries: [
      {
        expr: `sum by (resource_name, code) (count_over_time(${lines('function_failed')} [${STEP}]))`,
        legend: '{{resource_name}} {{code}}',
      },
      {
        expr: `sum by (log_type) (count_over_time(${lines(['reconcile_answer', 'sweep_heartbeat', 'watch_heartbeat'], 'code="queue_unavailable"')} [${STEP}]))`,
        legend: '{{log_type}} queue_unavailable',
      },
    ],
  },
  {
    title: 'Answers to look at',
    description: 'The retries, dead letters and failed hand-offs themselves, newest first.',
    kind: 'logs',
    queries: [
      {
        expr: answers(
          'outcome=~"retry_scheduled|dead_lettered|handoff_failed"',
          'line_format "{{.target}} #{{.attempt}} {{.outcome}} {{.code}} {{.message}}"',
        ),
        legend: '',
      },
    ],
  },
];

/** Where an alert's runbook_url points: an error code's troubleshooting entry, the code the alert carries, or its own entry. */
export type Runbook = { code: ErrorCode } | { codeLabel: true } | { ownEntry: true };

export interface AlertSpec {
  alert: string;
  /** The rule group it belongs to. */
  group: 'reconcile' | 'runs';
  expr: string;
  for?: string;
  severity: 'critical' | 'warning';
  /** One line; may name the alert's labels ({{ $labels.target }}). */
  summary: string;
  /** What it means, then what to do: shown in the alert and in docs/operations.md. */
  means: string;
  action: string;
  runbook: Runbook;
}

/** The reconcile function's final lines, of every target (alert rules have no dashboard variables). */
const allAnswers = (...stages: string[]) => lines('reconcile_answer', ...stages);

export const ALERTS: readonly AlertSpec[] = [
  {
    alert: 'LbSyncDeadLetter',
    group: 'reconcile',
    expr: `sum by (target, reason, code) (count_over_time(${allAnswers('outcome="dead_lettered"')} [10m])) > 0`,
    severity: 'warning',
    summary: '{{ $labels.target }}: an event was dead-lettered ({{ $labels.reason }}, {{ $labels.code }})',
    means: 'An event ended in the dead-letter queue in the last 10 minutes. It is not retried on its own.',
    action:
      "`lbsync dlq list`, then `lbsync dlq show --id <event id>`: the reason and the code say why (the runbook is the code's troubleshooting entry). Fix the cause, then `lbsync dlq redrive --id <event id>`; the next sweep reconciles the target anyway.",
    runbook: { codeLabel: true },
  },
  {
    alert: 'LbSyncTargetNotConverging',
    group: 'reconcile',
    expr:
      `(sum by (target, code) (count_over_time(${allAnswers('outcome="retry_scheduled"', 'code!=""')} [15m])) > 0)` +
      ` unless on (target) (sum by (target) (count_over_time(${allAnswers(SUCCESS)} [15m])) > 0)`,
    severity: 'warning',
    summary: '{{ $labels.target }}: retrying ({{ $labels.code }}) with no applied or noop answer for 15 minutes',
    means: `The target was retried, and none of its answers was applied or noop for 15 minutes (${15 / SWEEP_PERIOD_MINUTES} sweeps): its pool may be out of step with its servers.`,
    action:
      "Read the code's troubleshooting entry. `lbsync plan -t <target>` shows what is pending, `lbsync doctor -t <target>` checks the LB, the servers and their health. A new control plane that takes longer than this to pass its health check (removal_deferred) fires it too.",
    runbook: { codeLabel: true },
  },
  {
    alert: 'LbSyncRemovalDeferred',
    group: 'reconcile',
    expr: `min_over_time(${allAnswers(...unwrap('members_deferred'))} [30m]) by (target) > 0`,
    severity: 'warning',
    summary: '{{ $labels.target }}: a member has waited more than 30 minutes to leave the pool',
    means:
      'Every answer for the target in the last 30 minutes kept a member that should leave: a new member has not passed the LB health check for that long (make-before-break), maxUnavailable holds removals back, or discovery looks partial (discovery_suspect).',
    action:
      "`lbsync doctor -t <target>` shows each member's health check. Make the new server answer on the backend's port, or check the servers' tags when discovery is suspect.",
    runbook: { code: 'removal_deferred' },
  },
  {
    alert: 'LbSyncRateLimited',
    group: 'reconcile',
    expr: `sum by (target) (count_over_time(${allAnswers('code="rate_limited"')} [15m])) > 3`,
    severity: 'warning',
    summary: '{{ $labels.target }}: rate-limited by the Scaleway API more than 3 times in 15 minutes',
    means: "The API gateway keeps answering 429: each time the reconcile waits and retries, so the target's pool is late.",
    action: 'Find what else uses the API key (another tool, a loop); sweep less often, or give the functions their own key.',
    runbook: { code: 'rate_limited' },
  },
  {
    alert: 'LbSyncQueueHandOffFailed',
    group: 'reconcile',
    expr: `sum by (log_type) (count_over_time(${lines(['reconcile_answer', 'sweep_heartbeat', 'watch_heartbeat'], 'code="queue_unavailable"')} [10m])) > 0`,
    severity: 'critical',
    summary: 'a {{ $labels.log_type }} could not hand an event to the queue',
    means:
      'The reconcile function could not re-enqueue or dead-letter an event (it answered 500: the queue redelivers it, and after 4 deliveries it lands in the dead-letter queue as max_receives), or a sweep or watcher run could not enqueue its events.',
    action:
      'Check the Queues credentials the functions hold (publish), RECONCILE_QUEUE_URL and DEAD_LETTER_QUEUE_URL, and the queues themselves (`lbsync doctor`).',
    runbook: { code: 'queue_unavailable' },
  },
  {
    alert: 'LbSyncInvalidConfiguration',
    group: 'runs',
    expr: `sum by (resource_name) (count_over_time(${lines('function_failed', 'code="invalid_config"')} [10m])) > 0`,
    severity: 'critical',
    summary: 'the {{ $labels.resource_name }} function refuses its configuration',
    means:
      'A function answered 500 because its configuration (LBSYNC_TARGETS, LBSYNC_CONFIG or another variable) is invalid: it does nothing until fixed.',
    action:
      'The ERROR line names each field and its fix; `lbsync targets validate` checks the targets. Fix, deploy, then `lbsync dlq redrive --all`.',
    runbook: { code: 'invalid_config' },
  },
  {
    alert: 'LbSyncSweepHeartbeatMissing',
    group: 'runs',
    expr: `absent_over_time(${lines('sweep_heartbeat', 'status="ok"')} [${2 * SWEEP_PERIOD_MINUTES}m])`,
    severity: 'warning',
    summary: `no sweep run completed for ${2 * SWEEP_PERIOD_MINUTES} minutes`,
    means: `No sweep run completed for two periods (${2 * SWEEP_PERIOD_MINUTES} minutes): the safety net is not running, so an event that was missed or lost is not made up for.`,
    action:
      'Is the sweep deployed, with its cron trigger? Its logs say why otherwise: a function_failed line (invalid_config), or a failed heartbeat (queue_unavailable: the Queues credentials or RECONCILE_QUEUE_URL).',
    runbook: { ownEntry: true },
  },
  {
    alert: 'LbSyncWatchHeartbeatMissing',
    group: 'runs',
    expr: `absent_over_time(${lines('watch_heartbeat', 'status="ok"')} [5m])`,
    severity: 'warning',
    summary: 'no watcher run completed for 5 minutes',
    means:
      'The watcher, which runs every minute, did not complete a run for 5 minutes: server replacements are caught only by the sweep and the boot hook meanwhile.',
    action:
      "A failed heartbeat carries the code: permissions_denied means the watcher's key lacks AuditTrailReadOnly at organization scope (deploy.md §7); queue_unavailable, the Queues credentials. Otherwise, the cron trigger or a function_failed line.",
    runbook: { ownEntry: true },
  },
];
