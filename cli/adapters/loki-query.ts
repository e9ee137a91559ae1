// A Loki data source's query API, as Cockpit's logs data sources serve it: one instant query of a metric expression
// (LogQL), its vector answer as numbers by label set. Plain HTTP, the data source's token in X-Auth-Token (as the
// ruler takes it: ASSUMED, docs/operations.md, Cockpit). Only `lbsync status` uses it, to read what a shadow
// deployment logged.
import { createScrubber } from '../../shared/outbound/scrub';
import type { HttpAnswer } from './http-call';
import { httpCall, jsonAnswer, statusFailure, unexpectedAnswer } from './http-call';
import { COCKPIT_TOKEN_HEADER } from './loki-ruler';

export interface LokiQuerySettings {
  /** The logs data source's URL (Cockpit's listDataSources gives it). */
  url: string;
  token: string;
  timeoutMs?: number;
}

export interface VectorSample {
  labels: Record<string, string>;
  value: number;
}

export interface LokiQuery {
  /** The expression's value at `atMs`, one sample per label set (GET /loki/api/v1/query). */
  instant(expr: string, atMs: number): Promise<VectorSample[]>;
}

export function queryPath(base: string, expr: string, atMs: number): string {
  const time = `${BigInt(Math.round(atMs)) * 1_000_000n}`;
  return `${base.replace(/\/+$/, '')}/loki/api/v1/query?${new URLSearchParams({ query: expr, time }).toString()}`;
}

type VectorAnswer = { status?: string; data?: { resultType?: string; result?: { metric?: unknown; value?: unknown }[] } };

const VECTOR =
  'JSON {"status": "success", "data": {"resultType": "vector", "result": [...]}} with a number in each sample (Loki\'s query API)';

function samples(url: string, answer: HttpAnswer): VectorSample[] {
  const what = 'querying the logs';
  const unexpected = () => unexpectedAnswer(what, 'GET', url, answer, VECTOR);
  const body = jsonAnswer(what, 'GET', url, answer, VECTOR) as VectorAnswer | null;
  const result = body?.data?.result;
  if (body?.status !== 'success' || body.data?.resultType !== 'vector' || !Array.isArray(result)) throw unexpected();
  return result.map((item) => {
    const value = Array.isArray(item?.value) ? Number(item.value[1]) : Number.NaN;
    const labels = item?.metric && typeof item.metric === 'object' ? (item.metric as Record<string, string>) : {};
    if (!Number.isFinite(value)) throw unexpected();
    return { labels, value };
  });
}

export function createLokiQuery(settings: LokiQuerySettings): LokiQuery {
  const scrubber = createScrubber([settings.token]);
  return {
    async instant(expr, atMs) {
      const url = queryPath(settings.url, expr, atMs);
      const answer = await httpCall('GET', url, {
        headers: { [COCKPIT_TOKEN_HEADER]: settings.token },
        timeoutMs: settings.timeoutMs ?? 15_000,
        scrubber,
      });
      if (answer.status >= 300) throw statusFailure('querying the logs', 'GET', url, answer);
      return samples(url, answer);
    },
  };
}
