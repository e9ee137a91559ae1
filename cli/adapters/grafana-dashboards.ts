// Grafana's dashboard HTTP API, as the project's Cockpit Grafana serves it: read a dashboard by uid, save one
// (overwriting the dashboard of that uid). The operator's Grafana user (basic auth) or service-account token.
// Only `lbsync cockpit install` uses it. Every answer is checked for its type and shape (JSON, the dashboard of the
// uid asked for, a save Grafana says succeeded): anything else (an HTML page answered 200) is unexpected_answer.
import { createScrubber } from '../../shared/outbound/scrub';
import type { HttpAnswer } from './http-call';
import { httpCall, isObject, jsonAnswer, statusFailure, unexpectedAnswer } from './http-call';

export type GrafanaAuth = { token: string } | { user: string; password: string };

export interface GrafanaSettings {
  url: string;
  auth: GrafanaAuth;
  timeoutMs?: number;
}

export interface GrafanaDashboards {
  /** The dashboard as Grafana holds it, or undefined when there is none with that uid. */
  get(uid: string): Promise<Record<string, unknown> | undefined>;
  /** Saves it (the dashboard of the same uid is overwritten); Grafana's URL of it. */
  save(dashboard: Record<string, unknown>, message: string): Promise<{ url?: string }>;
}

export function authorization(auth: GrafanaAuth): string {
  return 'token' in auth ? `Bearer ${auth.token}` : `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
}

/** What POST /api/dashboards/db is sent: the dashboard (Grafana finds it by uid), overwriting the one of that uid. */
export function saveRequest(dashboard: Record<string, unknown>, message: string) {
  return { dashboard: { ...dashboard, id: null }, overwrite: true, message };
}

export function createGrafanaDashboards(settings: GrafanaSettings): GrafanaDashboards {
  const base = settings.url.replace(/\/+$/, '');
  const header = authorization(settings.auth);
  const scrubber = createScrubber(['token' in settings.auth ? settings.auth.token : settings.auth.password, header.split(' ')[1]]);
  const call = (method: string, url: string, body?: unknown): Promise<HttpAnswer> =>
    httpCall(method, url, {
      headers: { Authorization: header, Accept: 'application/json', ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      timeoutMs: settings.timeoutMs ?? 15_000,
      scrubber,
    });

  return {
    async get(uid) {
      const url = `${base}/api/dashboards/uid/${encodeURIComponent(uid)}`;
      const answer = await call('GET', url);
      // Grafana's own 404 for a missing dashboard is JSON with a message; anything else is a URL that leads elsewhere.
      if (answer.status === 404 && /dashboard not found/i.test(answer.body)) return undefined;
      const what = `reading dashboard ${uid}`;
      if (answer.status >= 300) throw statusFailure(what, 'GET', url, answer);
      const expected = `JSON {"dashboard": {...}} of uid ${uid} (Grafana's dashboard API)`;
      const found = jsonAnswer(what, 'GET', url, answer, expected);
      if (!isObject(found) || !isObject(found.dashboard) || found.dashboard.uid !== uid)
        throw unexpectedAnswer(what, 'GET', url, answer, expected);
      return found.dashboard;
    },
    async save(dashboard, message) {
      const url = `${base}/api/dashboards/db`;
      const what = `saving dashboard ${String(dashboard.uid)}`;
      const answer = await call('POST', url, saveRequest(dashboard, message));
      if (answer.status >= 300) throw statusFailure(what, 'POST', url, answer);
      const expected = `JSON {"status": "success", "uid": "${String(dashboard.uid)}", ...} (Grafana's dashboard API)`;
      const saved = jsonAnswer(what, 'POST', url, answer, expected);
      if (!isObject(saved) || saved.status !== 'success' || saved.uid !== dashboard.uid)
        throw unexpectedAnswer(what, 'POST', url, answer, expected);
      return typeof saved.url === 'string' ? { url: `${base}${saved.url.startsWith('/') ? '' : '/'}${saved.url}` } : {};
    },
  };
}
