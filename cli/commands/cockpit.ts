import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { Shipped } from '../../cockpit/install';
import { plannedRequests, readShipped, syncDashboard, syncRuleGroups } from '../../cockpit/install';
import { withDocsBase } from '../../cockpit/alerts';
import { withTargets } from '../../cockpit/dashboard';
import { configuredTargets, targetsConfigured } from '../environment';
import { RULE_NAMESPACE } from '../../cockpit/settings';
import type { CockpitGateway } from '../adapters/cockpit';
import { createCockpitGateway } from '../adapters/cockpit';
import type { GrafanaAuth } from '../adapters/grafana-dashboards';
import { authorization, createGrafanaDashboards } from '../adapters/grafana-dashboards';
import { createLokiRuler } from '../adapters/loki-ruler';
import { LbSyncError } from '../../shared/errors/lbsync-error';
import { hasUrlCredentials } from '../../shared/outbound/scrub';
import { runtimeConfigFromEnv } from '../../shared/platform/config';
import type { Cli } from '../command';
import { act, helpText } from '../command';
import { resolveScalewayCredentials } from '../credentials';
import type { Output } from '../output';
import { CliError, EXIT, plural } from '../output';

interface InstallOptions {
  dryRun?: boolean;
  region?: string;
  logsUrl?: string;
  grafanaUrl?: string;
  docsUrl?: string;
  namespace: string;
  alerts: boolean;
  dashboard: boolean;
}

const SHIPPED = {
  alerts: new URL('../../cockpit/alerts.yaml', import.meta.url),
  dashboard: new URL('../../cockpit/dashboard.json', import.meta.url),
};

/** What to check when a part fails, per part: the Cockpit API, the data source's ruler, Grafana. */
const HINTS = {
  api: 'The Cockpit API answers to the Scaleway API key (SCW_ACCESS_KEY / SCW_SECRET_KEY, or --profile) with ObservabilityFullAccess on the project SCW_DEFAULT_PROJECT_ID (it creates a token); or give COCKPIT_TOKEN with --logs-url and --grafana-url, and no key is needed.',
  ruler:
    'The Cockpit token needs the scope full_access_logs_rules ("Logs: alert rules, full access"), in the region of the logs data source; --logs-url is that data source\'s URL (console: Cockpit > Data sources, type Logs, origin Scaleway).',
  grafana:
    "Grafana takes GRAFANA_TOKEN (a service-account token) or GRAFANA_USER / GRAFANA_PASSWORD of an editor (`scw cockpit grafana-user create login=... role=editor`); --grafana-url is the project's Grafana (console: Cockpit > Open dashboards).",
} as const;

/** A failure of one part, told with that part's hint (the code and message are the adapter's). */
async function part<T>(hint: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof LbSyncError) throw new CliError(error.code, error.message, hint);
    throw error;
  }
}

function httpUrl(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol) || hasUrlCredentials(value))
    throw new CliError(
      'usage',
      `${flag} must be an http(s) URL without credentials, got "${value.replace(/\/\/[^/@]*@/, '//[redacted]@')}"`,
    );
  return value.replace(/\/+$/, '');
}

function readShippedFiles(): Shipped {
  try {
    return readShipped(readFileSync(SHIPPED.alerts, 'utf8'), readFileSync(SHIPPED.dashboard, 'utf8'));
  } catch (error) {
    throw new CliError('invalid_config', `cannot read what to install: ${(error as Error).message}`, 'run `npm run cockpit` in the clone');
  }
}

function printPlanned(out: Output, shipped: Shipped, options: InstallOptions, logsUrl?: string, grafanaUrl?: string): number {
  const requests = plannedRequests(shipped, {
    namespace: options.namespace,
    ...(logsUrl && { logsUrl }),
    ...(grafanaUrl && { grafanaUrl }),
    alerts: options.alerts,
    dashboard: options.dashboard,
  });
  if (out.format === 'json') {
    out.result(true, { dryRun: true, namespace: options.namespace, requests });
    return EXIT.ok;
  }
  out.line('cockpit install --dry-run: nothing is read or sent. An install sends these, each only when it differs from what is there:');
  for (const request of requests) {
    out.line('');
    out.line(out.c.bold(`${request.method} ${request.url}`));
    for (const [name, value] of Object.entries(request.headers)) out.line(out.c.dim(`${name}: ${value}`));
    out.line(request.body.trimEnd());
  }
  return EXIT.ok;
}

/** The Cockpit API with the Scaleway key, only when something has to be found or a token made. */
function cockpitApi(cli: Cli, region: string): CockpitGateway {
  const { settings } = resolveScalewayCredentials(cli.io.env);
  if (!settings.projectId)
    throw new CliError('invalid_config', 'SCW_DEFAULT_PROJECT_ID is not set: the Cockpit API needs the project', HINTS.api);
  return createCockpitGateway({
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    projectId: settings.projectId,
    region,
    ...(settings.apiUrl && { apiUrl: settings.apiUrl }),
    ...(settings.requestTimeoutMs !== undefined && { requestTimeoutMs: settings.requestTimeoutMs }),
    ...(settings.ownerId && { ownerId: settings.ownerId }),
  });
}

function grafanaAuth(cli: Cli): GrafanaAuth {
  const env = cli.io.env;
  const token = env.GRAFANA_TOKEN?.trim();
  if (token) {
    cli.protect(token);
    return { token };
  }
  const user = env.GRAFANA_USER?.trim();
  const password = env.GRAFANA_PASSWORD?.trim();
  if (!user || !password)
    throw new CliError(
      'invalid_config',
      'the dashboard needs Grafana credentials: GRAFANA_TOKEN, or GRAFANA_USER and GRAFANA_PASSWORD (or --no-dashboard)',
      HINTS.grafana,
    );
  const auth = { user, password };
  cli.protect(password);
  cli.protect(authorization(auth).slice('Basic '.length));
  return auth;
}

async function logsDataSourceUrl(api: CockpitGateway, region: string): Promise<string> {
  const found = await part(HINTS.api, () => api.scalewayLogsDataSources());
  if (found.length === 1) return (found[0] as { url: string }).url;
  if (found.length === 0)
    throw new CliError(
      'not_found',
      `no logs data source made by Scaleway in ${region} for this project`,
      'Cockpit makes it when a product first sends logs there: deploy the functions first (region fr-par in serverless.yml), or give --logs-url.',
    );
  throw new CliError(
    'usage',
    `${found.length} logs data sources made by Scaleway in ${region}: ${found.map((d) => `${d.name} ${d.url}`).join(', ')}`,
    "give the one that holds the functions' logs with --logs-url",
  );
}

function installCommand(cli: Cli): Command {
  const env = cli.io.env;
  return new Command('install')
    .description(
      "push cockpit/alerts.yaml (Loki rule groups) to the ruler of Cockpit's logs data source, and cockpit/dashboard.json to the project's Cockpit Grafana; unchanged parts are left alone",
    )
    .option('--dry-run', 'print what would be sent; needs no credentials and makes no request')
    .option('--region <region>', 'the Cockpit region of the logs data source (default SCW_DEFAULT_REGION, else fr-par)')
    .option('--logs-url <url>', "the logs data source's URL (default: found with the Cockpit API)")
    .option('--grafana-url <url>', "the project's Grafana URL (default: found with the Cockpit API)")
    .option('--namespace <name>', 'the ruler namespace the rule groups go in', RULE_NAMESPACE)
    .option(
      '--docs-url <url>',
      "where your team reads this repository's files (a fork, an internal Git server): each alert gets a runbook_url there; without it, alerts name their runbook as a docs path (docs/troubleshooting.md#<code>) of the version installed",
    )
    .option('--no-alerts', 'leave the alert rules alone')
    .option('--no-dashboard', 'leave the dashboard alone')
    .addHelpText(
      'after',
      `${helpText(
        [
          'lbsync cockpit install --dry-run',
          'GRAFANA_USER=ops GRAFANA_PASSWORD=... lbsync cockpit install',
          'COCKPIT_TOKEN=... GRAFANA_TOKEN=... lbsync cockpit install --logs-url https://... --grafana-url https://...',
        ],
        [
          [0, 'installed, or already there (each part says created, updated, unchanged or removed)'],
          [1, 'missing credentials, an API, ruler or Grafana failure'],
          [64, 'bad flags'],
        ],
        '{ok, command: "cockpit install", alerts: {url, namespace, groups: [{name, rules, change}]}, dashboard: {url, uid, change, link?}, token}; with --dry-run {ok, command, dryRun: true, requests: [{method, url, headers, body}]}',
      )}
Credentials, from the environment only (never printed):
  COCKPIT_TOKEN     a Cockpit token with the scope full_access_logs_rules; without it, one is made for the run
                    with the Scaleway API key (ObservabilityFullAccess) and deleted after it
  GRAFANA_TOKEN     a Grafana service-account token, or GRAFANA_USER and GRAFANA_PASSWORD (an editor)
  Scaleway API key  SCW_ACCESS_KEY / SCW_SECRET_KEY (or --profile) and SCW_DEFAULT_PROJECT_ID, to find the data
                    source and Grafana (unless --logs-url and --grafana-url) and to make the token
`,
    )
    .action(
      act<InstallOptions>(cli, async (options, out) => {
        if (!options.alerts && !options.dashboard) throw new CliError('usage', '--no-alerts and --no-dashboard leave nothing to install');
        if (!/^[A-Za-z0-9_.-]{1,100}$/.test(options.namespace))
          throw new CliError('usage', `--namespace must be 1-100 letters, digits, ".", "-" or "_", got "${options.namespace}"`);
        const region = options.region ?? (env.SCW_DEFAULT_REGION?.trim() || 'fr-par');
        if (!/^[a-z]{2}-[a-z]{3}$/.test(region)) throw new CliError('usage', `--region must be a region such as fr-par, got "${region}"`);
        const logsUrl = httpUrl('--logs-url', options.logsUrl);
        const grafanaUrl = httpUrl('--grafana-url', options.grafanaUrl);
        const docsUrl = httpUrl('--docs-url', options.docsUrl);
        const read = readShippedFiles();
        const withDocs = docsUrl ? { ...read, groups: withDocsBase(read.groups, docsUrl) } : read;
        // The dashboard's target list is the deployment's targets, when this shell has them (LBSYNC_TARGETS/CONFIG).
        const names = targetsConfigured(env) ? configuredTargets(env).map((t) => t.name) : [];
        const shipped = names.length > 0 ? { ...withDocs, dashboard: withTargets(withDocs.dashboard, names) } : withDocs;
        if (options.dryRun) return printPlanned(out, shipped, options, logsUrl, grafanaUrl);

        // Every request's deadline, the body included (LBSYNC_REQUEST_TIMEOUT_MS), for the ruler and Grafana as for the API.
        const { requestTimeoutMs: timeoutMs } = runtimeConfigFromEnv(env);
        // Every credential is checked before the first request.
        const cockpitToken = options.alerts ? env.COCKPIT_TOKEN?.trim() || undefined : undefined;
        if (cockpitToken) cli.protect(cockpitToken);
        const auth = options.dashboard ? grafanaAuth(cli) : undefined;
        const needsApi = (options.alerts && (!logsUrl || !cockpitToken)) || (options.dashboard && !grafanaUrl);
        const api = needsApi ? cockpitApi(cli, region) : undefined;
        const cockpit = () => api as CockpitGateway;

        const report: Record<string, unknown> = {};
        let made: { id: string; secretKey: string } | undefined;
        try {
          if (options.alerts) {
            const url = logsUrl ?? (await logsDataSourceUrl(cockpit(), region));
            let token = cockpitToken;
            if (!token) {
              made = await part(HINTS.api, () => cockpit().createRulesToken(`lbsync-cockpit-install-${Date.now()}`));
              cli.protect(made.secretKey);
              token = made.secretKey;
            }
            const ruler = createLokiRuler({ url, token, timeoutMs });
            const groups = await part(HINTS.ruler, () => syncRuleGroups(ruler, options.namespace, shipped.groups));
            report.alerts = { url, namespace: options.namespace, groups };
          }
          if (options.dashboard && auth) {
            const url = grafanaUrl ?? (await part(HINTS.api, () => cockpit().grafanaUrl()));
            const saved = await part(HINTS.grafana, () =>
              syncDashboard(createGrafanaDashboards({ url, auth, timeoutMs }), shipped.dashboard),
            );
            report.dashboard = { url, uid: shipped.dashboard.uid, change: saved.change, ...(saved.url && { link: saved.url }) };
          }
        } finally {
          if (made) {
            const id = made.id;
            await part(HINTS.api, () => cockpit().deleteToken(id)).catch((error: unknown) =>
              out.note(
                `warning: the Cockpit token ${id} made for this run could not be deleted (${(error as Error).message}): delete it in Cockpit > Tokens`,
              ),
            );
          }
        }
        if (options.alerts) report.token = made ? 'made for this run and deleted' : 'given';
        if (out.format === 'json') out.result(true, { dryRun: false, ...report });
        else printReport(out, report);
        return EXIT.ok;
      }),
    );
}

function printReport(out: Output, report: Record<string, unknown>): void {
  const { c } = out;
  const shown = (change: string) => (change === 'unchanged' ? c.dim(change.padEnd(9)) : c.green(change.padEnd(9)));
  const alerts = report.alerts as { url: string; namespace: string; groups: { name: string; rules: number; change: string }[] } | undefined;
  if (alerts) {
    out.line(`alert rules: namespace ${c.bold(alerts.namespace)} of ${alerts.url}`);
    for (const g of alerts.groups) out.line(`  ${shown(g.change)} ${g.name} (${plural(g.rules, 'rule')})`);
  }
  const dashboard = report.dashboard as { url: string; uid: string; change: string; link?: string } | undefined;
  if (dashboard) out.line(`dashboard:   ${shown(dashboard.change)} ${dashboard.uid} in ${dashboard.link ?? dashboard.url}`);
  if (report.token === 'made for this run and deleted') out.note(out.ce.dim('a Cockpit token was made for this run and deleted'));
}

export function cockpitCommand(cli: Cli): Command {
  return new Command('cockpit')
    .description('Cockpit (Scaleway observability): the dashboard and alert rules of scw-lb-sync')
    .addCommand(installCommand(cli));
}
