// A Loki data source's ruler API (Prometheus rule groups, LogQL expressions), as Cockpit's logs data sources serve
// it: read a namespace's groups, create or replace one group, delete one. Plain HTTP with YAML bodies, the data
// source's token in X-Auth-Token. Only `lbsync cockpit install` uses it. Every answer is checked for its type and
// shape (as Loki's ruler answers, ASSUMED for Cockpit's: docs/operations.md): a listing is YAML mapping the namespace
// to its groups, a write is accepted with JSON {"status": "success"}; anything else (an HTML page answered 200) is
// unexpected_answer, never "no groups" nor "created".
import { parse } from 'yaml';
import { createScrubber } from '../../shared/outbound/scrub';
import type { HttpAnswer } from './http-call';
import { httpCall, isObject, jsonAnswer, statusFailure, unexpectedAnswer } from './http-call';
import { mediaType } from '../../shared/adapters/http-messages';

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
/** A listing's types: Loki answers application/yaml; JSON is YAML too. */
const LISTING_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'application/json']);
const ACCEPTED = 'JSON {"status": "success"} (Loki\'s ruler API)';

/** The namespace's groups from a listing's answer: a YAML mapping of the namespace to a list of named groups. */
function listedGroups(namespace: string, url: string, answer: HttpAnswer): Record<string, unknown>[] {
  const what = `reading the rule groups of namespace ${namespace}`;
  const unexpected = () =>
    unexpectedAnswer(what, 'GET', url, answer, `a YAML mapping of ${namespace} to its list of rule groups (Loki's ruler API)`);
  if (!LISTING_TYPES.has(mediaType(answer.contentType) ?? '')) throw unexpected();
  let listed: unknown;
  try {
    listed = parse(answer.body);
  } catch {
    throw unexpected();
  }
  const groups = isObject(listed) ? listed[namespace] : undefined;
  if (!Array.isArray(groups) || !groups.every((g) => isObject(g) && typeof g.name === 'string')) throw unexpected();
  return groups as Record<string, unknown>[];
}

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
  /** A write the ruler took: a 2xx whose body says so. */
  const expectAccepted = (what: string, method: string, url: string, answer: HttpAnswer) => {
    expectOk(what, method, url, answer);
    const body = jsonAnswer(what, method, url, answer, ACCEPTED);
    if (!isObject(body) || body.status !== 'success') throw unexpectedAnswer(what, method, url, answer, ACCEPTED);
  };

  return {
    async groups(namespace) {
      const url = rulesPath(settings.url, namespace);
      const answer = await call('GET', url);
      if (answer.status === 404 && NO_GROUPS.test(answer.body)) return [];
      expectOk(`reading the rule groups of namespace ${namespace}`, 'GET', url, answer);
      // `<namespace>: [groups]`, as a Prometheus-style ruler lists a namespace.
      return listedGroups(namespace, url, answer);
    },
    async setGroup(namespace, groupYaml) {
      const url = rulesPath(settings.url, namespace);
      expectAccepted(`writing a rule group into namespace ${namespace}`, 'POST', url, await call('POST', url, groupYaml));
    },
    async deleteGroup(namespace, group) {
      const url = rulesPath(settings.url, namespace, group);
      expectAccepted(`deleting rule group ${group}`, 'DELETE', url, await call('DELETE', url));
    },
  };
}
