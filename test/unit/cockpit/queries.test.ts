// The files that ship (cockpit/alerts.yaml, cockpit/dashboard.json), read as Cockpit will: every LogQL expression
// parses with Grafana's own grammar (@grafana/lezer-logql) with no error node; every key a query reads is a key of
// the log schema (shared/platform/log-schema.ts) or a Cockpit label, every value it compares a key with is one a
// line can have; the stream selector is the one setting; the alert rules fit Cockpit's limits and each has its
// summary, description and a runbook_url to an entry that exists.
import { readFileSync } from 'node:fs';
import { parser } from '@grafana/lezer-logql';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { RuleGroup } from '../../../cockpit/alerts';
import { FUNCTIONS } from '../../../functions/registry';
import { analyse, interpolate, metricQueryProblems, queryProblems } from '../../../cockpit/logql-check';
import { ALERTS, FUNCTION_METRICS } from '../../../cockpit/queries';
import { ALERTS_PAGE, MAX_RULES_PER_GROUP, STREAM_LABELS, SWEEP_PERIOD_MINUTES, TROUBLESHOOTING_PAGE } from '../../../cockpit/settings';
import { ERROR_CATALOG } from '../../../shared/errors/lbsync-error';

const ROOT = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const groups = (parse(read('cockpit/alerts.yaml')) as { groups: RuleGroup[] }).groups;
const rules = groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(read('cockpit/dashboard.json')) as {
  templating: { list: { name: string; type: string; query?: string }[] };
  panels: {
    id: number;
    type: string;
    title: string;
    datasource: { type: string; uid: string };
    gridPos: { x: number; w: number };
    targets: { expr: string; datasource: { uid: string } }[];
  }[];
};
const fromLogs = (p: (typeof dashboard.panels)[number]) => p.datasource.type === 'loki';
const shipped = [
  ...rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
  ...dashboard.panels.filter(fromLogs).flatMap((p) => p.targets.map((t) => ({ where: `panel "${p.title}"`, expr: t.expr }))),
];
const metricsShipped = dashboard.panels
  .filter((p) => !fromLogs(p))
  .flatMap((p) => p.targets.map((t) => ({ where: `panel "${p.title}"`, expr: t.expr })));

/** The offsets of error nodes in the grammar's tree (Grafana's variables replaced as Grafana sends them to Loki). */
function grammarErrors(expr: string): number[] {
  const errors: number[] = [];
  parser.parse(interpolate(expr)).iterate({ enter: (node) => void (node.type.isError && errors.push(node.from)) });
  return errors;
}

describe('every LogQL expression that ships', () => {
  it('there are the alerts and panels the issue asks for', () => {
    expect(rules.length).toBeGreaterThanOrEqual(7);
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(9);
    expect(shipped.length).toBeGreaterThan(20);
  });

  it.each(shipped)('$where parses with @grafana/lezer-logql, no error node', ({ expr }) => {
    expect(grammarErrors(expr)).toEqual([]);
  });

  it.each(shipped)('$where reads only keys of the log schema and Cockpit labels, with values lines have', ({ expr }) => {
    expect(queryProblems(expr)).toEqual([]);
  });

  it('the checks catch what they look for', () => {
    const good = ALERTS[0]?.expr as string;
    expect(grammarErrors(good.replace('count_over_time(', 'count_over_time'))).not.toEqual([]);
    expect(queryProblems(good.replace('outcome="dead_lettered"', 'outcome="dead_letered"'))).toEqual([
      'outcome: no line has the value "dead_letered"',
    ]);
    expect(queryProblems(good.replace('by (target, reason, code)', 'by (target, reason, error_code)'))).toEqual([
      '"error_code" is no key of the log schema nor a Cockpit label',
    ]);
    expect(queryProblems(good.replace('log_type="reconcile_answer"', 'log_type="reconcile_answers"'))).toEqual([
      'log_type: no line has the value "reconcile_answers"',
    ]);
    expect(queryProblems(good.replace('| outcome=', '| code="no_such_code" | outcome='))).toEqual([
      'code: no line has the value "no_such_code"',
    ]);
    expect(queryProblems(good.replace('"serverless_function"', '"serverless_container"'))).toHaveLength(1);
    expect(queryProblems(good.replace(', resource_name="reconcile"', ''))).toHaveLength(1);
    expect(queryProblems(good.replace('resource_name="reconcile"', 'resource_name="reconciler"'))).toHaveLength(1);
    expect(queryProblems(good.replace('| json', '| json | line_format "{{.targetName}}"'))).toEqual([
      '"targetName" is no key of the log schema nor a Cockpit label',
    ]);
  });

  it.each(metricsShipped)(
    "$where (Cockpit's Functions metrics) reads only the metrics Scaleway documents, for the four functions",
    ({ expr }) => {
      expect(metricQueryProblems(expr, FUNCTION_METRICS)).toEqual([]);
      expect(
        metricQueryProblems(expr.replace('serverless_function_cpu_usage_ratio', 'serverless_function_cpu_seconds'), FUNCTION_METRICS)
          .length + metricQueryProblems(expr.replace('resource_name=~', 'resource_id=~'), FUNCTION_METRICS).length,
      ).toBeGreaterThan(0);
    },
  );

  it('every stream selector is the one setting, STREAM_LABELS, with a function name where it has the placeholder', () => {
    for (const { where, expr } of shipped) {
      const selectors = analyse(interpolate(expr)).selectors;
      expect(selectors.length, where).toBeGreaterThan(0);
      for (const matchers of selectors) expect(matchers.map((m) => m.key).sort(), where).toEqual(Object.keys(STREAM_LABELS).sort());
    }
  });
});

/** The anchors GitHub gives the headings of a markdown page. */
function anchors(page: string): string[] {
  return [...read(page).matchAll(/^#+ (.+)$/gm)].map((m) =>
    (m[1] as string)
      .toLowerCase()
      .replace(/`/g, '')
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-'),
  );
}

describe('cockpit/alerts.yaml', () => {
  it(`rule groups of at most ${MAX_RULES_PER_GROUP} rules (Cockpit's limit), unique alert names`, () => {
    expect(groups.length).toBeGreaterThan(0);
    for (const group of groups) {
      expect(group.rules.length, group.name).toBeGreaterThan(0);
      expect(group.rules.length, group.name).toBeLessThanOrEqual(MAX_RULES_PER_GROUP);
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it('each alert has a summary, a description and a runbook: an entry of the shipped docs that exists, and no web address assumed', () => {
    const troubleshooting = anchors(TROUBLESHOOTING_PAGE);
    const guide = anchors(ALERTS_PAGE);
    for (const rule of rules) {
      expect(rule.annotations.summary, rule.alert).toMatch(/\S{3}/);
      expect(rule.annotations.description, rule.alert).toContain('What to do:');
      const url = rule.annotations.runbook;
      const [page, anchor] = url.split('#') as [string, string];
      expect(rule.annotations.runbook_url, rule.alert).toBeUndefined();
      if (anchor === '{{ $labels.code }}') {
        // The code varies: the alert must carry it as a label, and every code has its entry.
        expect(rule.expr, rule.alert).toMatch(/^\(?sum by \([^)]*\bcode\b/);
        expect(page).toBe(TROUBLESHOOTING_PAGE);
        for (const code of Object.keys(ERROR_CATALOG)) expect(troubleshooting, code).toContain(code);
      } else {
        expect(page === TROUBLESHOOTING_PAGE ? troubleshooting : page === ALERTS_PAGE ? guide : [], url).toContain(anchor);
      }
    }
  });

  it('the alerts the issue lists are there, with the windows it gives', () => {
    const expr = (alert: string) => rules.find((r) => r.alert === alert)?.expr ?? '';
    expect(expr('LbSyncDeadLetter')).toContain('outcome="dead_lettered"');
    expect(expr('LbSyncTargetNotConverging')).toMatch(
      /outcome="retry_scheduled".*\[15m\].*unless on \(target\).*outcome=~"applied\|noop".*\[15m\]/,
    );
    expect(expr('LbSyncSweepHeartbeatMissing')).toMatch(
      new RegExp(`^absent_over_time\\(.*sweep_heartbeat.*\\[${2 * SWEEP_PERIOD_MINUTES}m\\]\\)$`),
    );
    expect(expr('LbSyncWatchHeartbeatMissing')).toMatch(/^absent_over_time\(.*watch_heartbeat.*\[5m\]\)$/);
    expect(expr('LbSyncInvalidConfiguration')).toContain('code=~"invalid_config|invalid_credentials"');
    expect(expr('LbSyncQueueHandOffFailed')).toContain('code="queue_unavailable"');
    expect(expr('LbSyncRemovalDeferred')).toMatch(/^min_over_time\(.*unwrap members_deferred.*\[30m\]\) by \(target\) > 0$/);
    // Fewer passing members than the target needs (a majority of its desired pool), and none at all.
    expect(expr('LbSyncPoolBelowQuorum')).toMatch(/^min_over_time\(.*unwrap pool_short.*\[15m\]\) by \(target\) > 0$/);
    expect(expr('LbSyncPoolNonePassing')).toMatch(/^max_over_time\(.*unwrap pool_passing.*\[10m\]\) by \(target\) == 0$/);
    // A function that crashed, timed out or ran out of memory: started, never answered; the window past every timeout.
    expect(expr('LbSyncInvocationsUnanswered')).toMatch(
      /invocation_start.*\[30m\] offset 7m.*> on \(resource_name\).*invocation_end.*\[37m\]/,
    );
    expect(expr('LbSyncInvocationsUnanswered')).toMatch(/unless on \(resource_name\)/);
    // What no answer line says: dead letters the queue moved itself (max_receives), and its depth.
    expect(expr('LbSyncDeadLettersWaiting')).toMatch(/sweep_heartbeat.*unwrap dead_letters_waiting/);
    expect(expr('LbSyncQueueBacklog')).toMatch(/sweep_heartbeat.*unwrap reconcile_queue_waiting/);
    expect(expr('LbSyncEventsLate')).toMatch(/unwrap age_ms/);
    expect(expr('LbSyncInjectRefused')).toMatch(/resource_name="inject".*invocation_end.*status="401"/);
    expect(expr('LbSyncFunctionErrors')).toMatch(/invocation_end.*status >= 500/);
    expect(expr('LbSyncFunctionMemoryHigh')).toMatch(/unwrap memory_mb/);
    expect(expr('LbSyncReconcileSlow')).toMatch(/resource_name="reconcile".*unwrap duration_ms/);
    expect(expr('LbSyncScalewayApiSlow')).toMatch(/unwrap api_max_ms/);
  });

  it('an alert that one line (or one reading) could set off waits with for:, so a single line does not page', () => {
    const byName = new Map(rules.map((r) => [r.alert, r]));
    // A threshold on a count, a quantile or a peak: held for a while before it fires.
    for (const alert of [
      'LbSyncPoolBelowQuorum',
      'LbSyncPoolNonePassing',
      'LbSyncEventsLate',
      'LbSyncScalewayApiSlow',
      'LbSyncFunctionErrors',
      'LbSyncFunctionMemoryHigh',
      'LbSyncReconcileSlow',
      'LbSyncQueueBacklog',
    ])
      expect(byName.get(alert)?.for, alert).toMatch(/^\d+m$/);
    // The others fire on one event that matters by itself (a dead letter, a refused configuration, a crash), or
    // already say "for this long" in their window (a missing heartbeat, dead letters waiting 30 minutes, 3 refusals).
    const held = rules.filter((r) => r.for).length;
    expect(held).toBeGreaterThanOrEqual(8);
  });
});

describe('cockpit/dashboard.json', () => {
  it('its Loki data source is a dashboard variable, used by every logs panel and query; the metrics one by the metrics panel', () => {
    const variable = `\${${'datasource'}}`;
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'loki' }));
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: 'metrics', type: 'datasource', query: 'prometheus' }));
    expect(metricsShipped.length).toBeGreaterThan(0);
    const metricsVariable = `\${${'metrics'}}`;
    for (const panel of dashboard.panels.filter((p) => !fromLogs(p))) {
      expect(panel.datasource).toEqual({ type: 'prometheus', uid: metricsVariable });
      for (const target of panel.targets) expect(target.datasource.uid, panel.title).toBe(metricsVariable);
    }
    for (const panel of dashboard.panels.filter(fromLogs)) {
      expect(panel.datasource, panel.title).toEqual({ type: 'loki', uid: variable });
      for (const target of panel.targets) expect(target.datasource.uid, panel.title).toBe(variable);
    }
  });

  it('panel ids are unique and the grid is 24 wide', () => {
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const panel of dashboard.panels) expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
  });
});

describe('what the settings assume about the deployment', () => {
  const serverless = parse(read('serverless.yml')) as { functions: Record<string, { events?: { schedule?: { rate: string } }[] }> };

  it('the functions are the ones serverless.yml deploys, by the same names', () => {
    expect(Object.keys(serverless.functions).sort()).toEqual([...FUNCTIONS].sort());
  });

  it(`the sweep runs every ${SWEEP_PERIOD_MINUTES} minutes, as "no sweep heartbeat for two periods" assumes`, () => {
    const rate = serverless.functions.sweep?.events?.find((e) => e.schedule)?.schedule?.rate ?? '';
    const minutes = (rate.split(' ')[0] ?? '').split(',').map(Number);
    expect(minutes.length).toBe(60 / SWEEP_PERIOD_MINUTES);
    expect(minutes.every((m, i) => m === i * SWEEP_PERIOD_MINUTES)).toBe(true);
  });
});
