/**
 * Duration encodings of the LB API. check_delay, check_timeout and timeout_* travel as
 * JSON integer milliseconds; transient_check_delay and timeout_queue are protobuf Durations
 * ("0.500000000s" in, "0.500s" out).
 */

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go-style duration ("1.5s", "300ms", "1m30s") into milliseconds; undefined if malformed. */
export function parseDurationString(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const unitPattern = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let totalMs = 0;
  let consumed = 0;
  for (const match of trimmed.matchAll(unitPattern)) {
    const [, amount, unit] = match;
    const unitMs = unit === undefined ? undefined : UNIT_MS[unit];
    if (amount === undefined || unitMs === undefined) return undefined;
    totalMs += Number(amount) * unitMs;
    consumed = match.index + match[0].length;
  }
  if (consumed === 0 || consumed !== trimmed.length) return undefined;
  return totalMs;
}

/**
 * Reads a millisecond field: a non-negative JSON integer, the only form the API takes (the recordings send
 * `"check_delay":60000`). A string ("3000", "3s") or a fraction is refused, though the JS SDK types these fields
 * as strings: a caller that passes the SDK a string must learn it here, not in production.
 */
export function readMilliseconds(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** Reads a protobuf Duration string into milliseconds (nanosecond precision kept as fraction). */
export function readProtoDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  return parseDurationString(value);
}

/** Formats milliseconds the way protojson does: seconds with 0, 3, 6 or 9 fractional digits. */
export function formatProtoDuration(ms: number): string {
  const totalNanos = Math.round(ms * 1e6);
  const sign = totalNanos < 0 ? '-' : '';
  const absNanos = Math.abs(totalNanos);
  const seconds = Math.floor(absNanos / 1e9);
  const nanos = absNanos % 1e9;
  if (nanos === 0) return `${sign}${seconds}s`;
  let fraction = String(nanos).padStart(9, '0');
  if (fraction.endsWith('000000')) fraction = fraction.slice(0, 3);
  else if (fraction.endsWith('000')) fraction = fraction.slice(0, 6);
  return `${sign}${seconds}.${fraction}s`;
}
