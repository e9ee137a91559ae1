// A Loki data source's ruler API (Prometheus rule groups, LogQL expressions), as Cockpit's logs data sources serve
// it: read a namespace's groups, create or replace one group, delete one. Plain HTTP with YAML bodies, the data
// source's token in X-Auth-Token. Only `lbsync cockpit install` uses it.
import { parse } from 'yaml';
import { LbSyncError } from '../errors/lbsync-error';
import { createScrubber } from '../outbound/scrub';
import type { HttpAnswer } from './http-call';
import { httpCall, statusFailure } from './http-call';

/** The header that carries a Cockpit token to a data source (ASSUMED: docs/operations.md, Cockpit). */
export const COCKPIT_TOKEN_HEADER = 'X-Auth-Token';

export interface LokiRulerSettings {
  /** The logs data source's URL (Cockpit's listDataSources gives it). */
  url: string;
  token: string;
  timeoutMs?: number;
}

export interface LokiRuler {
  /** The namespace's rule groups as the ruler holds them; none when it has none. */
  groups(namespace: string): Promise<Record<string, unknown>[]>;
  /** Creates the group, or replaces the group of that name (the YAML of one group). */
  setGroup(namespace: string, groupYaml: string): Promise<void>;
  deleteGroup(namespace: string, group: string): Promise<void>;
}

/** Loki's own answer when a namespace holds no group (a 404 too, told apart from a URL that leads nowhere). */
const NO_GROUPS = /no rule groups found/i;

export function rulesPath(base: string, namespace: string, group?: string): string {
  const root = `${base.replace(/\/+$/, '')}/loki/api/v1/rules/${encodeURIComponent(namespace)}`;
  return group === undefined ? root : `${root}/${encodeURIComponent(group)}`;
}

export function createLokiRuler(settings: LokiRulerSettings): LokiRuler {
  const scrubber = createScrubber([settings.token]);
  const call = (method: string, url: string, body?: string): Promise<HttpAnswer> =>
    httpCall(method, url, {
      headers: { [COCKPIT_TOKEN_HEADER]: settings.token, ...(body !== undefined && { 'Content-Type': 'application/yaml' }) },
      ...(body !== undefined && { body }),
      timeoutMs: settings.timeoutMs ?? 15_000,
      scrubber,
    });
  const expectOk = (what: string, method: string, url: string, answer: HttpAnswer) => {
    if (answer.status >= 300) throw statusFailure(what, method, url, answer);
  };

  return {
    async groups(namespace) {
      const url = rulesPath(settings.url, namespace);
      const answer = await call('GET', url);
      if (answer.status === 404 && NO_GROUPS.test(answer.body)) return [];
      expectOk(`reading the rule groups of namespace ${namespace}`, 'GET', url, answer);
      // `<namespace>: [groups]`, as a Prometheus-style ruler lists a namespace.
      const listed = parse(answer.body) as Record<string, unknown> | null;
      const groups = listed?.[namespace] ?? [];
      if (!Array.isArray(groups) || !groups.every((g) => typeof g === 'object' && g !== null && typeof g.name === 'string'))
        throw new LbSyncError('unknown_api_error', `the ruler at ${url} answered rule groups in an unknown shape`);
      return groups as Record<string, unknown>[];
    },
    async setGroup(namespace, groupYaml) {
      const url = rulesPath(settings.url, namespace);
      expectOk(`writing a rule group into namespace ${namespace}`, 'POST', url, await call('POST', url, groupYaml));
    },
    async deleteGroup(namespace, group) {
      const url = rulesPath(settings.url, namespace, group);
      expectOk(`deleting rule group ${group}`, 'DELETE', url, await call('DELETE', url));
    },
  };
}
