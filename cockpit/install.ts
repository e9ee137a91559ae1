// `lbsync cockpit install`'s work, through the clients it is given: the rule groups of cockpit/alerts.yaml into a
// Loki ruler namespace, cockpit/dashboard.json into Grafana. Idempotent: what is there already and the same is left
// alone ("unchanged"); a group of the namespace that the file no longer has is removed. A dry run only lists what
// would be sent.
import { parse, stringify } from 'yaml';
import type { GrafanaDashboards } from '../cli/adapters/grafana-dashboards';
import { saveRequest } from '../cli/adapters/grafana-dashboards';
import type { LokiRuler } from '../cli/adapters/loki-ruler';
import { COCKPIT_TOKEN_HEADER, rulesPath } from '../cli/adapters/loki-ruler';
import type { RuleGroup } from './alerts';
import { MAX_RULES_PER_GROUP } from './settings';

export interface Shipped {
  groups: RuleGroup[];
  dashboard: Record<string, unknown> & { uid: string; title?: string };
}

/** The version message Grafana keeps with each save. */
const SAVE_MESSAGE = 'lbsync cockpit install';

export type Change = 'created' | 'updated' | 'unchanged' | 'removed';

export interface GroupChange {
  name: string;
  rules: number;
  change: Change;
}

/** The two files as the repository ships them, checked for what the install relies on. */
export function readShipped(alertsYaml: string, dashboardJson: string): Shipped {
  const alerts = parse(alertsYaml) as { groups?: unknown } | null;
  const groups = alerts?.groups;
  if (!Array.isArray(groups) || groups.length === 0) throw new Error('cockpit/alerts.yaml has no `groups:` list');
  for (const group of groups as Partial<RuleGroup>[]) {
    if (typeof group.name !== 'string' || !Array.isArray(group.rules) || group.rules.length === 0)
      throw new Error('cockpit/alerts.yaml: every group needs a name and rules');
    if (group.rules.length > MAX_RULES_PER_GROUP)
      throw new Error(
        `cockpit/alerts.yaml: group ${group.name} has ${group.rules.length} rules; Cockpit takes at most ${MAX_RULES_PER_GROUP}`,
      );
  }
  const dashboard = JSON.parse(dashboardJson) as Shipped['dashboard'];
  if (typeof dashboard?.uid !== 'string' || dashboard.uid === '') throw new Error('cockpit/dashboard.json has no uid');
  return { groups: groups as RuleGroup[], dashboard };
}

/**
 * Whether what is there holds everything we would send, with the same values (what the service adds, such as
 * Grafana's id and version, does not count); lists must match element by element, in length too.
 */
export function holds(there: unknown, ours: unknown): boolean {
  if (Array.isArray(ours)) return Array.isArray(there) && there.length === ours.length && ours.every((item, i) => holds(there[i], item));
  if (ours !== null && typeof ours === 'object') {
    if (there === null || typeof there !== 'object' || Array.isArray(there)) return false;
    return Object.entries(ours).every(([key, value]) => value === undefined || holds((there as Record<string, unknown>)[key], value));
  }
  return there === ours;
}

/** One group as the ruler takes it: POST /loki/api/v1/rules/<namespace>, one group per request. */
export function groupYaml(group: RuleGroup): string {
  return stringify(group, { lineWidth: 0 });
}

export async function syncRuleGroups(ruler: LokiRuler, namespace: string, groups: readonly RuleGroup[]): Promise<GroupChange[]> {
  const there = new Map((await ruler.groups(namespace)).map((group) => [String(group.name), group]));
  const changes: GroupChange[] = [];
  for (const group of groups) {
    const existing = there.get(group.name);
    // A rule group is all ours (the ruler adds nothing): the same both ways, so a runbook_url dropped is a change too.
    const change: Change = existing === undefined ? 'created' : holds(existing, group) && holds(group, existing) ? 'unchanged' : 'updated';
    if (change !== 'unchanged') await ruler.setGroup(namespace, groupYaml(group));
    changes.push({ name: group.name, rules: group.rules.length, change });
  }
  const ours = new Set(groups.map((g) => g.name));
  for (const [name, group] of there) {
    if (ours.has(name)) continue;
    await ruler.deleteGroup(namespace, name);
    changes.push({ name, rules: Array.isArray(group.rules) ? group.rules.length : 0, change: 'removed' });
  }
  return changes;
}

export async function syncDashboard(
  grafana: GrafanaDashboards,
  dashboard: Shipped['dashboard'],
): Promise<{ change: Change; url?: string }> {
  const existing = await grafana.get(dashboard.uid);
  if (existing !== undefined && holds(existing, dashboard)) return { change: 'unchanged' };
  const saved = await grafana.save(dashboard, SAVE_MESSAGE);
  return { change: existing === undefined ? 'created' : 'updated', ...saved };
}

export interface PlannedRequest {
  method: 'POST';
  url: string;
  /** Which credential would go in which header (never its value). */
  headers: Record<string, string>;
  body: string;
}

/** What an install sends at the most (each only when different from what is there), for a dry run: no network. */
export function plannedRequests(
  shipped: Shipped,
  options: { namespace: string; logsUrl?: string; grafanaUrl?: string; alerts: boolean; dashboard: boolean },
): PlannedRequest[] {
  const logs = options.logsUrl ?? '<the logs data source URL>';
  const grafana = (options.grafanaUrl ?? "<the project's Grafana URL>").replace(/\/+$/, '');
  return [
    ...(options.alerts
      ? shipped.groups.map(
          (group): PlannedRequest => ({
            method: 'POST',
            url: rulesPath(logs, options.namespace),
            headers: { [COCKPIT_TOKEN_HEADER]: '<Cockpit token>', 'Content-Type': 'application/yaml' },
            body: groupYaml(group),
          }),
        )
      : []),
    ...(options.dashboard
      ? [
          {
            method: 'POST' as const,
            url: `${grafana}/api/dashboards/db`,
            headers: { Authorization: '<Grafana credentials>', 'Content-Type': 'application/json' },
            body: JSON.stringify(saveRequest(shipped.dashboard, SAVE_MESSAGE), null, 2),
          },
        ]
      : []),
  ];
}
