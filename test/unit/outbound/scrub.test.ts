import { describe, expect, it } from 'vitest';
import { configWarnings, scalewaySettingsFromEnv, secretValues } from '../../../shared/platform/config';
import { createScrubber, hasUrlCredentials, REDACTED, stripUrlCredentials, urlCredentials } from '../../../shared/outbound/scrub';

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
