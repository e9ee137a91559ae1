// The one source of Cockpit's queries: every panel of cockpit/dashboard.json and every rule of cockpit/alerts.yaml,
// with the words docs/operations.md shows for them. `npm run cockpit` writes all three from here. The queries read
// only the lines and keys of shared/platform/log-schema.ts and Cockpit's labels (test/unit/cockpit/queries.test.ts
// checks each one with Grafana's LogQL grammar).
import type { CommandErrorCode, ErrorCode, WarningCode } from '../shared/errors/lbsync-error';
import type { LogType } from '../shared/platform/log-schema';
import { FUNCTIONS, type FunctionName } from '../functions/registry';
import { SWEEP_PERIOD_MINUTES, selector } from './settings';

/** Which functions print each kind of line. */
export const PRINTED_BY: Record<LogType, readonly FunctionName[]> = {
  reconcile_answer: ['reconcile'],
  sweep_heartbeat: ['sweep'],
  watch_heartbeat: ['watch'],
  foreign_write: ['watch'],
  pool_contested: ['watch'],
  function_failed: FUNCTIONS,
  invocation_start: FUNCTIONS,
  invocation_end: FUNCTIONS,
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

/**
 * The metrics Cockpit keeps for Serverless Functions, as Scaleway's guide to Functions alerts names them
 * (Functions > How to configure alerts): the only names a metrics panel may use.
 */
export const FUNCTION_METRICS = [
  'serverless_function_status',
  'serverless_function_cpu_usage_ratio',
  'serverless_function_memory_usage_bytes',
  'serverless_function_memory_limit_bytes',
] as const;

/** One of those metrics, for the four functions (resource_name: the function's name, ASSUMED as for the logs). */
function metric(name: (typeof FUNCTION_METRICS)[number], ...matchers: string[]): string {
  return `${name}{${[`resource_name=~"${FUNCTIONS.join('|')}"`, ...matchers].join(', ')}}`;
}

/** Lines of one type, of these functions only (the invocation lines are every function's: this one's, here). */
export function linesOf(functions: FunctionName | readonly FunctionName[], type: LogType, ...stages: string[]): string {
  return [`${selector(functions)} |= "${type}" | json | log_type="${type}"`, ...stages].join(' | ');
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
  /** logs (default): LogQL over the functions' lines; metrics: PromQL over the metrics Cockpit keeps for Functions. */
  source?: 'logs' | 'metrics';
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
    title: 'Pool per target: members, passing, needed',
    description:
      "The target's members after each answer; how many passed the LB's health check when this reconcile read it (every sweep's reconcile does, and those that remove members); and how many it needs, a majority of its desired pool (2 of 3 control planes). Passing under needed is the LbSyncPoolBelowQuorum alert.",
    kind: 'timeseries',
    unit: 'short',
    queries: [
      { expr: `max by (target) (max_over_time(${answers(...unwrap('pool_size'))} [${STEP}]))`, legend: '{{target}} members' },
      { expr: `min by (target) (min_over_time(${answers(...unwrap('pool_passing'))} [${STEP}]))`, legend: '{{target}} passing' },
      { expr: `max by (target) (max_over_time(${answers(...unwrap('pool_needed'))} [${STEP}]))`, legend: '{{target}} needed' },
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
    title: 'Other writers of the pools, and contests',
    description:
      "Pool and backend writes on the targets' backends by anyone else, as the watcher read them in Audit Trail (foreign_write, by writer), and the writers scw-lb-sync kept reverting (pool_contested: 3 times in 30 minutes). kOps' apply writing its workers in is expected; two scw-lb-sync deployments or a Terraform-managed pool are not (docs/troubleshooting.md#pool_contested).",
    kind: 'timeseries',
    bars: true,
    unit: 'short',
    queries: [
      {
        expr: `sum by (target, writer_kind) (count_over_time(${lines('foreign_write', `target=~"${DASHBOARD_VARIABLES.target}"`)} [${STEP}]))`,
        legend: '{{target}} written by {{writer_kind}}',
      },
      {
        expr: `sum by (target, writer) (count_over_time(${lines('pool_contested', `target=~"${DASHBOARD_VARIABLES.target}"`)} [${STEP}]))`,
        legend: '{{target}} contested by {{writer}}',
      },
    ],
  },
  {
    title: 'Invocations per function: errors, cold starts, and none answered',
    description:
      'Every invocation has a start line and, when it answered, an end line with its status (function shell). Answers of 500 and over, cold starts, and invocations started but not answered (crashed, timed out, out of memory: no end line).',
    kind: 'timeseries',
    bars: true,
    unit: 'short',
    queries: [
      {
        expr: `sum by (resource_name) (count_over_time(${lines('invocation_end', 'status >= 500')} [${STEP}]))`,
        legend: '{{resource_name}} answered >= 500',
      },
      {
        expr: `sum by (resource_name) (count_over_time(${lines('invocation_end', 'cold_start="true"')} [${STEP}]))`,
        legend: '{{resource_name}} cold starts',
      },
      {
        expr: `sum by (resource_name) (count_over_time(${lines('invocation_start')} [${STEP}])) - sum by (resource_name) (count_over_time(${lines('invocation_end')} [${STEP}]))`,
        legend: '{{resource_name}} started - answered',
      },
    ],
  },
  {
    title: 'Invocation duration (p95) and memory, per function',
    description:
      "How long each function's invocations took (p95 of the end lines' duration_ms), and the process's resident memory at each answer (memory_mb; the functions run in the 128 MB tier). Cockpit's own metrics are in the panel below.",
    kind: 'timeseries',
    unit: 'short',
    queries: [
      {
        expr: `quantile_over_time(0.95, ${lines('invocation_end', ...unwrap('duration_ms'))} [${STEP}]) by (resource_name)`,
        legend: '{{resource_name}} p95 ms',
      },
      {
        expr: `max by (resource_name) (max_over_time(${lines('invocation_end', ...unwrap('memory_mb'))} [${STEP}]))`,
        legend: '{{resource_name}} MB',
      },
    ],
  },
  {
    title: "Cockpit's own Functions metrics: memory, CPU, error status",
    description:
      "The metrics Cockpit keeps for Serverless Functions (Scaleway metrics data source; names from Scaleway's Functions alert guide): memory used against the limit, CPU used (percent of the tier's), and a function whose status is error. resource_name is assumed to be the function's name, as for the logs.",
    source: 'metrics',
    kind: 'timeseries',
    unit: 'short',
    queries: [
      {
        expr: `max by (resource_name) (${metric('serverless_function_memory_usage_bytes')} / ${metric('serverless_function_memory_limit_bytes')}) * 100`,
        legend: '{{resource_name}} memory %',
      },
      { expr: `max by (resource_name) (${metric('serverless_function_cpu_usage_ratio')})`, legend: '{{resource_name}} CPU %' },
      { expr: `max by (resource_name) (${metric('serverless_function_status', 'status="error"')})`, legend: '{{resource_name}} in error' },
    ],
  },
  {
    title: 'Scaleway API: calls and latency',
    description:
      'The Scaleway API requests of the reconciles (api_reads, api_writes), and the slowest request of each reconcile (p95 of api_max_ms, in ms).',
    kind: 'timeseries',
    unit: 'short',
    queries: [
      { expr: `sum(sum_over_time(${answers(...unwrap('api_reads'))} [${STEP}]))`, legend: 'reads' },
      { expr: `sum(sum_over_time(${answers(...unwrap('api_writes'))} [${STEP}]))`, legend: 'writes' },
      { expr: `quantile_over_time(0.95, ${answers(...unwrap('api_max_ms'))} [${STEP}])`, legend: 'slowest request p95 (ms)' },
    ],
  },
  {
    title: "Queues: waiting messages and dead letters, and events' age",
    description:
      "Both queues' depths as the sweep reads them at the end of each run (GetQueueAttributes: Cockpit documents no queue metric names), and how late each event was received (age_ms: from when it was due to the reconcile's receipt, p95, in ms).",
    kind: 'timeseries',
    unit: 'short',
    queries: [
      {
        expr: `max(max_over_time(${lines('sweep_heartbeat', ...unwrap('reconcile_queue_waiting'))} [${STEP}]))`,
        legend: 'reconcile queue waiting',
      },
      {
        expr: `max(max_over_time(${lines('sweep_heartbeat', ...unwrap('dead_letters_waiting'))} [${STEP}]))`,
        legend: 'dead letters waiting',
      },
      { expr: `quantile_over_time(0.95, ${answers(...unwrap('age_ms'))} [${STEP}])`, legend: 'events received, p95 age (ms)' },
    ],
  },
  {
    title: 'Inject answers by status',
    description:
      "What the inject function answered: 202 accepted; 400 a bad event; 401 a wrong token (the boot hook's INJECT_TOKEN); 503 the queue failed. A 403 (no valid X-Auth-Token) is answered by the platform before the function runs and never reaches these logs.",
    kind: 'timeseries',
    bars: true,
    unit: 'short',
    queries: [{ expr: `sum by (status) (count_over_time(${linesOf('inject', 'invocation_end')} [${STEP}]))`, legend: '{{status}}' }],
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
export type Runbook = { code: ErrorCode | WarningCode | CommandErrorCode } | { codeLabel: true } | { ownEntry: true };

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

/** Per function, the invocation lines of one kind over a range (with its offset): `sum by (resource_name) (...)`. */
const invocations = (type: 'invocation_start' | 'invocation_end', range: string) =>
  `sum by (resource_name) (count_over_time(${lines(type)} ${range}))`;

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
    alert: 'LbSyncPoolContested',
    group: 'runs',
    expr: `sum by (target, writer) (count_over_time(${lines('pool_contested', 'writer_kind!="kops"')} [30m])) > 0`,
    severity: 'warning',
    summary: "{{ $labels.target }}: scw-lb-sync and {{ $labels.writer }} keep rewriting each other's pool",
    means:
      "The watcher found scw-lb-sync reverting the same writer's pool writes on this target 3 times in 30 minutes (kOps is left out: its apply writes its workers in, which converges).",
    action:
      'Untangle the writers: two scw-lb-sync deployments on one target (keep it in one LBSYNC_TARGETS), a Terraform-managed pool (ignore_changes = [server_ips]), the cloud-controller-manager, or someone editing it by hand.',
    runbook: { code: 'pool_contested' },
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
    alert: 'LbSyncPoolBelowQuorum',
    group: 'reconcile',
    expr: `min_over_time(${allAnswers(...unwrap('pool_short'))} [15m]) by (target) > 0`,
    for: '5m',
    severity: 'critical',
    summary: '{{ $labels.target }}: fewer members pass the LB health check than the target needs',
    means:
      "Every reading of the target's pool for 15 minutes (each sweep reads the LB's health checks) found fewer passing members than a majority of its desired pool (2 of 3 control planes): one more failure and the API behind the LB is down. scw-lb-sync cannot add what does not pass; it only keeps serving members in.",
    action:
      "`lbsync status -t <target>` shows each member's health check. Look at the control planes that fail (the API server, etcd, the node), and at what removed or stopped servers; during a kOps rolling update this fires only if a new control plane never comes up.",
    runbook: { ownEntry: true },
  },
  {
    alert: 'LbSyncPoolNonePassing',
    group: 'reconcile',
    expr: `max_over_time(${allAnswers(...unwrap('pool_passing'))} [10m]) by (target) == 0`,
    for: '2m',
    severity: 'critical',
    summary: '{{ $labels.target }}: no member passes the LB health check',
    means:
      "Every reading of the target's pool for 10 minutes found no member passing the LB's health check: the LB sends traffic nowhere, the API behind it is down.",
    action:
      "`lbsync status -t <target>`: if the pool holds the right servers, they are down or their port is closed (the LB's check, not scw-lb-sync); if it holds the wrong ones, `lbsync plan` says why and `lbsync reconcile` writes the right pool now.",
    runbook: { ownEntry: true },
  },
  {
    alert: 'LbSyncEventsLate',
    group: 'reconcile',
    expr: `quantile_over_time(0.9, ${allAnswers(...unwrap('age_ms'))} [15m]) > 600000`,
    for: '10m',
    severity: 'warning',
    summary: 'events reach the reconcile function more than 10 minutes after they were due',
    means:
      "The reconcile function received most events of the last 15 minutes over 10 minutes late (age_ms: from an event's notBefore, else its occurredAt, to its receipt): the queue trigger is behind, stopped, or the function cannot keep up.",
    action:
      "Check the queue trigger (console: the reconcile function, Triggers), the LbSyncQueueBacklog alert and the reconcile function's errors; a sweep of many targets with LBSYNC_SWEEP_SPREAD_MS=0 makes a burst that takes time to drain.",
    runbook: { ownEntry: true },
  },
  {
    alert: 'LbSyncScalewayApiSlow',
    group: 'reconcile',
    expr: `quantile_over_time(0.95, ${allAnswers(...unwrap('api_max_ms'))} [15m]) > 5000`,
    for: '10m',
    severity: 'warning',
    summary: 'the Scaleway API is slow: the slowest request of most reconciles takes over 5 s',
    means:
      'The slowest Scaleway API request of 95 % of the reconciles of the last 15 minutes took over 5 s (LBSYNC_REQUEST_TIMEOUT_MS cuts a request at 10 s by default): reconciles near their deadline and retry with network_error.',
    action:
      'Check https://status.scaleway.com; the Scaleway API panel shows calls and latency. Raise LBSYNC_REQUEST_TIMEOUT_MS only if the API is slow but answers.',
    runbook: { code: 'network_error' },
  },
  {
    alert: 'LbSyncInvalidConfiguration',
    group: 'runs',
    expr: `sum by (resource_name, code) (count_over_time(${lines('function_failed', 'code=~"invalid_config|invalid_credentials"')} [10m])) > 0`,
    severity: 'critical',
    summary: 'the {{ $labels.resource_name }} function refuses its configuration ({{ $labels.code }})',
    means:
      'A function answered 500 because its configuration (LBSYNC_TARGETS, LBSYNC_CONFIG or another variable) is invalid, or its Scaleway API key is malformed (invalid_credentials): it does nothing until fixed.',
    action:
      "The ERROR line names each field (or the key's variable) and its fix; `lbsync targets validate` checks the targets. Fix, deploy, then `lbsync dlq redrive --all`.",
    runbook: { codeLabel: true },
  },
  {
    alert: 'LbSyncInvocationsUnanswered',
    group: 'runs',
    expr:
      `(${invocations('invocation_start', '[30m] offset 7m')} > on (resource_name) ${invocations('invocation_end', '[37m]')})` +
      ` or (${invocations('invocation_start', '[30m] offset 7m')} unless on (resource_name) ${invocations('invocation_end', '[37m]')})`,
    severity: 'warning',
    summary: 'the {{ $labels.resource_name }} function started invocations that never answered',
    means:
      'Invocations of the function started (invocation_start) and never wrote their end line: the function crashed, timed out or ran out of memory. A reconcile cut so answers nothing, so the queue redelivers its message, and after 4 deliveries it lands in the dead-letter queue as max_receives. The window ends 7 minutes ago, past the longest timeout (the sweep: 360 s).',
    action:
      "Read the function's last lines before the gap (Explore, by function_request_id), and Cockpit's memory panel: an out-of-memory kill shows as memory near 128 MB; a timeout as a duration near the function's timeout. Then `lbsync dlq list` for the max_receives dead letters.",
    runbook: { ownEntry: true },
  },
  {
    alert: 'LbSyncFunctionErrors',
    group: 'runs',
    expr: `sum by (resource_name) (count_over_time(${lines('invocation_end', 'status >= 500')} [15m])) > 3`,
    for: '5m',
    severity: 'warning',
    summary: 'the {{ $labels.resource_name }} function answered 5xx more than 3 times in 15 minutes',
    means:
      'Invocations answered 500 or more: a reconcile that could not hand its message on (queue_unavailable), a sweep or watcher whose queue or Audit Trail failed, or a function that cannot run (function_failed). The more specific alerts name the cause; this one catches the rest.',
    action: "Filter the function's lines on level ERROR (or log_type function_failed): their code's troubleshooting entry says what to do.",
    runbook: { ownEntry: true },
  },
  {
    alert: 'LbSyncFunctionMemoryHigh',
    group: 'runs',
    expr: `max_over_time(${lines('invocation_end', ...unwrap('memory_mb'))} [10m]) by (resource_name) > 112`,
    for: '10m',
    severity: 'warning',
    summary: 'the {{ $labels.resource_name }} function ends invocations with over 112 MB of its 128 MB',
    means:
      "For 20 minutes the function's process has ended invocations with more than 112 MB resident (memory_mb of the end lines), near the 128 MB tier: the next big answer may be an out-of-memory kill.",
    action:
      'Look for what grew (many targets per sweep, a large Audit Trail window); docs/deploy.md, Sizing, tells the measured peaks and how to raise the tier.',
    runbook: { ownEntry: true },
  },
  {
    alert: 'LbSyncReconcileSlow',
    group: 'runs',
    expr: `quantile_over_time(0.95, ${linesOf('reconcile', 'invocation_end', ...unwrap('duration_ms'))} [15m]) > 45000`,
    for: '10m',
    severity: 'warning',
    summary: 'reconcile invocations take over 45 s (p95), near their 60 s timeout',
    means:
      'Most reconciles end close to their deadline (LBSYNC_FUNCTION_TIMEOUT_MS minus LBSYNC_DEADLINE_MARGIN_MS): an LB long busy, a slow API, or waits (hold, transient, apply) that add up. They hand the event on with a retry rather than being cut, but convergence is slow.',
    action:
      'The retries panel says which code; the Scaleway API panel, whether the API is slow. Hold + transient wait + wait budget must fit the timeout (docs/deploy.md).',
    runbook: { ownEntry: true },
  },
  {
    alert: 'LbSyncDeadLettersWaiting',
    group: 'runs',
    expr: `min_over_time(${lines('sweep_heartbeat', ...unwrap('dead_letters_waiting'))} [30m]) > 0`,
    severity: 'warning',
    summary: 'dead letters have been waiting for 30 minutes',
    means:
      'Every sweep of the last 30 minutes found messages in the dead-letter queue (GetQueueAttributes). This counts what no answer line tells: a message the queue moved there itself after 4 deliveries (max_receives: a function that crashed, timed out or answered 500), as well as the dead letters the reconcile wrote.',
    action:
      "`lbsync dlq list`: each dead letter's reason and code; fix, then `lbsync dlq redrive`, or `lbsync dlq delete` what must not run again.",
    runbook: { ownEntry: true },
  },
  {
    alert: 'LbSyncQueueBacklog',
    group: 'runs',
    expr: `min_over_time(${lines('sweep_heartbeat', ...unwrap('reconcile_queue_waiting'))} [15m]) > 20`,
    for: '5m',
    severity: 'warning',
    summary: 'more than 20 messages have been waiting on the reconcile queue for 15 minutes',
    means:
      'Every sweep of the last 15 minutes found over 20 messages waiting on the reconcile queue: the queue trigger does not deliver, or the reconcile function cannot keep up (at most 10 in flight).',
    action: 'Check the queue trigger of the reconcile function, its errors, and the LbSyncEventsLate alert.',
    runbook: { ownEntry: true },
  },
  {
    alert: 'LbSyncInjectRefused',
    group: 'runs',
    expr: `sum(count_over_time(${linesOf('inject', 'invocation_end', 'status="401"')} [30m])) >= 3`,
    severity: 'warning',
    summary: 'the inject function refused the token 3 times or more in 30 minutes',
    means:
      "Callers of inject (the boot hook on new control planes, scripts) send a bearer token that is not INJECT_TOKEN (401): new servers are announced only by the watcher and the sweep meanwhile. A 403 (no valid X-Auth-Token) is refused by the platform before the function runs: it is on the node's journal only.",
    action:
      "Check the token on the callers (/etc/lbsync/token on the nodes, hooks/README.md) against the function's INJECT_TOKEN; after a rotation, the nodes' asset first.",
    runbook: { code: 'unauthorized' },
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
