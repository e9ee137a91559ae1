import { isIP } from 'node:net';
import * as z from 'zod';

// Enum values are exactly Scaleway's (LB API v1).
export const FORWARD_PROTOCOLS = ['tcp', 'http'] as const;
export const FORWARD_PORT_ALGORITHMS = ['roundrobin', 'leastconn', 'first'] as const;
export const STICKY_SESSIONS = ['none', 'cookie', 'table'] as const;
export const PROXY_PROTOCOLS = [
  'proxy_protocol_none',
  'proxy_protocol_v1',
  'proxy_protocol_v2',
  'proxy_protocol_v2_ssl',
  'proxy_protocol_v2_ssl_cn',
] as const;
/** What the LB does to a server's open sessions when its health check marks it down. */
export const ON_MARKED_DOWN_ACTIONS = ['on_marked_down_action_none', 'shutdown_sessions'] as const;
/** The health checks a target may ask for: the API's `tcp_config`, `http_config` and `https_config`. */
export const HEALTH_CHECK_TYPES = ['tcp', 'http', 'https'] as const;
/** Methods an HTTP(S) health check may send, in the API's spelling (upper case, as recorded: lb-backend-health-check #26). */
export const HTTP_CHECK_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'] as const;

/** The writers of a pool the watcher tells apart by their User-Agent (shared/core/writers.ts). */
export const WRITER_KINDS = ['kops', 'terraform', 'ccm', 'cli', 'console', 'lbsync', 'sdk', 'unknown'] as const;

/**
 * The zones where Scaleway offers Load Balancers: the LB API's own list (@scaleway/sdk-lb, `Lbv1.ZonedAPI.LOCALITY`;
 * test/unit/zones.test.ts keeps the two equal). A target's LB and servers live in one of them.
 */
export const LB_ZONES = ['fr-par-1', 'fr-par-2', 'nl-ams-1', 'nl-ams-2', 'nl-ams-3', 'pl-waw-1', 'pl-waw-2', 'pl-waw-3'] as const;

export const zoneSchema = z.enum(LB_ZONES, { message: 'must be a zone where Scaleway offers Load Balancers' });

/** The region of one of those zones (fr-par-2 -> fr-par), as the schemas check it; core's own is core/locality.ts. */
export function regionOfZone(zone: string): string {
  return zone.replace(/-\d+$/, '');
}

export const portSchema = z
  .number({ message: 'must be a number' })
  .int({ message: 'must be a whole number' })
  .min(1, { message: 'must be between 1 and 65535' })
  .max(65535, { message: 'must be between 1 and 65535' });

export const ipSchema = z
  .string()
  .max(45)
  .refine((value) => isIP(value) !== 0, { message: 'must be a valid IPv4 or IPv6 address' });

export const uuidSchema = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { message: 'must be a UUID' });

export const targetNameSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, { message: 'must be letters, digits, ".", "_" or "-"' });

/**
 * What no name or tag may contain: control characters (C0 such as NUL, CR and LF; DEL; C1), line and paragraph
 * separators, and the bidirectional overrides that make text display differently from what it is. Names are matched
 * exactly and printed in logs and messages: a CR/LF could forge a log line, and a NUL could cut a name short in
 * another tool.
 */
const UNPRINTABLE = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** A name or tag: 1 to `max` characters, printable, and not only blanks. */
export function labelSchema(max: number) {
  return z
    .string()
    .min(1)
    .max(max)
    .refine((value) => !UNPRINTABLE.test(value), {
      message: 'must be printable: no control characters (a line break, a tab, NUL...), line separators or direction overrides',
      params: { fix: 'remove the invisible characters (a pasted line break, most often)' },
    })
    .refine((value) => value.trim() !== '', {
      message: 'must not be only blanks',
      params: { fix: 'give the name or tag itself' },
    });
}

export const durationMsSchema = z
  .number({ message: 'must be a number of milliseconds' })
  .int({ message: 'must be a whole number of milliseconds' })
  .min(0)
  .max(3_600_000);

export const isoDateTimeSchema = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time like 2026-11-29T10:00:00Z' });
