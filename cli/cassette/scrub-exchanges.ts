// Where the values of an HTTP exchange are, for a recording that leaves the machine: pure, no I/O.
// Secrets first, always: credential headers are dropped, and every URL, header and body goes through the one
// scrubber (by value in any form, URL credentials, credential-named JSON fields), with the run's own credentials,
// again after every rewrite (parsing JSON decodes the escapes a secret may hide behind). Then, unless the ids are kept, every id,
// name, tag and address becomes its stand-in (stand-ins.ts), consistently across the whole recording: in paths,
// query strings (ListServers?tags= as in the answer's tags), Link headers and JSON bodies; a name or tag the
// recording holds is replaced where other text echoes it too (an error message naming an LB).
import { isCredentialHeader, type RecordedExchange } from '../adapters/http-recorder';
import type { Scrubber } from '../../shared/outbound/scrub';
import { StandIns } from './stand-ins';

/** JSON fields and query parameters that hold labels: every word in them is replaced. */
const LABEL_FIELDS = new Set([
  'name',
  'hostname',
  'description',
  'tags',
  'reverse',
  'common_name',
  'subject_alternative_name',
  'host_header',
  'sni',
  'sticky_sessions_cookie_name',
  'resource_name',
]);
/** Query parameters that filter by a part of a name: their values are kept whole inside longer names. */
const NAME_FILTERS = new Set(['name', 'resource_name']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface ScrubOptions {
  /** Keep ids, names, tags and addresses (secrets are scrubbed all the same). */
  keepIds: boolean;
  /** Knows the secrets of the run: its credentials and tokens (the recorder removed them once; this is the next pass). */
  scrubber: Scrubber;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return value;
  }
}

/** As URLSearchParams writes a value (the emulator's Link headers are written so). */
const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);

/** The query string's values scrubbed one by one; a value that does not change keeps its spelling. */
function mapQuery(query: string, value: (name: string, text: string) => string): string {
  return query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at === -1) return pair;
      const name = pair.slice(0, at);
      const raw = pair.slice(at + 1);
      const before = decode(raw);
      const after = value(decode(name), before);
      return after === before ? pair : `${name}=${encode(after)}`;
    })
    .join('&');
}

/** A Content-Length header, where there is one, tells the length of the body as re-written. */
function withContentLength(headers: [string, string][], body: string): [string, string][] {
  return headers.map(([name, value]) => [name, name.toLowerCase() === 'content-length' ? String(Buffer.byteLength(body, 'utf8')) : value]);
}

function queryPairs(url: string): [string, string][] {
  const query = url.split('?')[1]?.split('#')[0] ?? '';
  return query
    .split('&')
    .filter((pair) => pair.includes('='))
    .map((pair) => [decode(pair.slice(0, pair.indexOf('='))), decode(pair.slice(pair.indexOf('=') + 1))]);
}

/** Every label value in a JSON body (names, tags...). */
function jsonLabels(body: string): string[] {
  const found: string[] = [];
  const walk = (value: unknown, inLabel: boolean): void => {
    if (typeof value === 'string') {
      if (inLabel) found.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, inLabel);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) walk(child, LABEL_FIELDS.has(key));
    }
  };
  try {
    walk(JSON.parse(body), false);
  } catch {
    // not JSON: no labels of its own
  }
  return found;
}

/** What the whole recording says before any of it is replaced: its name filters, and every label it holds. */
function survey(exchanges: readonly RecordedExchange[]): { filters: string[]; labels: string[] } {
  const pairs = exchanges.flatMap((exchange) => queryPairs(exchange.url));
  const filters = pairs.filter(([name]) => NAME_FILTERS.has(name)).map(([, value]) => value);
  const labels = [
    ...pairs.filter(([name]) => LABEL_FIELDS.has(name)).flatMap(([, value]) => value.split(',')),
    ...exchanges.flatMap((exchange) => [...jsonLabels(exchange.requestBody), ...jsonLabels(exchange.responseBody)]),
  ];
  return { filters, labels };
}

class ExchangeScrubber {
  constructor(
    private readonly scrubber: Scrubber,
    private readonly standIns: StandIns | undefined,
  ) {}

  private text(value: string): string {
    const safe = this.scrubber.text(value);
    return this.standIns ? this.standIns.text(safe) : safe;
  }

  private label(value: string): string {
    const safe = this.scrubber.text(value);
    return this.standIns ? this.standIns.label(safe) : safe;
  }

  /** An absolute or relative URL: its path and query values (labels where the parameter holds one). */
  url(url: string): string {
    const hash = url.indexOf('#');
    const base = hash === -1 ? url : url.slice(0, hash);
    const fragment = hash === -1 ? '' : url.slice(hash);
    const question = base.indexOf('?');
    const path = question === -1 ? base : base.slice(0, question);
    const query = question === -1 ? undefined : base.slice(question + 1);
    const mappedQuery =
      query === undefined ? '' : `?${mapQuery(query, (name, value) => (LABEL_FIELDS.has(name) ? this.label(value) : this.text(value)))}`;
    // Re-encoding the query is a rewrite: scrubbed once more.
    return this.scrubber.text(`${this.text(path)}${mappedQuery}${this.text(fragment)}`);
  }

  headers(headers: readonly [string, string][]): [string, string][] {
    return headers
      .filter(([name]) => !isCredentialHeader(name))
      .map(([name, value]) => [
        name,
        name.toLowerCase() === 'link' ? value.replace(/<([^>]*)>/g, (_, url: string) => `<${this.url(url)}>`) : this.text(value),
      ]);
  }

  /** A JSON body re-written with its values scrubbed; any other body scrubbed as text. */
  body(body: string): string {
    let parsed: Json;
    try {
      parsed = JSON.parse(body) as Json;
    } catch {
      return this.text(body);
    }
    const scrubbed = this.json(this.scrubber.value(parsed), false);
    const rewritten = JSON.stringify(scrubbed);
    // The rewrite decodes every escape of the body (\u0053 is S again): its text is scrubbed once more.
    return this.scrubber.text(rewritten === JSON.stringify(parsed) ? body : rewritten);
  }

  private json(value: Json, inLabel: boolean): Json {
    if (typeof value === 'string') return inLabel ? this.label(value) : this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.json(item, inLabel));
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [this.text(key), this.json(child, LABEL_FIELDS.has(key))]));
  }
}

/** The exchanges as they may be shared: no secret anywhere, and unless `keepIds`, no id, name, tag or address. */
export function scrubExchanges(exchanges: readonly RecordedExchange[], options: ScrubOptions): RecordedExchange[] {
  let standIns: StandIns | undefined;
  if (!options.keepIds) {
    const { filters, labels } = survey(exchanges);
    standIns = new StandIns();
    standIns.useFilters(filters);
    standIns.useKnownLabels(labels);
  }
  const scrub = new ExchangeScrubber(options.scrubber, standIns);
  return exchanges.map((exchange) => {
    const requestBody = scrub.body(exchange.requestBody);
    const responseBody = scrub.body(exchange.responseBody);
    return {
      ...exchange,
      url: scrub.url(exchange.url),
      requestHeaders: withContentLength(scrub.headers(exchange.requestHeaders), requestBody),
      requestBody,
      responseHeaders: withContentLength(scrub.headers(exchange.responseHeaders), responseBody),
      responseBody,
    };
  });
}
