import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configWarnings, scalewaySettingsFromEnv, secretValues } from '../../../shared/platform/config';
import {
  createScrubber,
  hasUrlCredentials,
  REDACTED,
  secretFormsPossible,
  secretsAsThemselvesPattern,
  secretsPattern,
  stripUrlCredentials,
  urlCredentials,
} from '../../../shared/outbound/scrub';
import { FUZZ } from '../../fuzz/arbitraries';
import { reveals } from '../../support/secret-oracle';

const SECRET = 'p@ss/w:rd+4242 do-not-log';

describe('scrubber', () => {
  const scrub = createScrubber([SECRET, 'short', undefined]);

  it('replaces a secret in every form it leaks in: verbatim, URL-encoded (either hex case), base64, base64url, JSON-escaped', () => {
    const forms = [
      SECRET,
      encodeURIComponent(SECRET),
      encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()), // lower-case escapes
      Buffer.from(SECRET).toString('base64'),
      Buffer.from(SECRET).toString('base64url'),
      JSON.stringify(SECRET).slice(1, -1),
    ];
    for (const form of forms) {
      const out = scrub.text(`before ${form} after`);
      expect(out, form).toBe(`before ${REDACTED} after`);
    }
    expect(scrub.text(`Basic ${Buffer.from(SECRET).toString('base64')}`)).toBe(`Basic ${REDACTED}`);
    expect(JSON.parse(scrub.text(JSON.stringify({ message: `key "${SECRET}" refused` })))).toEqual({
      message: `key "${REDACTED}" refused`,
    });
  });

  it('leaves short values alone (too likely to be ordinary words)', () => {
    expect(scrub.text('a short answer')).toBe('a short answer');
  });

  it('strips credentials from any URL, known or not, and token-like query parameters', () => {
    expect(scrub.text('GET http://alice:hunter2@127.0.0.1:8080/lb/v1?x=1 failed')).toBe(
      `GET http://${REDACTED}@127.0.0.1:8080/lb/v1?x=1 failed`,
    );
    expect(scrub.text('https://sqs.example/q?X-Amz-Signature=abcdef&X-Amz-Credential=AKIA/x&Action=Send')).toBe(
      `https://sqs.example/q?X-Amz-Signature=${REDACTED}&X-Amz-Credential=${REDACTED}&Action=Send`,
    );
    expect(scrub.text('see https://x.example/cb?access_token=abc.def&state=1')).toBe(
      `see https://x.example/cb?access_token=${REDACTED}&state=1`,
    );
    expect(scrub.text('http://127.0.0.1:8080/lb/v1/zones/fr-par-1/lbs?name=api')).toBe(
      'http://127.0.0.1:8080/lb/v1/zones/fr-par-1/lbs?name=api',
    );
  });

  it('scrubs objects by key as well as by value, without touching the input', () => {
    const input = {
      outcome: 'dead_lettered',
      error: { message: `echo ${SECRET}` },
      headers: { 'X-Auth-Token': 'anything', authorization: 'Bearer x' },
      token: 'tok',
      nested: [{ secretKey: 'k' }],
    };
    expect(scrub.value(input)).toEqual({
      outcome: 'dead_lettered',
      error: { message: `echo ${REDACTED}` },
      headers: { 'X-Auth-Token': REDACTED, authorization: REDACTED },
      token: REDACTED,
      nested: [{ secretKey: REDACTED }],
    });
    expect(input.token).toBe('tok');
  });

  it('learns more secrets without forgetting', () => {
    const more = scrub.with(['another-secret-value']);
    expect(more.text(`${SECRET} another-secret-value`)).toBe(`${REDACTED} ${REDACTED}`);
    expect(scrub.text('another-secret-value')).toBe('another-secret-value');
  });
});

describe('URL credentials', () => {
  const url = 'http://lbsync-user:URL-PASSWORD%2B4242%2Fdo-not-log@127.0.0.1:9999/';

  it('are found (whole userinfo, password raw and decoded) and stripped, nothing else changes', () => {
    expect(urlCredentials(url)).toEqual(
      expect.arrayContaining([
        'URL-PASSWORD%2B4242%2Fdo-not-log',
        'URL-PASSWORD+4242/do-not-log',
        'lbsync-user:URL-PASSWORD%2B4242%2Fdo-not-log',
      ]),
    );
    expect(stripUrlCredentials(url)).toBe('http://127.0.0.1:9999/');
    expect(stripUrlCredentials('https://api.scaleway.com')).toBe('https://api.scaleway.com');
    expect(hasUrlCredentials(url)).toBe(true);
    expect(hasUrlCredentials('https://api.scaleway.com/x@y')).toBe(false);
  });

  it('SCW_API_URL: never handed to the SDK, its secrets known to the scrubber, a warning that names the variable only', () => {
    const env = { SCW_ACCESS_KEY: 'SCWXXXXXXXXXXXXXXXXX', SCW_SECRET_KEY: '11111111-2222-4333-8444-555555555555', SCW_API_URL: url };
    expect(scalewaySettingsFromEnv(env).apiUrl).toBe('http://127.0.0.1:9999/');
    expect(secretValues(env)).toEqual(expect.arrayContaining(['URL-PASSWORD+4242/do-not-log', 'URL-PASSWORD%2B4242%2Fdo-not-log']));
    const [warning, ...rest] = configWarnings(env);
    expect(rest).toEqual([]);
    expect(warning).toMatch(/^SCW_API_URL carries credentials/);
    expect(warning).not.toContain('URL-PASSWORD');
  });
});

// The fuzzers' fixed seed (FUZZ_SEED explores others): each property is checked against the tests' own reader of a
// text (test/support/secret-oracle.ts), written apart from the scrubber.
describe('scrubber: a secret in every form we produce or decode (property-based)', () => {
  // The secrets of a run: Scaleway's access and secret keys, and any printable token (ASCII or not).
  const secretArb = fc.oneof(
    fc.stringMatching(/^SCW[A-Z0-9]{17}$/),
    fc.uuid(),
    fc
      .string({ unit: 'grapheme', minLength: 6, maxLength: 40 })
      .filter((s) => s === s.trim() && s.length >= 6 && !/[\p{Cc}\p{Cs}]/u.test(s)),
  );
  const textArb = fc.string({ unit: 'binary', maxLength: 24 });
  const bitsArb = fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 64, maxLength: 64 });

  /** Each character as itself in another case, or escaped one of the ways a JSON, YAML, URL or HTML text may hold it. */
  const written = (secret: string, bits: number[]) =>
    [...secret]
      .map((c, i) => {
        const point = c.codePointAt(0) ?? 0;
        switch ((bits[i % bits.length] ?? 0) % 6) {
          case 1:
            return i % 2 ? c.toUpperCase() : c.toLowerCase();
          case 2:
            // A surrogate pair beyond the BMP, the hex digits in either case.
            return Array.from({ length: c.length }, (_, k) => c.charCodeAt(k).toString(16).padStart(4, '0'))
              .map((h) => `\\u${i % 2 ? h.toUpperCase() : h}`)
              .join('');
          case 3:
            return [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
          case 4:
            return `&#x${point.toString(16)};`;
          case 5:
            return point < 0x100 ? `\\x${point.toString(16).padStart(2, '0')}` : c;
          default:
            return c;
        }
      })
      .join('');
  const base64Of = (text: string, url: boolean) => Buffer.from(text, 'utf8').toString(url ? 'base64url' : 'base64');

  it('written any way, in any case, between any texts: gone', () => {
    fc.assert(
      fc.property(secretArb, textArb, textArb, bitsArb, (secret, before, after, bits) => {
        const out = createScrubber([secret]).text(`${before}${written(secret, bits)}${after}`);
        expect(reveals(out, secret)).toBe(false);
      }),
      { seed: FUZZ.seed, numRuns: 300 },
    );
  });

  it('in base64 or base64url of any text holding it (any alignment), itself escaped or written any way: gone', () => {
    fc.assert(
      fc.property(
        secretArb,
        textArb,
        textArb,
        textArb,
        textArb,
        bitsArb,
        fc.boolean(),
        (secret, inBefore, inAfter, before, after, bits, url) => {
          const encoded = base64Of(`${inBefore}${written(secret, bits)}${inAfter}`, url);
          const out = createScrubber([secret]).text(`${before}${encoded}${after}`);
          expect(reveals(out, secret)).toBe(false);
        },
      ),
      { seed: FUZZ.seed, numRuns: 300 },
    );
  });

  it('base64 of base64, and base64 whose characters a JSON or URL text escaped: gone', () => {
    fc.assert(
      fc.property(secretArb, textArb, textArb, textArb, fc.boolean(), (secret, inner, outer, before, url) => {
        const twice = base64Of(`${outer}${base64Of(`${inner}${secret}`, url)}`, !url);
        const escaped = [...base64Of(`${inner}${secret}`, url)]
          .map((c, i) => (i % 3 === 0 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
          .join('');
        const scrub = createScrubber([secret]);
        expect(reveals(scrub.text(`${before}${twice}`), secret)).toBe(false);
        expect(reveals(scrub.text(`${before}"${escaped}"`), secret)).toBe(false);
      }),
      { seed: FUZZ.seed, numRuns: 200 },
    );
  });

  it('text that holds no secret is left as it is, and holdsSecret says so', () => {
    fc.assert(
      fc.property(secretArb, fc.string({ unit: 'binary', maxLength: 200 }), (secret, text) => {
        // No URL credentials nor token-like query parameters either: those are scrubbed whatever they hold.
        fc.pre(!reveals(text, secret) && !text.includes('://') && !/[?&;]/.test(text));
        const scrub = createScrubber([secret]);
        expect(scrub.text(text)).toBe(text);
        expect(scrub.holdsSecret(text)).toBe(false);
      }),
      { seed: FUZZ.seed, numRuns: 300 },
    );
  });

  // The scrubber compiles the full pattern only when secretFormsPossible says a text may hold an escaped secret.
  // Texts made to sit on the edge: secrets written any way (a quote doubled, a space as +), one character perhaps
  // dropped, among characters of the secrets and of their escapes.
  const edgeSecretArb = fc.oneof(
    secretArb,
    ...[`aB1 '%&+#;/"-\\`, "aB1 '-"].map((alphabet) =>
      fc.string({ unit: fc.constantFrom(...alphabet), minLength: 6, maxLength: 12 }).filter((s) => s === s.trim()),
    ),
  );
  const writtenEdge = (secret: string, bits: number[]) =>
    [...secret]
      .map((c, i) => {
        const bit = bits[i % bits.length] ?? 0;
        // A case change leaves these two alone: its bit writes them escaped instead.
        if (bit === 1 && c === "'") return "''";
        if (bit === 1 && c === ' ') return '+';
        return written(c, [bit]);
      })
      .join('');
  // Mostly as itself (any case), now and then escaped: texts with a few escape starts.
  const fewEscapesArb = fc.array(
    fc.oneof({ weight: 6, arbitrary: fc.constantFrom(0, 1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 5 }) }),
    { minLength: 64, maxLength: 64 },
  );
  const edgeTextArb = (secrets: string[]) => {
    const own = [...secrets.join('')];
    return fc
      .array(
        fc.oneof(
          fc.string({ unit: fc.constantFrom(...own, ...`\\%&+'#;xuU0123456789abcdefABCDEF`), maxLength: 12 }),
          {
            weight: 3,
            arbitrary: fc.string({ unit: fc.constantFrom(...own.filter((c) => !'\\%&'.includes(c)), "'", '+', 'x'), maxLength: 12 }),
          },
          textArb,
          {
            weight: 3,
            arbitrary: fc.tuple(fc.constantFrom(...secrets), fewEscapesArb, fc.nat()).map(([secret, bits, drop]) => {
              const out = [...writtenEdge(secret, bits)];
              if (drop % 3 === 0) out.splice(drop % out.length, 1);
              return out.join('');
            }),
          },
        ),
        { maxLength: 5 },
      )
      .map((pieces) => pieces.join(''));
  };
  const spans = (pattern: RegExp, text: string) => [...text.matchAll(pattern)].map((m) => [m.index, m[0].length]);

  it('the full pattern is skipped only where it would find nothing, or find the secrets as themselves only', () => {
    fc.assert(
      fc.property(
        fc.array(edgeSecretArb, { minLength: 1, maxLength: 3 }).chain((secrets) => fc.tuple(fc.constant(secrets), edgeTextArb(secrets))),
        ([secrets, text]) => {
          const full = new RegExp(secretsPattern(secrets), 'giu');
          const forms = secretFormsPossible(secrets, text);
          if (forms === 'none') expect(spans(full, text)).toEqual([]);
          if (forms === 'itself') expect(spans(full, text)).toEqual(spans(new RegExp(secretsAsThemselvesPattern(secrets), 'giu'), text));
        },
      ),
      { seed: FUZZ.seed, numRuns: 1000 },
    );
  });

  it('a log line with no escape, and one holding none of a secret, never compile the full pattern; an escaped secret is still found', () => {
    const secret = '11111111-2222-4333-8444-555555555555';
    expect(secretFormsPossible([secret], '{"msg":"tick 5000 events","id":"0d6c1f0e-5c8e"}')).toBe('itself');
    expect(secretFormsPossible([secret], 'a \\"quoted\\" word & more')).toBe('none');
    const escaped = [...secret].map((c, i) => (i % 5 ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)).join('');
    expect(secretFormsPossible([secret], `key=${escaped}`)).toBe('escaped');
    expect(createScrubber([secret]).text(`key=${escaped}`)).toBe(`key=${REDACTED}`);
  });
});
