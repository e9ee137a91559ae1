// Recorded exchanges as a go-vcr v2 cassette, laid out as the ones in test/fixtures/scaleway-api/ (the
// Terraform provider's recorder): `version: 2`, `interactions[]` with `id`, `request` {proto, content_length,
// host, body, headers, url, method} and `response` {proto, content_length, body, headers, status, code,
// duration}. Pure; every scalar on one line, so the file reads with a YAML parser and line by line alike.
import type { RecordedExchange } from '../adapters/http-recorder';

/** Strings YAML would read as something else when plain (booleans, null, numbers...). */
const YAML_WORDS = /^(?:true|false|yes|no|on|off|null|y|n|~)$/i;
const PLAIN = /^[A-Za-z][A-Za-z0-9_./+-]*$/;
/** Characters YAML allows unescaped (c-printable), minus line breaks and the byte-order mark. */
const NON_PRINTABLE = /[^\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\u{10000}-\u{10ffff}]/gu;

/** One YAML scalar on one line: plain when safe, else single-quoted, else double-quoted with escapes. */
export function yamlString(value: string): string {
  if (PLAIN.test(value) && !YAML_WORDS.test(value)) return value;
  NON_PRINTABLE.lastIndex = 0;
  if (!NON_PRINTABLE.test(value)) return `'${value.replaceAll("'", "''")}'`;
  const escaped = value
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(NON_PRINTABLE, (c) => {
      const code = c.codePointAt(0) ?? 0;
      return code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    });
  return `"${escaped}"`;
}

/** Header names as Go writes them: X-Total-Count. */
function canonicalHeader(name: string): string {
  return name
    .toLowerCase()
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('-');
}

function headerLines(headers: readonly [string, string][], indent: string): string[] {
  if (headers.length === 0) return [`${indent}headers: {}`];
  const byName = new Map<string, string[]>();
  for (const [name, value] of headers) {
    const key = canonicalHeader(name);
    byName.set(key, [...(byName.get(key) ?? []), value]);
  }
  const lines = [`${indent}headers:`];
  for (const [name, values] of [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    lines.push(`${indent}    ${yamlString(name)}:`);
    for (const value of values) lines.push(`${indent}        - ${yamlString(value)}`);
  }
  return lines;
}

/** Go's time.Duration text for milliseconds: 21.517666ms. */
function goDuration(ms: number): string {
  return `${Number(Math.max(0, ms).toFixed(6))}ms`;
}

function interactionLines(exchange: RecordedExchange, id: number): string[] {
  const field = '        ';
  const host = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(exchange.url)?.[1] ?? '';
  return [
    `    - id: ${id}`,
    '      request:',
    `${field}proto: HTTP/1.1`,
    `${field}proto_major: 1`,
    `${field}proto_minor: 1`,
    `${field}content_length: ${Buffer.byteLength(exchange.requestBody, 'utf8')}`,
    `${field}host: ${yamlString(host)}`,
    `${field}body: ${yamlString(exchange.requestBody)}`,
    ...headerLines(exchange.requestHeaders, field),
    `${field}url: ${yamlString(exchange.url)}`,
    `${field}method: ${yamlString(exchange.method)}`,
    '      response:',
    `${field}proto: HTTP/1.1`,
    `${field}proto_major: 1`,
    `${field}proto_minor: 1`,
    `${field}content_length: ${Buffer.byteLength(exchange.responseBody, 'utf8')}`,
    `${field}body: ${yamlString(exchange.responseBody)}`,
    ...headerLines(exchange.responseHeaders, field),
    `${field}status: ${yamlString(`${exchange.status} ${exchange.statusText}`.trim())}`,
    `${field}code: ${exchange.status}`,
    `${field}duration: ${goDuration(exchange.durationMs)}`,
  ];
}

export function goVcrCassette(exchanges: readonly RecordedExchange[]): string {
  const head = ['---', 'version: 2'];
  if (exchanges.length === 0) return `${[...head, 'interactions: []'].join('\n')}\n`;
  return `${[...head, 'interactions:', ...exchanges.flatMap(interactionLines)].join('\n')}\n`;
}
