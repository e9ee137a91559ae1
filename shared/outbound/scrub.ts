// The one scrubber for everything that leaves a process: log lines, dead-letter records, function
// answers, CLI output and error messages built from API or fetch failures. Three passes, so that a
// secret is caught however it travels:
// - by value: each known secret in the forms it leaks in (verbatim, URL-encoded, base64/base64url,
//   JSON-escaped), wherever it appears in a string;
// - credentials in URLs, which need no list of values: `scheme://user:password@host` and token-like
//   query parameters (`?token=`, `&X-Amz-Signature=`, ...);
// - by key, for objects: the value of a field named like a credential (secretKey, token, authorization,
//   x-auth-token, ...) is replaced whatever it holds.

export const REDACTED = '[redacted]';

/** Field names whose values are credentials wherever they appear (compared case-insensitively). */
export const SECRET_FIELDS = [
  'secretKey',
  'accessKey',
  'secretAccessKey',
  'accessKeyId',
  'token',
  'password',
  'authorization',
  'x-auth-token',
  'env',
] as const;

/** Shorter values are too likely to be ordinary text to be scrubbed by value. */
export const MIN_SECRET_LENGTH = 6;

const SECRET_FIELD_SET = new Set(SECRET_FIELDS.map((name) => name.toLowerCase()));

// scheme://user:password@ — the userinfo ends at the first "@" before any "/", "?" or "#".
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>\\]+@/gi;
// ?token=..., &X-Amz-Signature=..., ;api_key=... (the value ends at &, #, whitespace or a quote).
const SECRET_QUERY_PARAMETER =
  /([?&;][\w.-]*?(?:token|secret|passw(?:or)?d|signature|credential|api[_-]?key|access[_-]?key|auth)[\w.-]*=)[^&#\s"'<>\\]*/gi;

export interface Scrubber {
  /** The text with every known secret and every URL credential replaced by [redacted]. */
  text(input: string): string;
  /** A deep copy with credential fields replaced and every string scrubbed as text(). */
  value<T>(input: T): T;
  /** A scrubber that also knows these values. */
  with(more: readonly (string | undefined | null)[]): Scrubber;
  readonly secrets: readonly string[];
}

/** The forms a secret leaks in: verbatim, URL-encoded, base64 (padded or not) and base64url, JSON-escaped. */
export function leakForms(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  const bytes = Buffer.from(secret, 'utf8');
  const forms = [
    secret,
    encoded,
    encoded.replace(/%[0-9A-F]{2}/g, (percentEscape) => percentEscape.toLowerCase()),
    bytes.toString('base64'),
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
    JSON.stringify(secret).slice(1, -1),
  ];
  return [...new Set(forms)].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/** The secrets a URL carries in its userinfo (user:password@), in the forms they may be read in. */
export function urlCredentials(url: string | undefined): string[] {
  if (!url) return [];
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@]*)@/i.exec(url.trim());
  if (!match?.[1]) return [];
  const userinfo = match[1];
  const colon = userinfo.indexOf(':');
  const password = colon === -1 ? '' : userinfo.slice(colon + 1);
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  // The whole userinfo (Basic auth is base64 of it), and the password alone, raw and decoded.
  return [userinfo, decode(userinfo), password, decode(password)].filter((value) => value.length > 0);
}

/** The URL without its userinfo: `http://user:pw@host/x` -> `http://host/x`. Nothing else changes. */
export function stripUrlCredentials(url: string): string {
  return url.replace(/^(\s*[a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1');
}

export function hasUrlCredentials(url: string | undefined): boolean {
  return url !== undefined && stripUrlCredentials(url) !== url;
}

function escapeForRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function createScrubber(secrets: readonly (string | undefined | null)[] = []): Scrubber {
  const known = [
    ...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.trim().length >= MIN_SECRET_LENGTH).map((s) => s.trim())),
  ];
  const needles = [...new Set(known.flatMap(leakForms))].sort((a, b) => b.length - a.length);
  const byValue = needles.length > 0 ? new RegExp(needles.map(escapeForRegExp).join('|'), 'g') : undefined;

  const text = (input: string): string => {
    let out = byValue ? input.replace(byValue, REDACTED) : input;
    if (out.includes('://')) out = out.replace(URL_USERINFO, `$1${REDACTED}@`);
    if (/[?&;]/.test(out)) out = out.replace(SECRET_QUERY_PARAMETER, `$1${REDACTED}`);
    return out;
  };

  const walk = (input: unknown, depth: number): unknown => {
    if (typeof input === 'string') return text(input);
    if (input === null || typeof input !== 'object' || depth > 64) return input;
    if (Array.isArray(input)) return input.map((item) => walk(item, depth + 1));
    if (input instanceof Error) return walk({ name: input.name, message: input.message }, depth + 1);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      out[key] = SECRET_FIELD_SET.has(key.toLowerCase()) && value !== undefined && value !== null ? REDACTED : walk(value, depth + 1);
    }
    return out;
  };

  return {
    text,
    value: <T>(input: T) => walk(input, 0) as T,
    with: (more) => createScrubber([...known, ...more]),
    secrets: known,
  };
}
