// The cassette a doctor run writes reads back, field for field, as the recordings in test/fixtures/ do: with a YAML
// parser (test/support/cassettes.ts) and line by line (test/support/cassette.ts), whatever the bodies hold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { goVcrCassette, yamlString } from '../../../cli/cassette/go-vcr';
import type { RecordedExchange } from '../../../cli/adapters/http-recorder';

const exchanges: RecordedExchange[] = [
  {
    method: 'GET',
    url: 'https://api.scaleway.com/instance/v1/zones/fr-par-1/servers?per_page=100&tags=a%3Db%2Cc',
    requestHeaders: [
      ['accept', 'application/json'],
      ['user-agent', 'scaleway-sdk-js/1.3.2 scw-lb-sync/0.1.0'],
    ],
    requestBody: '',
    status: 200,
    statusText: 'OK',
    responseHeaders: [
      ['content-type', 'application/json'],
      ['x-total-count', '1'],
      ['link', '</servers?page=1&per_page=100&tags=a%3Db%2Cc>; rel="last"'],
    ],
    responseBody: '{"servers":[{"name":"it\'s: a #name","tags":["a=b","c"]}]}',
    durationMs: 21.517666,
  },
  {
    method: 'PUT',
    url: 'https://api.scaleway.com/lb/v1/zones/fr-par-1/backends/00000001-0000-4000-8000-000000000001/servers',
    requestHeaders: [],
    requestBody: '{"server_ip":["192.0.2.1"]}',
    status: 404,
    statusText: 'Not Found',
    responseHeaders: [],
    responseBody: 'line one\nline two\ttab "quoted" \u0085 \u2028 ünïcode 🙂',
    durationMs: 0.25,
  },
];

describe('goVcrCassette', () => {
  it('writes go-vcr v2: version, interactions with id, request and response, as the fixtures lay them out', () => {
    const text = goVcrCassette(exchanges);
    const doc = parse(text) as {
      version: number;
      interactions: {
        id: number;
        request: { method: string; url: string; body: string; host: string; content_length: number; headers: Record<string, string[]> };
        response: {
          code: number;
          status: string;
          body: string;
          headers: Record<string, string[]>;
          duration: string;
          content_length: number;
        };
      }[];
    };
    expect(doc.version).toBe(2);
    expect(doc.interactions.map((i) => i.id)).toEqual([0, 1]);
    const [first, second] = doc.interactions;
    expect(first?.request).toMatchObject({ method: 'GET', url: exchanges[0]?.url, body: '', host: 'api.scaleway.com', content_length: 0 });
    expect(first?.request.headers).toEqual({ Accept: ['application/json'], 'User-Agent': ['scaleway-sdk-js/1.3.2 scw-lb-sync/0.1.0'] });
    expect(first?.response).toMatchObject({ code: 200, status: '200 OK', body: exchanges[0]?.responseBody, duration: '21.517666ms' });
    expect(first?.response.headers).toEqual({
      'Content-Type': ['application/json'],
      Link: ['</servers?page=1&per_page=100&tags=a%3Db%2Cc>; rel="last"'],
      'X-Total-Count': ['1'],
    });
    expect(second?.request).toMatchObject({ method: 'PUT', body: exchanges[1]?.requestBody, content_length: 27, headers: {} });
    expect(second?.response).toMatchObject({ code: 404, status: '404 Not Found', body: exchanges[1]?.responseBody, duration: '0.25ms' });
    expect(second?.response.content_length).toBe(Buffer.byteLength(exchanges[1]?.responseBody ?? ''));
    // Laid out as the fixtures are (the line reader of test/support/cassette.ts relies on it): one scalar per line.
    const lines = text.split('\n');
    expect(lines.slice(0, 3)).toEqual(['---', 'version: 2', 'interactions:']);
    expect(lines.filter((l) => /^ {4}- id: \d+$/.test(l))).toHaveLength(2);
    expect(lines.filter((l) => l === '      request:' || l === '      response:')).toHaveLength(4);
    expect(lines.filter((l) => /^ {8}(url|method|body|code): \S/.test(l))).toHaveLength(10);
  });

  it('an empty run is a cassette with no interactions', () => {
    expect(parse(goVcrCassette([]))).toEqual({ version: 2, interactions: [] });
  });

  it('any string survives as one YAML scalar on one line', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }).filter((s) => !/\p{Cs}/u.test(s)), // no lone surrogate halves
        (value) => {
          const scalar = yamlString(value);
          expect(scalar).not.toMatch(/[\n\r\u0085\u2028\u2029]/);
          expect(parse(`key: ${scalar}`)).toEqual({ key: value });
        },
      ),
      { numRuns: 2000 },
    );
    for (const tricky of [
      '',
      'true',
      'No',
      '~',
      '123',
      '0x1F',
      '- a',
      '? b',
      ': c',
      '#d',
      '@e',
      '`f',
      "'g'",
      '"h"',
      ' lead',
      'trail ',
      'a: b',
      'a #b',
    ])
      expect(parse(`key: ${yamlString(tricky)}`)).toEqual({ key: tricky });
  });
});
