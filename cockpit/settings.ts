// What Cockpit's dashboard and alert rules assume about the deployment, each in one place. Change one here, then
// `npm run cockpit` regenerates cockpit/dashboard.json, cockpit/alerts.yaml and their section of docs/operations.md.

import type { FunctionName } from '../functions/registry';

/** Stands for the function's name in STREAM_LABELS. */
export const FUNCTION_PLACEHOLDER = '<function>';

/**
 * The stream labels Cockpit puts on a function's logs. ASSUMED (docs/operations.md says why): Scaleway documents
 * resource_type and resource_name as the labels of its products' logs, not the value for Functions, nor that
 * resource_name is the function's name. If Explore's label browser shows otherwise, change them here.
 */
export const STREAM_LABELS: Readonly<Record<string, string>> = {
  resource_type: 'serverless_function',
  resource_name: FUNCTION_PLACEHOLDER,
};

/** Labels Cockpit documents on its products' logs: a query may use them besides the fields of our JSON lines. */
export const COCKPIT_LABELS = ['resource_type', 'resource_name', 'resource_id', 'region'] as const;

/** The sweep's cron period (serverless.yml: every 5 minutes); "no sweep heartbeat" waits two of them. */
export const SWEEP_PERIOD_MINUTES = 5;

/**
 * An alert's runbook is a page and anchor of the docs that ship with the version installed (its `runbook`
 * annotation, relative to the repository: `docs/troubleshooting.md#<code>`). No web address is assumed: `lbsync
 * cockpit install --docs-url <base>` adds a runbook_url at the base where your team reads that copy.
 */
export const TROUBLESHOOTING_PAGE = 'docs/troubleshooting.md';
/** The page that tells, for each alert, what it means and what to do. */
export const ALERTS_PAGE = 'docs/operations.md';

/** The Loki ruler namespace the rule groups are pushed to, and the dashboard's uid in Grafana. */
export const RULE_NAMESPACE = 'scw-lb-sync';
export const DASHBOARD_UID = 'scw-lb-sync';

/** Cockpit's limit on the rules of one group. */
export const MAX_RULES_PER_GROUP = 20;

const quote = (value: string) => JSON.stringify(value);

/**
 * The stream selector of these functions' logs: `{resource_type="serverless_function", resource_name="reconcile"}`,
 * or with a regex matcher (`=~"sweep|watch"`) for several.
 */
export function selector(functions: FunctionName | readonly FunctionName[]): string {
  const names = typeof functions === 'string' ? [functions] : [...functions];
  const matchers = Object.entries(STREAM_LABELS).map(([label, value]) => {
    if (!value.includes(FUNCTION_PLACEHOLDER)) return `${label}=${quote(value)}`;
    const values = names.map((name) => value.replaceAll(FUNCTION_PLACEHOLDER, name));
    return values.length === 1 ? `${label}=${quote(values[0] as string)}` : `${label}=~${quote(values.join('|'))}`;
  });
  return `{${matchers.join(', ')}}`;
}
