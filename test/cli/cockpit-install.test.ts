// `lbsync cockpit install`, the real bin, against a loopback stand-in of the Cockpit API, a logs data source's Loki
// ruler and Grafana (test/support/cockpit-stand-in.ts, an assumed shape): what it pushed is judged by the stand-in's
// state and call log. Idempotent (a second run is "unchanged" and writes nothing), a dry run needs no credentials
// and makes no request, and no secret is ever printed.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RuleGroup } from '../../cockpit/alerts';
import type { CockpitStandIn } from '../support/cockpit-stand-in';
import { HTML_PAGE, type OddServer, startHtmlServer, startStallingServer } from '../support/odd-servers';
import { startCockpitStandIn } from '../support/cockpit-stand-in';
import type { Run } from './support';
import { runBin } from './support';

const SECRET_KEY = '7a3c1f9e-5b2d-4e8a-9c6f-0d1e2f3a4b5c';
const PROJECT = '23b8c1e9-3924-46de-beb1-3b9046685257';
const GRAFANA = { user: 'ops', password: 'grafana-password-4242' };
const GIVEN_TOKEN = 'given-cockpit-token-4242-abcdef';

const shippedGroups = (parse(readFileSync(new URL('../../cockpit/alerts.yaml', import.meta.url), 'utf8')) as { groups: RuleGroup[] })
  .groups;
const shippedDashboard = JSON.parse(readFileSync(new URL('../../cockpit/dashboard.json', import.meta.url), 'utf8')) as Record<
  string,
  unknown
>;

let standIn: CockpitStandIn;
const printed: string[] = [];

beforeEach(async () => {
  standIn = await startCockpitStandIn({ secretKey: SECRET_KEY, projectId: PROJECT, grafana: GRAFANA, cockpitToken: GIVEN_TOKEN });
});
afterEach(async () => {
  await standIn.stop();
});

/** The bin with the operator's Scaleway key (pointed at the stand-in) and Grafana user; every output kept for the secrets check. */
async function install(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const run = await runBin(['cockpit', 'install', ...args], {
    SCW_ACCESS_KEY: 'SCWCOCKPITTEST000001',
    SCW_SECRET_KEY: SECRET_KEY,
    SCW_DEFAULT_PROJECT_ID: PROJECT,
    SCW_API_URL: standIn.url,
    GRAFANA_USER: GRAFANA.user,
    GRAFANA_PASSWORD: GRAFANA.password,
    ...env,
  });
  printed.push(run.stdout, run.stderr);
  return run;
}
const json = (run: Run) => JSON.parse(run.stdout) as Record<string, unknown>;
const writes = () => standIn.calls.filter((c) => c.method !== 'GET' && !c.path.includes('/tokens'));
const namespace = () => [...(standIn.rules.get('scw-lb-sync')?.values() ?? [])];

describe('lbsync cockpit install', () => {
  it('installs the rule groups and the dashboard as shipped; a second run is unchanged and writes nothing', async () => {
    const first = await install(['-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    expect(json(first)).toMatchObject({
      ok: true,
      command: 'cockpit install',
      alerts: {
        url: standIn.logsUrl, // the project's logs data source of origin scaleway, among the others the API listed
        namespace: 'scw-lb-sync',
        groups: shippedGroups.map((g) => ({ name: g.name, rules: g.rules.length, change: 'created' })),
      },
      dashboard: {
        url: standIn.grafanaUrl,
        uid: 'scw-lb-sync',
        change: 'created',
        link: `${standIn.grafanaUrl}/d/scw-lb-sync/scw-lb-sync`,
      },
      token: 'made for this run and deleted',
    });
    // What the ruler and Grafana hold is exactly what ships.
    expect(namespace()).toEqual(shippedGroups);
    expect(standIn.dashboards.get('scw-lb-sync')?.dashboard).toEqual({ ...shippedDashboard, id: 17, version: 1 });
    // The token it made (scope full_access_logs_rules) is gone.
    expect(standIn.calls.filter((c) => c.path.includes('/tokens')).map((c) => c.method)).toEqual(['POST', 'DELETE']);
    expect(standIn.tokens.size).toBe(0);

    standIn.calls.length = 0;
    const second = await install([]);
    expect(second.code, second.stderr).toBe(0);
    for (const group of shippedGroups)
      expect(second.stdout).toMatch(new RegExp(`unchanged +${group.name} \\(${group.rules.length} rules\\)`));
    expect(second.stdout).toMatch(/dashboard: +unchanged +scw-lb-sync/);
    expect(writes()).toEqual([]);
    expect(standIn.dashboards.get('scw-lb-sync')?.version).toBe(1);
  }, 60_000);

  it('puts back a rule edited by hand, removes a group the file no longer has, leaves the rest alone', async () => {
    expect((await install(['--no-dashboard'])).code).toBe(0);
    const groups = standIn.rules.get('scw-lb-sync') as Map<string, Record<string, unknown>>;
    const [edited, untouched] = shippedGroups as [RuleGroup, RuleGroup];
    groups.set(edited.name, { ...edited, rules: edited.rules.map((r, i) => (i === 0 ? { ...r, expr: 'vector(1)' } : r)) });
    groups.set('scw-lb-sync-old', { name: 'scw-lb-sync-old', rules: [{ alert: 'Old', expr: 'vector(1)' }] });
    standIn.calls.length = 0;

    const run = await install(['--no-dashboard', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect((json(run).alerts as { groups: unknown[] }).groups).toEqual([
      { name: edited.name, rules: edited.rules.length, change: 'updated' },
      { name: untouched.name, rules: untouched.rules.length, change: 'unchanged' },
      { name: 'scw-lb-sync-old', rules: 1, change: 'removed' },
    ]);
    expect(namespace()).toEqual(shippedGroups);
    expect(writes().map((c) => c.method)).toEqual(['POST', 'DELETE']);
    expect(standIn.dashboards.size).toBe(0); // --no-dashboard
  }, 60_000);

  it('with COCKPIT_TOKEN, GRAFANA_TOKEN and both URLs: no Scaleway key, no Cockpit API call', async () => {
    await standIn.stop();
    standIn = await startCockpitStandIn({
      secretKey: SECRET_KEY,
      projectId: PROJECT,
      grafana: { token: 'grafana-sa-token-4242' },
      cockpitToken: GIVEN_TOKEN,
    });
    const run = await runBin(['cockpit', 'install', '--logs-url', standIn.logsUrl, '--grafana-url', standIn.grafanaUrl, '-o', 'json'], {
      COCKPIT_TOKEN: GIVEN_TOKEN,
      GRAFANA_TOKEN: 'grafana-sa-token-4242',
    });
    printed.push(run.stdout, run.stderr);
    expect(run.code, run.stderr).toBe(0);
    expect(json(run)).toMatchObject({ ok: true, token: 'given', dashboard: { change: 'created' } });
    expect(standIn.calls.filter((c) => c.path.startsWith('/cockpit/'))).toEqual([]);
    expect(namespace()).toEqual(shippedGroups);
    expect(run.stdout).not.toContain('grafana-sa-token-4242');
  }, 60_000);

  it("--docs-url: every rule gets a runbook_url at the operator's copy of the docs; a later run without it installs none again", async () => {
    const docs = 'https://git.example.com/ops/scw-lb-sync/-/blob/main';
    const moved = await install(['--docs-url', `${docs}/`, '--no-dashboard', '-o', 'json']);
    expect(moved.code, moved.stderr).toBe(0);
    const urls = namespace().flatMap((group) => (group as unknown as RuleGroup).rules.map((rule) => rule.annotations.runbook_url));
    expect(urls.length).toBe(shippedGroups.flatMap((g) => g.rules).length);
    for (const url of urls)
      expect(url?.startsWith(`${docs}/docs/`) && /\/docs\/(troubleshooting|operations)\.md#/.test(url ?? ''), url).toBe(true);
    const back = await install(['--no-dashboard', '-o', 'json']);
    expect((json(back).alerts as { groups: { change: string }[] }).groups.map((g) => g.change)).toEqual(shippedGroups.map(() => 'updated'));
    expect(namespace()).toEqual(shippedGroups);
    const refused = await install(['--docs-url', 'ftp://docs.example.com', '--dry-run']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('--docs-url must be an http(s) URL');
  }, 60_000);

  it("the dashboard's target variable lists the configured targets (a list, not free text); without targets, as shipped", async () => {
    const targets = JSON.stringify([
      { kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1' } },
      { kops: { cluster: 'staging.k8s.local', zone: 'nl-ams-1' } },
    ]);
    const run = await install(['--no-alerts'], { LBSYNC_TARGETS: targets });
    expect(run.code, run.stderr).toBe(0);
    const stored = standIn.dashboards.get('scw-lb-sync')?.dashboard as { templating: { list: Record<string, unknown>[] } };
    expect(stored.templating.list.find((v) => v.name === 'target')).toMatchObject({
      type: 'custom',
      multi: true,
      includeAll: true,
      allValue: '.*',
      query: 'prod.k8s.local,staging.k8s.local',
      options: [expect.objectContaining({ value: 'prod.k8s.local' }), expect.objectContaining({ value: 'staging.k8s.local' })],
    });
    expect((await install(['--no-alerts'])).code).toBe(0);
    expect(standIn.dashboards.get('scw-lb-sync')?.dashboard).toMatchObject({ templating: shippedDashboard.templating });
  }, 60_000);

  it('--dry-run: no credentials, no request; it prints the bodies it would send, as shipped', async () => {
    const run = await runBin(['cockpit', 'install', '--dry-run', '--logs-url', standIn.logsUrl, '-o', 'json'], {});
    expect(run.code, run.stderr).toBe(0);
    const answer = json(run) as {
      dryRun: boolean;
      requests: { method: string; url: string; headers: Record<string, string>; body: string }[];
    };
    expect(answer.dryRun).toBe(true);
    expect(answer.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      ...shippedGroups.map(() => `POST ${standIn.logsUrl}/loki/api/v1/rules/scw-lb-sync`),
      "POST <the project's Grafana URL>/api/dashboards/db",
    ]);
    expect(answer.requests.slice(0, -1).map((r) => parse(r.body))).toEqual(shippedGroups);
    expect(JSON.parse(answer.requests.at(-1)?.body ?? '{}')).toEqual({
      dashboard: { ...shippedDashboard, id: null },
      overwrite: true,
      message: 'lbsync cockpit install',
    });
    expect(standIn.calls).toEqual([]);
    const text = await runBin(['cockpit', 'install', '--dry-run'], { COCKPIT_TOKEN: GIVEN_TOKEN, GRAFANA_PASSWORD: GRAFANA.password });
    printed.push(text.stdout, text.stderr);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('POST <the logs data source URL>/loki/api/v1/rules/scw-lb-sync');
    expect(text.stdout).toContain('X-Auth-Token: <Cockpit token>');
  }, 60_000);

  it('refuses before any request when a credential is missing, naming it', async () => {
    const noGrafana = await install(['-o', 'json'], { GRAFANA_USER: '', GRAFANA_PASSWORD: '' });
    expect(noGrafana.code).toBe(1);
    expect(json(noGrafana)).toMatchObject({
      ok: false,
      error: { code: 'invalid_config', message: expect.stringContaining('GRAFANA_TOKEN') },
    });
    const noKey = await runBin(['cockpit', 'install', '--no-dashboard', '-o', 'json'], { SCW_API_URL: standIn.url });
    expect(noKey.code).toBe(1);
    expect(json(noKey)).toMatchObject({ ok: false, error: { code: 'invalid_config', message: expect.stringContaining('SCW_ACCESS_KEY') } });
    expect(standIn.calls).toEqual([]);
  }, 60_000);

  it("a refused Grafana login fails with exit 1 and Grafana's hint; the alerts went in, the token made is still deleted", async () => {
    const run = await install(['-o', 'json'], { GRAFANA_PASSWORD: 'not-the-password-4242' });
    expect(run.code).toBe(1);
    expect(json(run)).toMatchObject({
      ok: false,
      error: {
        code: 'authentication_denied',
        message: expect.stringContaining('http error 401'),
        hint: expect.stringContaining('GRAFANA_USER'),
      },
    });
    expect(namespace()).toEqual(shippedGroups);
    expect(standIn.tokens.size).toBe(0);
    // The stand-in's 401 echoes the Authorization header it got: the CLI prints it scrubbed.
    expect(run.stdout).toContain('[redacted]');
    expect(run.stdout).not.toContain('not-the-password-4242');
    expect(run.stdout).not.toContain(Buffer.from(`${GRAFANA.user}:not-the-password-4242`).toString('base64'));
  }, 60_000);
});

describe('lbsync cockpit install says only what happened', () => {
  let odd: OddServer | undefined;
  afterEach(async () => {
    await odd?.stop();
    odd = undefined;
  });
  /** With the tokens given and the URLs at `base`: no Cockpit API call, only the ruler and Grafana. */
  const given = (base: string, args: string[], env: Record<string, string> = {}) =>
    install(['--logs-url', `${base}/logs`, '--grafana-url', `${base}/grafana`, ...args, '-o', 'json'], {
      COCKPIT_TOKEN: GIVEN_TOKEN,
      ...env,
    });

  it('a server answering 200 with HTML to everything: unexpected_answer naming the URL, the status and what was expected; nothing reported created', async () => {
    odd = await startHtmlServer();
    const alerts = await given(odd.url, ['--no-dashboard']);
    expect(alerts.code).toBe(1);
    expect(json(alerts)).toEqual({
      ok: false,
      command: 'cockpit install',
      error: expect.objectContaining({
        code: 'unexpected_answer',
        // The page's first 80 characters, to recognise it.
        message: `reading the rule groups of namespace scw-lb-sync: GET ${odd.url}/logs/loki/api/v1/rules/scw-lb-sync answered 200 with text/html (${HTML_PAGE.slice(0, 77)}...); expected a YAML mapping of scw-lb-sync to its list of rule groups (Loki's ruler API)`,
      }),
    });
    expect(odd.requests.map((r) => r.method)).toEqual(['GET']); // nothing was written after it
    const dashboard = await given(odd.url, ['--no-alerts']);
    expect(dashboard.code).toBe(1);
    expect(json(dashboard)).toMatchObject({
      ok: false,
      error: {
        code: 'unexpected_answer',
        message: expect.stringContaining(`GET ${odd.url}/grafana/api/dashboards/uid/scw-lb-sync answered 200 with text/html`),
      },
    });
    // Through the Cockpit API too (the SDK's answers).
    const api = await install(['--no-dashboard', '-o', 'json'], { SCW_API_URL: odd.url });
    expect(json(api)).toMatchObject({
      ok: false,
      error: {
        code: 'unexpected_answer',
        message: expect.stringContaining(
          `GET ${odd.url}/cockpit/v1/regions/fr-par/data-sources answered 200 with text/html (${HTML_PAGE.slice(0, 77)}...); expected application/json`,
        ),
      },
    });
    for (const run of [alerts, dashboard, api]) expect(run.stdout + run.stderr).not.toMatch(/created|Unexpected token/);
  }, 60_000);

  it('a server that sends its headers and stalls the body: each call fails at LBSYNC_REQUEST_TIMEOUT_MS, naming the URL', async () => {
    odd = await startStallingServer();
    const quick = { LBSYNC_REQUEST_TIMEOUT_MS: '300' };
    const started = performance.now();
    const alerts = await given(odd.url, ['--no-dashboard'], quick);
    const dashboard = await given(odd.url, ['--no-alerts'], quick);
    const api = await install(['--no-dashboard', '-o', 'json'], { SCW_API_URL: odd.url, ...quick });
    // Three runs of the bin, each with one or two calls of 300 ms: far below a hang (the bin is killed at 30 s).
    expect(performance.now() - started).toBeLessThan(25_000);
    expect(json(alerts)).toMatchObject({
      ok: false,
      error: { code: 'network_error', message: `request timed out after 300 ms on GET ${odd.url}/logs/loki/api/v1/rules/scw-lb-sync` },
    });
    expect(json(dashboard)).toMatchObject({
      ok: false,
      error: { code: 'network_error', message: `request timed out after 300 ms on GET ${odd.url}/grafana/api/dashboards/uid/scw-lb-sync` },
    });
    expect(json(api)).toMatchObject({
      ok: false,
      error: {
        code: 'network_error',
        message: expect.stringContaining(`request timed out after 300 ms on GET ${odd.url}/cockpit/v1/regions/fr-par/data-sources`),
      },
    });
  }, 60_000);
});

describe('no secret is ever printed', () => {
  it('not the Scaleway key, the Grafana password, the given token nor the tokens made (all runs above)', () => {
    expect(printed.length).toBeGreaterThan(10);
    const output = printed.join('\n');
    for (const secret of [SECRET_KEY, GRAFANA.password, GIVEN_TOKEN, Buffer.from(`${GRAFANA.user}:${GRAFANA.password}`).toString('base64')])
      expect(output).not.toContain(secret);
    expect(output).not.toMatch(/-cockpit-secret/);
  });
});
