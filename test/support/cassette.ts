// Reads the recorded API traffic under test/fixtures/scaleway-api (go-vcr cassettes, see its README):
// every scalar the tests need sits on one line, so a line reader suffices.
import { readFileSync } from 'node:fs';

export interface RecordedInteraction {
  method: string;
  url: URL;
  code: number;
  responseBody: string;
}

const FIXTURES = new URL('../fixtures/scaleway-api/', import.meta.url);

function yamlScalar(raw: string): string {
  const text = raw.trim();
  if (text.startsWith("'")) return text.slice(1, -1).replaceAll("''", "'");
  if (text.startsWith('"')) return JSON.parse(text) as string;
  return text;
}

export function readCassette(name: string): RecordedInteraction[] {
  const interactions: (RecordedInteraction & { url: URL | undefined })[] = [];
  let current: { method: string; url: URL | undefined; code: number; responseBody: string } | undefined;
  let section: 'request' | 'response' | undefined;
  for (const line of readFileSync(new URL(`${name}.cassette.yaml`, FIXTURES), 'utf8').split('\n')) {
    if (/^ {4}- id: \d+/.test(line)) {
      current = { method: '', url: undefined, code: 0, responseBody: '' };
      interactions.push(current as RecordedInteraction & { url: URL | undefined });
      continue;
    }
    if (!current) continue;
    if (line === '      request:') section = 'request';
    else if (line === '      response:') section = 'response';
    const field = /^ {8}(\w+): (.*)$/.exec(line);
    if (!field) continue;
    const [, key, value = ''] = field;
    if (key === 'url') current.url = new URL(yamlScalar(value));
    if (key === 'method') current.method = yamlScalar(value);
    if (key === 'code') current.code = Number(value);
    if (key === 'body' && section === 'response') current.responseBody = yamlScalar(value);
  }
  return interactions.filter((i): i is RecordedInteraction => i.url !== undefined);
}

/** The successful JSON answers to one method and path pattern. */
export function recordedAnswers(interactions: readonly RecordedInteraction[], method: string, path: RegExp): unknown[] {
  return interactions
    .filter((i) => i.method === method && path.test(i.url.pathname) && i.code >= 200 && i.code < 300 && i.responseBody.startsWith('{'))
    .map((i) => JSON.parse(i.responseBody) as unknown);
}
