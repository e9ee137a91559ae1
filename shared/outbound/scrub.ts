// The one scrubber for everything that leaves a process: log lines, dead-letter records, function
// answers, CLI output, error messages built from API or fetch failures, and `lbsync doctor --record`'s
// cassettes. Three passes, so that a secret is caught whatever form it takes:
// - by value: each known secret in every form we produce or decode, wherever it appears in a string: in any
//   case, each of its characters as itself or escaped (JSON or YAML `\u0041`, `\x41`, URL `%41`, HTML `&#65;`),
//   and inside base64 or base64url of any text containing it (each run of base64 characters is decoded at its four
//   alignments, twice over for base64 of base64, and a run that contains a secret is replaced whole);
// - credentials in URLs, which need no list of values: `scheme://user:password@host` and token-like
//   query parameters (`?token=`, `&X-Amz-Signature=`, ...);
// - by key, for objects: the value of a field named like a credential (secretKey, token, authorization,
//   x-auth-token, ...) is replaced, whatever its value.

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
  /** Whether the text holds a known secret in any form text() replaces (URL credentials aside). */
  holdsSecret(input: string): boolean;
  /** A deep copy with credential fields replaced and every string scrubbed as text(). */
  value<T>(input: T): T;
  /** A scrubber that also knows these values. */
  with(more: readonly (string | undefined | null)[]): Scrubber;
  readonly secrets: readonly string[];
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** Every way one character of a secret may be written in text we produce or read: itself, or escaped. */
function characterPattern(character: string): string {
  const point = character.codePointAt(0) ?? 0;
  const units = Array.from({ length: character.length }, (_, i) => character.charCodeAt(i));
  const ways = [
    escapeForRegExp(character),
    // JSON, JavaScript, YAML: \u0041 (a surrogate pair beyond the BMP), \U00000041, \x41.
    units.map((unit) => `\\\\u${hex(unit, 4)}`).join(''),
    `\\\\U${hex(point, 8)}`,
    ...(point < 0x100 ? [`\\\\x${hex(point, 2)}`] : []),
    // URL: its UTF-8 bytes as %41, and + for a space in a form.
    [...Buffer.from(character, 'utf8')].map((byte) => `%${hex(byte, 2)}`).join(''),
    ...(character === ' ' ? ['\\+'] : []),
    // HTML character references.
    `&#(?:x0*${hex(point, 1)}|0*${point});`,
    // JSON's short escapes, YAML's doubled single quote.
    ...(character === '"' || character === '\\' || character === '/' ? [`\\\\${escapeForRegExp(character)}`] : []),
    ...(character === "'" ? ["''"] : []),
  ];
  return `(?:${ways.join('|')})`;
}

/** A pattern for the secret written any of those ways, character by character (the `i` flag adds any case). */
function secretPattern(secret: string): string {
  return [...secret].map(characterPattern).join('');
}

/** Runs of base64 or base64url characters, with their padding. */
const BASE64_RUN = /[A-Za-z0-9+/_-]+={0,2}/g;
/** The same, some of its characters escaped as characterPattern writes them (base64 inside a JSON or URL text). */
const ESCAPED_BASE64_RUN = /(?:[A-Za-z0-9+/_=-]|\\u[0-9a-f]{4}|\\x[0-9a-f]{2}|%[0-9a-f]{2}|&#(?:x[0-9a-f]+|\d+);)+/gi;
/** Base64 inside base64 is looked into this many times over. */
const BASE64_DEPTH = 2;

/** The text with its escapes read: \u0041, \x41, %41 (UTF-8 bytes), &#65; and &#x41; become A. */
function unescapeText(text: string): string {
  if (!/[\\%&]/.test(text)) return text;
  return text
    .replace(/(?:%[0-9a-f]{2})+/gi, (bytes) => Buffer.from(bytes.replaceAll('%', ''), 'hex').toString('utf8'))
    .replace(/\\u([0-9a-f]{4})|\\x([0-9a-f]{2})|&#x([0-9a-f]{1,6});|&#(\d{1,7});/gi, (whole, u, x, hexRef, decimalRef) => {
      const point = Number.parseInt(u ?? x ?? hexRef ?? decimalRef, u || x || hexRef ? 16 : 10);
      return point <= 0x10ffff ? String.fromCodePoint(point) : whole;
    });
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

/** Where in a text an escaped character may begin (see characterPattern's ways), counted per secret. */
function escapeStarts(text: string): (secret: string) => number {
  // \u0041, \U00000041, \x41, \", %41, &#65; for any character; + for a space, '' for a single quote.
  const any = text.match(/[\\%&]/g)?.length ?? 0;
  const plus = text.match(/\+/g)?.length ?? 0;
  const quotes = text.match(/'/g)?.length ?? 0;
  return (secret) => any + (secret.includes(' ') ? plus : 0) + (secret.includes("'") ? quotes : 0);
}

/** A character as itself in any case, as the full pattern's first way reads it (one small regex per character). */
const asItself = new Map<string, RegExp>();
function occursAsItself(character: string, text: string): boolean {
  let pattern = asItself.get(character);
  if (!pattern) {
    pattern = new RegExp(escapeForRegExp(character), 'iu');
    asItself.set(character, pattern);
  }
  return pattern.test(text);
}

/**
 * Which forms of the secrets a text may hold, found without the full pattern (large: compiling it takes megabytes):
 * - 'itself': the text has no escape at all, so a secret can only be written as itself;
 * - 'none': no secret in any form. Each escaped character begins at an escape start, so a secret with more of its
 *   characters absent (as themselves) from the text than the text has escape starts cannot be in it;
 * - 'escaped': a secret may be there, escaped: only the full pattern can tell.
 */
export function secretFormsPossible(secrets: readonly string[], text: string): 'none' | 'itself' | 'escaped' {
  const startsFor = escapeStarts(text);
  const starts = secrets.map(startsFor);
  if (starts.every((count) => count === 0)) return 'itself';
  const present = new Map<string, boolean>();
  const occurs = (character: string) => {
    let found = present.get(character);
    if (found === undefined) {
      found = occursAsItself(character, text);
      present.set(character, found);
    }
    return found;
  };
  return secrets.some((secret, i) => {
    let absent = 0;
    for (const character of secret) if (!occurs(character) && ++absent > (starts[i] ?? 0)) return false;
    return true;
  })
    ? 'escaped'
    : 'none';
}

/** The pattern of the secrets in every form (longest first, so that a longer secret wins where they overlap). */
export function secretsPattern(secrets: readonly string[]): string {
  return longestFirst(secrets).map(secretPattern).join('|');
}

/** The pattern of the secrets written as themselves only, in the same order. */
export function secretsAsThemselvesPattern(secrets: readonly string[]): string {
  return longestFirst(secrets).map(escapeForRegExp).join('|');
}

const longestFirst = (secrets: readonly string[]) => [...secrets].sort((a, b) => b.length - a.length);

/** A global pattern's test from the start of the text, its lastIndex left at 0 as replace leaves it (the full pattern serves both). */
function testFromStart(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}

export function createScrubber(secrets: readonly (string | undefined | null)[] = []): Scrubber {
  const known = [
    ...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.trim().length >= MIN_SECRET_LENGTH).map((s) => s.trim())),
  ];
  // The full pattern is compiled only for a text that may hold an escaped secret (most texts hold none): its
  // compiled code and the memory compiling it takes would otherwise add megabytes to every process's peak.
  let full: RegExp | undefined;
  const fullPattern = () => (full ??= new RegExp(secretsPattern(known), 'giu'));
  // The secrets as themselves only: all the full pattern can find in a text without escapes, in the same order.
  const asThemselves = known.length > 0 ? new RegExp(secretsAsThemselvesPattern(known), 'giu') : undefined;
  /** The pattern that finds the secrets in this text as the full pattern would; none when none can be there. */
  const patternFor = (input: string): RegExp | undefined => {
    if (!asThemselves) return undefined;
    const forms = secretFormsPossible(known, input);
    return forms === 'none' ? undefined : forms === 'itself' ? asThemselves : fullPattern();
  };
  const holdsSecret = (input: string): boolean => {
    const pattern = patternFor(input);
    return pattern !== undefined && testFromStart(pattern, input);
  };
  // Base64 of a text holding the shortest secret takes at least this many characters.
  const shortestRun = Math.ceil((Math.min(...known.map((s) => Buffer.byteLength(s, 'utf8'))) * 4) / 3);

  /** Whether a run of base64 characters decodes, at one of its alignments, to text holding a secret in any form. */
  const base64Holds = (run: string, depth: number): boolean => {
    for (let offset = 0; offset < 4 && run.length - offset >= shortestRun; offset += 1) {
      const bytes = Buffer.from(run.slice(offset), 'base64');
      // latin1 keeps every byte (an ASCII secret among any bytes); utf8 reads a secret beyond ASCII.
      for (const decoded of [bytes.toString('latin1'), bytes.toString('utf8')]) {
        if (holdsSecret(decoded)) return true;
        if (depth > 1 && [...decoded.matchAll(BASE64_RUN)].some(([inner]) => inner.length >= shortestRun && base64Holds(inner, depth - 1)))
          return true;
      }
    }
    return false;
  };

  /** Whether a run of base64 characters, some perhaps escaped, holds a secret in any form. */
  const runHolds = (run: string): boolean =>
    run.length >= shortestRun &&
    [...unescapeText(run).matchAll(BASE64_RUN)].some(([plain]) => plain.length >= shortestRun && base64Holds(plain, BASE64_DEPTH));

  /** Each secret, in any form: replaced where it is written out, and a base64 run that holds one replaced whole. */
  const byValueText = (input: string): string => {
    if (!asThemselves) return input;
    const pattern = patternFor(input);
    return (pattern ? input.replace(pattern, REDACTED) : input).replace(ESCAPED_BASE64_RUN, (run) => (runHolds(run) ? REDACTED : run));
  };

  const text = (input: string): string => {
    let out = byValueText(input);
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
    holdsSecret: (input: string) => byValueText(input) !== input,
    value: <T>(input: T) => walk(input, 0) as T,
    with: (more) => createScrubber([...known, ...more]),
    secrets: known,
  };
}
