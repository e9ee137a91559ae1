// A loopback stand-in for what `lbsync cockpit install` talks to, of an ASSUMED shape (no recording of these APIs
// exists; docs/operations.md says so): the Cockpit API as @scaleway/sdk-cockpit calls it (data sources, Grafana,
// tokens), a logs data source's Loki ruler API (GET a namespace's groups as `<namespace>: [groups]`, POST one group
// as YAML, DELETE one; the token in X-Auth-Token) and Grafana's dashboard API (GET by uid, POST /api/dashboards/db).
// It keeps what was pushed and every call, so tests judge by its state, not by what the CLI says. The logs data
// source also answers Loki's instant query (GET .../loki/api/v1/query) for the one expression `lbsync status` sends
// (the shadow count, cockpit/queries.ts), evaluated over the log lines a test puts in `logLines` (lines the functions
// really printed); any other expression is a 400, as Loki answers one it cannot parse.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse, stringify } from 'yaml';
import { SHADOW_STATUS_RANGE, shadowWritesQuery } from '../../cockpit/queries';

export interface StandInOptions {
  /** The Scaleway API key's secret the Cockpit API accepts. */
  secretKey: string;
  projectId: string;
  grafana: { user: string; password: string } | { token: string };
  /** A Cockpit token made beforehand (in Cockpit's console) that the ruler accepts. */
  cockpitToken?: string;
}

export interface StandInCall {
  method: string;
  path: string;
}

export interface CockpitStandIn {
  url: string;
  /** The URL the Cockpit API gives for the project's logs data source (origin scaleway). */
  logsUrl: string;
  grafanaUrl: string;
  calls: StandInCall[];
  /** namespace -> group name -> group, as pushed. */
  rules: Map<string, Map<string, Record<string, unknown>>>;
  dashboards: Map<string, { dashboard: Record<string, unknown>; version: number }>;
  /** Tokens made through the Cockpit API and not deleted. */
  tokens: Map<string, { secret: string; scopes: string[] }>;
  /** What the logs data source holds: JSON log lines, as the functions printed them. */
  logLines: Record<string, unknown>[];
  stop(): Promise<void>;
}

const REGION = 'fr-par';

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

export async function startCockpitStandIn(options: StandInOptions): Promise<CockpitStandIn> {
  const calls: StandInCall[] = [];
  const rules = new Map<string, Map<string, Record<string, unknown>>>();
  const dashboards = new Map<string, { dashboard: Record<string, unknown>; version: number }>();
  const tokens = new Map<string, { secret: string; scopes: string[] }>();
  let base = '';
  const dataSource = (name: string, type: string, origin: string, projectId = options.projectId) => ({
    id: randomUUID(),
    name,
    type,
    origin,
    project_id: projectId,
    region: REGION,
    url: `${base}/logs/${name}`,
    retention_days: 31,
    synchronized_with_grafana: true,
    created_at: '2026-11-01T00:00:00Z',
    updated_at: '2026-11-01T00:00:00Z',
  });

  const cockpitApi = async (request: IncomingMessage, response: ServerResponse, path: string) => {
    if (request.headers['x-auth-token'] !== options.secretKey)
      return send(response, 401, { type: 'denied_authentication', message: 'denied' });
    if (request.method === 'GET' && path === `/cockpit/v1/regions/${REGION}/data-sources`) {
      // Filters ignored on purpose: the client re-checks type, origin and project itself.
      const list = [
        dataSource('scaleway-metrics', 'metrics', 'scaleway'),
        dataSource('my-own-logs', 'logs', 'custom'),
        dataSource('scaleway-logs', 'logs', 'scaleway'),
        dataSource('other-project-logs', 'logs', 'scaleway', randomUUID()),
      ];
      return send(response, 200, { data_sources: list, total_count: list.length });
    }
    if (request.method === 'GET' && path === '/cockpit/v1/grafana') return send(response, 200, { grafana_url: `${base}/grafana` });
    if (request.method === 'POST' && path === `/cockpit/v1/regions/${REGION}/tokens`) {
      const asked = JSON.parse(await bodyOf(request)) as { name: string; project_id: string; token_scopes: string[] };
      const id = randomUUID();
      const secret = `${randomUUID()}-cockpit-secret`;
      tokens.set(id, { secret, scopes: asked.token_scopes });
      return send(response, 200, {
        id,
        name: asked.name,
        project_id: asked.project_id,
        region: REGION,
        scopes: asked.token_scopes,
        secret_key: secret,
      });
    }
    const deleted = new RegExp(`^/cockpit/v1/regions/${REGION}/tokens/([^/]+)$`).exec(path);
    if (request.method === 'DELETE' && deleted?.[1] && tokens.delete(deleted[1])) return send(response, 204, '');
    return send(response, 404, { type: 'not_found', message: 'resource is not found' });
  };

  const logLines: Record<string, unknown>[] = [];
  /** The shadow count over the lines held: answers with shadow_writes > 0 in (at - 24h, at], by target. */
  const instantQuery = (request: IncomingMessage, response: ServerResponse) => {
    const params = new URL(request.url ?? '/', 'http://stand-in').searchParams;
    if (params.get('query') !== shadowWritesQuery(SHADOW_STATUS_RANGE))
      return send(response, 400, 'parse error: this stand-in evaluates only the shadow count of cockpit/queries.ts', 'text/plain');
    const atMs = Number(BigInt(params.get('time') ?? '0') / 1_000_000n);
    const from = atMs - 24 * 3_600_000;
    const counts = new Map<string, number>();
    for (const line of logLines) {
      const at = Date.parse(String(line.timestamp));
      if (line.log_type !== 'reconcile_answer' || !(Number(line.shadow_writes) > 0) || !(at > from && at <= atMs)) continue;
      counts.set(String(line.target), (counts.get(String(line.target)) ?? 0) + 1);
    }
    const result = [...counts].map(([target, n]) => ({ metric: { target }, value: [atMs / 1000, String(n)] }));
    return send(response, 200, { status: 'success', data: { resultType: 'vector', result } });
  };

  const ruler = async (request: IncomingMessage, response: ServerResponse, path: string) => {
    const token = request.headers['x-auth-token'];
    if (request.method === 'GET' && path === '/logs/scaleway-logs/loki/api/v1/query') {
      if (!(options.cockpitToken && token === options.cockpitToken)) return send(response, 401, 'unauthorized', 'text/plain');
      return instantQuery(request, response);
    }
    const made = [...tokens.values()].some((t) => t.secret === token && t.scopes.includes('full_access_logs_rules'));
    if (!made && !(options.cockpitToken && token === options.cockpitToken)) return send(response, 401, 'unauthorized', 'text/plain');
    const match = /^\/logs\/scaleway-logs\/loki\/api\/v1\/rules\/([^/]+)(?:\/([^/]+))?$/.exec(path);
    if (!match?.[1]) return send(response, 404, '404 page not found', 'text/plain');
    const namespace = decodeURIComponent(match[1]);
    const groups = rules.get(namespace) ?? new Map<string, Record<string, unknown>>();
    if (request.method === 'GET' && !match[2]) {
      if (groups.size === 0) return send(response, 404, 'no rule groups found', 'text/plain');
      return send(response, 200, stringify({ [namespace]: [...groups.values()] }), 'application/yaml');
    }
    if (request.method === 'POST' && !match[2]) {
      if (!String(request.headers['content-type']).startsWith('application/yaml'))
        return send(response, 400, 'unsupported content type', 'text/plain');
      const group = parse(await bodyOf(request)) as Record<string, unknown>;
      groups.set(String(group.name), group);
      rules.set(namespace, groups);
      return send(response, 202, { status: 'success', data: null, errorType: '', error: '' });
    }
    if (request.method === 'DELETE' && match[2]) {
      groups.delete(decodeURIComponent(match[2]));
      return send(response, 202, { status: 'success', data: null, errorType: '', error: '' });
    }
    return send(response, 405, 'method not allowed', 'text/plain');
  };

  const grafanaAuthorized = (request: IncomingMessage) => {
    const header = request.headers.authorization ?? '';
    if ('token' in options.grafana) return header === `Bearer ${options.grafana.token}`;
    return header === `Basic ${Buffer.from(`${options.grafana.user}:${options.grafana.password}`).toString('base64')}`;
  };

  const grafana = async (request: IncomingMessage, response: ServerResponse, path: string) => {
    // Echoes what it was sent, as some services do: the CLI must scrub it before it prints anything.
    if (!grafanaAuthorized(request))
      return send(response, 401, { message: 'Invalid username or password', received: request.headers.authorization ?? '' });
    const byUid = /^\/grafana\/api\/dashboards\/uid\/([^/]+)$/.exec(path);
    if (request.method === 'GET' && byUid?.[1]) {
      const stored = dashboards.get(decodeURIComponent(byUid[1]));
      if (!stored) return send(response, 404, { message: 'Dashboard not found' });
      return send(response, 200, { dashboard: stored.dashboard, meta: { slug: 'scw-lb-sync', version: stored.version } });
    }
    if (request.method === 'POST' && path === '/grafana/api/dashboards/db') {
      const { dashboard } = JSON.parse(await bodyOf(request)) as { dashboard: Record<string, unknown> };
      const uid = String(dashboard.uid);
      const version = (dashboards.get(uid)?.version ?? 0) + 1;
      // Grafana keeps its own id and version with what it was given.
      dashboards.set(uid, { dashboard: { ...dashboard, id: 17, version }, version });
      return send(response, 200, { id: 17, uid, url: `/d/${uid}/scw-lb-sync`, status: 'success', version, slug: 'scw-lb-sync' });
    }
    return send(response, 404, { message: 'Not found' });
  };

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://stand-in').pathname;
    calls.push({ method: request.method ?? '', path });
    const route = path.startsWith('/cockpit/')
      ? cockpitApi
      : path.startsWith('/logs/')
        ? ruler
        : path.startsWith('/grafana/')
          ? grafana
          : undefined;
    if (!route) return send(response, 404, { message: 'no such route' });
    route(request, response, path).catch((error: unknown) => send(response, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    logsUrl: `${base}/logs/scaleway-logs`,
    grafanaUrl: `${base}/grafana`,
    calls,
    rules,
    dashboards,
    tokens,
    logLines,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
