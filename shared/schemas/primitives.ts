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
export const IP_SOURCES = ['public', 'public-ipv6', 'public-dual', 'ipam-private', 'kops'] as const;
export const EVENT_SOURCES = ['instance-replacement', 'manual', 'sweep', 'audit'] as const;

/** The writers of a pool the watcher tells apart by their User-Agent (shared/core/writers.ts). */
export const WRITER_KINDS = ['kops', 'terraform', 'ccm', 'cli', 'console', 'lbsync', 'sdk', 'unknown'] as const;

/**
 * The zones where Scaleway offers Load Balancers: the LB API's own list (@scaleway/sdk-lb, `Lbv1.ZonedAPI.LOCALITY`;
 * test/unit/zones.test.ts keeps the two equal). A target's LB and servers live in one of them.
 */
export const LB_ZONES = ['fr-par-1', 'fr-par-2', 'nl-ams-1', 'nl-ams-2', 'nl-ams-3', 'pl-waw-1', 'pl-waw-2', 'pl-waw-3'] as const;

export const zoneSchema = z.enum(LB_ZONES, { message: 'must be a zone where Scaleway offers Load Balancers' });

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

export const durationMsSchema = z
  .number({ message: 'must be a number of milliseconds' })
  .int({ message: 'must be a whole number of milliseconds' })
  .min(0)
  .max(3_600_000);

export const isoDateTimeSchema = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time like 2026-11-29T10:00:00Z' });
