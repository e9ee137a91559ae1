/**
 * Reads the recorded Scaleway API traffic kept in test/fixtures/scaleway-api (go-vcr cassettes; provenance and
 * licence in that folder's README). Only ever from inside the repository.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const FIXTURES_DIR = new URL('../fixtures/scaleway-api/', import.meta.url);

export interface Interaction {
  /** The interaction's `id` in its cassette, or its index from 0 where the cassette has none (`#id` in docs/emulator.md). */
  id: number;
  method: string;
  url: URL;
  /** What was sent; undefined where the cassette does not show it (the CLI's recordings: see the README). */
  requestBody: string | undefined;
  code: number;
  /** Response headers, by lower-case name (first value). */
  headers: Record<string, string>;
  responseBody: string;
  durationMs: number;
}

interface RawInteraction {
  /** go-vcr v2 only. */
  id?: number;
  request: { method: string; url: string; body: string };
  response: { code: number; body: string; headers?: Record<string, string[]>; duration?: string };
}

function durationMs(text: string | undefined): number {
  const match = /^([\d.]+)(ms|s|µs)$/.exec(text ?? '');
  if (!match) return 0;
  const unit = { ms: 1, s: 1000, µs: 0.001 }[match[2] as 'ms' | 's' | 'µs'];
  return Number(match[1]) * unit;
}

export function cassetteNames(): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((name) => name.endsWith('.cassette.yaml'))
    .map((name) => name.replace(/\.cassette\.yaml$/, ''))
    .sort();
}

/** The recordings of IAM and Messaging (`lbsync bootstrap`'s APIs): replayed by their own test, not the LB world's. */
export const ACCOUNT_CASSETTE = /^(iam|mnq)-/;

/**
 * Recordings of other products behind the same API gateway, and of a request the emulator's Instance API does not
 * take as it was sent, kept for their error bodies (401, 400, 403, 409, 412): read by the error-body test, not
 * replayed against the LB world.
 */
export const ERROR_BODY_CASSETTE = /^(cli-alias|sdk-go-instance|vpc|secret|flexibleip)-/;

const cache = new Map<string, Interaction[]>();

/** The interactions of one cassette, by its name without `.cassette.yaml`. */
export function readCassette(name: string): Interaction[] {
  const cached = cache.get(name);
  if (cached) return cached;
  const interactions = readCassetteFile(new URL(`${name}.cassette.yaml`, FIXTURES_DIR));
  cache.set(name, interactions);
  return interactions;
}

/** The interactions of a cassette anywhere (one `lbsync doctor --record` just wrote). */
export function readCassetteFile(path: string | URL): Interaction[] {
  const doc = parse(readFileSync(path, 'utf8')) as { interactions: RawInteraction[] };
  // The CLI's recorder writes each answer's body in the request's place (a GET "sent" its answer): then the
  // cassette does not show what was sent.
  const requestBodiesRecorded = !doc.interactions.some(
    (raw) => raw.request.method === 'GET' && (raw.request.body ?? '') !== '' && raw.request.body === raw.response.body,
  );
  return doc.interactions.map((raw, index) => ({
    id: raw.id ?? index,
    method: raw.request.method,
    url: new URL(raw.request.url),
    requestBody: requestBodiesRecorded ? (raw.request.body ?? '') : undefined,
    code: raw.response.code,
    headers: Object.fromEntries(Object.entries(raw.response.headers ?? {}).map(([key, values]) => [key.toLowerCase(), values[0] ?? ''])),
    responseBody: raw.response.body ?? '',
    durationMs: durationMs(raw.response.duration),
  }));
}

export function jsonBody(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  const value = JSON.parse(text) as unknown;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
