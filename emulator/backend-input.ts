/**
 * Validates CreateBackend / UpdateBackend / UpdateHealthCheck bodies and fills in the
 * defaults the real API answers with (taken from the recordings).
 */
import { isIP } from 'node:net';
import { readMilliseconds, readProtoDuration } from './durations';
import { apiErrors, type InvalidArgument } from './errors';
import type { BackendSettings, HealthCheckFields } from './records';

/**
 * The enums of a backend, each with its zero value: what the API takes for `""`, the value the Go SDK sends for an
 * enum left unset (its MarshalJSON; kOps and the CLI send it), and what an enum left out becomes. Recorded:
 * CreateBackend with `proxy_protocol` unset answers `proxy_protocol_unknown`, with `on_marked_down_action` unset
 * `on_marked_down_action_none` (cli-lb-test-add-backend-servers-with-instance-id-public-ip #13). The other zero
 * values are the Go SDK's defaults (`String()` of ""): assumed to be the API's.
 */
const ENUMS = {
  forward_protocol: { allowed: ['tcp', 'http'], zero: 'tcp' },
  forward_port_algorithm: { allowed: ['roundrobin', 'leastconn', 'first'], zero: 'roundrobin' },
  sticky_sessions: { allowed: ['none', 'cookie', 'table'], zero: 'none' },
  on_marked_down_action: { allowed: ['on_marked_down_action_none', 'shutdown_sessions'], zero: 'on_marked_down_action_none' },
  proxy_protocol: {
    allowed: [
      'proxy_protocol_unknown',
      'proxy_protocol_none',
      'proxy_protocol_v1',
      'proxy_protocol_v2',
      'proxy_protocol_v2_ssl',
      'proxy_protocol_v2_ssl_cn',
    ],
    zero: 'proxy_protocol_unknown',
  },
} as const;
type EnumField = keyof typeof ENUMS;
const HEALTH_CHECK_CONFIGS = ['tcp_config', 'http_config', 'https_config', 'mysql_config', 'pgsql_config', 'ldap_config', 'redis_config'];

/**
 * What a CreateBackend that leaves a field out answers. Recorded (cli-lb-test-add-backend-servers-with-instance-id-public-ip
 * #13, the CLI's create): `max_retries` and `timeout_queue` null, `proxy_protocol_unknown` (ENUMS' zero values). The
 * timeouts are what every recorded create sends and answers (lb-backend-basic #9; the CLI sends its own defaults,
 * the same values): what the API gives a create that leaves them out is assumed.
 */
export const BACKEND_DEFAULTS = {
  sticky_sessions_cookie_name: '',
  max_retries: null,
  timeout_server: 300_000,
  timeout_connect: 5_000,
  timeout_tunnel: 900_000,
  timeout_queue_ms: null,
  check_delay: 3_000,
  check_timeout: 1_000,
  transient_check_delay_ms: 500,
} as const;

type JsonObject = Record<string, unknown>;
export type DuplicateIps = 'dedupe' | 'refuse';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects every invalid argument of a body before failing, like the real API. */
class FieldReader {
  readonly problems: InvalidArgument[] = [];
  constructor(
    private readonly body: JsonObject,
    private readonly prefix = '',
  ) {}

  private fail(field: string, reason: InvalidArgument['reason'], help: string): undefined {
    this.problems.push({ argument_name: this.prefix + field, reason, help_message: help });
    return undefined;
  }

  private present(field: string): boolean {
    return this.body[field] !== undefined && this.body[field] !== null;
  }

  /** A missing field: a problem when it is required, else simply undefined. */
  private absent(field: string, required: boolean | undefined): undefined {
    if (required) this.required(field);
    return undefined;
  }

  required(field: string): boolean {
    if (this.present(field)) return true;
    this.fail(field, 'required', 'required key not provided');
    return false;
  }

  string(field: string, opts: { required?: boolean; nonEmpty?: boolean } = {}): string | undefined {
    if (!this.present(field)) return this.absent(field, opts.required);
    const value = this.body[field];
    if (typeof value !== 'string') return this.fail(field, 'format', 'expected a string');
    if (opts.nonEmpty && value.length === 0) return this.fail(field, 'constraint', 'must not be empty');
    return value;
  }

  /**
   * An enum of a backend: `""` (the Go SDK's unset enum) is its zero value, as is a field left out unless required
   * (or, given `kept`, the value it keeps).
   */
  enumValue(field: EnumField, required: boolean, kept?: string): string | undefined {
    const { allowed, zero } = ENUMS[field];
    if (this.body[field] === '') return zero;
    const value = this.string(field, { required });
    if (value === undefined) return required ? undefined : (kept ?? zero);
    if (!(allowed as readonly string[]).includes(value)) return this.fail(field, 'constraint', `must be one of: ${allowed.join(', ')}`);
    return value;
  }

  integer(field: string, opts: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
    if (!this.present(field)) return this.absent(field, opts.required);
    const value = this.body[field];
    if (typeof value !== 'number' || !Number.isInteger(value)) return this.fail(field, 'format', 'expected an integer');
    if (opts.min !== undefined && value < opts.min) return this.fail(field, 'constraint', `must be >= ${opts.min}`);
    if (opts.max !== undefined && value > opts.max) return this.fail(field, 'constraint', `must be <= ${opts.max}`);
    return value;
  }

  boolean(field: string): boolean | undefined {
    if (!this.present(field)) return undefined;
    const value = this.body[field];
    if (typeof value !== 'boolean') return this.fail(field, 'format', 'expected a boolean');
    return value;
  }

  milliseconds(field: string, opts: { required?: boolean } = {}): number | undefined {
    if (!this.present(field)) return this.absent(field, opts.required);
    const ms = readMilliseconds(this.body[field]);
    if (ms === undefined) return this.fail(field, 'format', 'expected a whole number of milliseconds as a JSON number (not a string)');
    return ms;
  }

  protoDuration(field: string): number | undefined {
    if (!this.present(field)) return undefined;
    const ms = readProtoDuration(this.body[field]);
    if (ms === undefined) return this.fail(field, 'format', 'expected a duration string such as "0.5s"');
    return ms;
  }

  /** A list of IP addresses; a repeated address is kept once, or refused (the duplicateServerIps switch). */
  ipList(field: string, duplicates: DuplicateIps): string[] | undefined {
    if (!this.present(field)) return undefined;
    const value = this.body[field];
    if (!Array.isArray(value)) return this.fail(field, 'format', 'expected a list of IP addresses');
    const ips: string[] = [];
    value.forEach((item, index) => {
      if (typeof item !== 'string' || isIP(item) === 0) {
        this.fail(`${field}.${index}`, 'format', 'expected an IP address');
      } else if (!ips.includes(item)) {
        ips.push(item);
      } else if (duplicates === 'refuse') {
        this.fail(`${field}.${index}`, 'constraint', `duplicate address ${item}`);
      }
    });
    return ips;
  }

  object(field: string): JsonObject | undefined {
    if (!this.present(field)) return undefined;
    const value = this.body[field];
    if (!isObject(value)) return this.fail(field, 'format', 'expected an object');
    return value;
  }

  addProblems(problems: InvalidArgument[]): void {
    this.problems.push(...problems);
  }

  throwIfInvalid(): void {
    if (this.problems.length > 0) throw apiErrors.invalidArguments(this.problems);
  }
}

export function requireObjectBody(body: unknown): JsonObject {
  if (isObject(body)) return body;
  throw apiErrors.invalidArguments([{ argument_name: 'body', reason: 'format', help_message: 'expected a JSON object' }]);
}

/**
 * A backend's settings from a CreateBackend or UpdateBackend body. An optional field left out (or null) takes what a
 * create leaving it out gets, or, given `kept` (switch `updateBackendLeftOut: keep`), the backend's own value.
 */
function readSettings(reader: FieldReader, kept?: BackendSettings): BackendSettings | undefined {
  const leftOut = <K extends keyof BackendSettings>(field: K, created: BackendSettings[K]) => (kept ? kept[field] : created);
  const settings = {
    name: reader.string('name', { required: true, nonEmpty: true }),
    forward_protocol: reader.enumValue('forward_protocol', true),
    forward_port: reader.integer('forward_port', { required: true, min: 1, max: 65535 }),
    forward_port_algorithm: reader.enumValue('forward_port_algorithm', true),
    sticky_sessions: reader.enumValue('sticky_sessions', true),
    sticky_sessions_cookie_name:
      reader.string('sticky_sessions_cookie_name') ?? leftOut('sticky_sessions_cookie_name', BACKEND_DEFAULTS.sticky_sessions_cookie_name),
    // kOps' Go SDK always sends the field, "" when unset: the API takes the zero value, which resets it.
    on_marked_down_action: reader.enumValue('on_marked_down_action', false, kept?.on_marked_down_action),
    proxy_protocol: reader.enumValue('proxy_protocol', false, kept?.proxy_protocol),
    failover_host: reader.string('failover_host') ?? leftOut('failover_host', null),
    ssl_bridging: reader.boolean('ssl_bridging') ?? leftOut('ssl_bridging', false),
    ignore_ssl_server_verify: reader.boolean('ignore_ssl_server_verify') ?? leftOut('ignore_ssl_server_verify', null),
    redispatch_attempt_count: reader.integer('redispatch_attempt_count', { min: 0 }) ?? leftOut('redispatch_attempt_count', null),
    max_retries: reader.integer('max_retries', { min: 0 }) ?? leftOut('max_retries', BACKEND_DEFAULTS.max_retries),
    max_connections: reader.integer('max_connections', { min: 0 }) ?? leftOut('max_connections', null),
    send_proxy_v2: reader.boolean('send_proxy_v2') ?? leftOut('send_proxy_v2', false),
    timeout_server: reader.milliseconds('timeout_server') ?? leftOut('timeout_server', BACKEND_DEFAULTS.timeout_server),
    timeout_connect: reader.milliseconds('timeout_connect') ?? leftOut('timeout_connect', BACKEND_DEFAULTS.timeout_connect),
    timeout_tunnel: reader.milliseconds('timeout_tunnel') ?? leftOut('timeout_tunnel', BACKEND_DEFAULTS.timeout_tunnel),
    timeout_queue_ms: reader.protoDuration('timeout_queue') ?? leftOut('timeout_queue_ms', BACKEND_DEFAULTS.timeout_queue_ms),
  };
  if (reader.problems.length > 0) return undefined;
  return settings as BackendSettings;
}

/**
 * A health check. On CreateBackend, check_delay and check_timeout default to 3000 / 1000 ms; UpdateHealthCheck
 * requires them, as it requires port and check_max_retries.
 */
function readHealthCheck(reader: FieldReader, on: 'create' | 'update'): HealthCheckFields | undefined {
  const update = on === 'update';
  const port = reader.integer('port', { required: true, min: 1, max: 65535 });
  const checkMaxRetries = reader.integer('check_max_retries', { required: true, min: 0 });
  const checkSendProxy = reader.boolean('check_send_proxy') ?? false;
  const checkDelay = reader.milliseconds('check_delay', { required: update }) ?? BACKEND_DEFAULTS.check_delay;
  const checkTimeout = reader.milliseconds('check_timeout', { required: update }) ?? BACKEND_DEFAULTS.check_timeout;
  const transientDelay = reader.protoDuration('transient_check_delay') ?? BACKEND_DEFAULTS.transient_check_delay_ms;
  const configs = HEALTH_CHECK_CONFIGS.flatMap((key) => {
    const value = reader.object(key);
    return value === undefined ? [] : [{ key, value }];
  });
  if (configs.length > 1) {
    reader.addProblems([
      {
        argument_name: configs.map((c) => c.key).join(','),
        reason: 'constraint',
        help_message: 'at most one health check config may be set',
      },
    ]);
  }
  if (reader.problems.length > 0 || port === undefined || checkMaxRetries === undefined) return undefined;
  const chosen = configs[0] ?? { key: 'tcp_config', value: {} };
  return {
    port,
    check_delay: checkDelay,
    check_timeout: checkTimeout,
    check_max_retries: checkMaxRetries,
    check_send_proxy: checkSendProxy,
    transient_check_delay_ms: transientDelay,
    config: { key: chosen.key, value: withConfigDefaults(chosen.key, chosen.value) },
  };
}

function withConfigDefaults(key: string, value: JsonObject): JsonObject {
  switch (key) {
    case 'http_config':
      return { code: null, host_header: '', method: 'GET', uri: '/', ...value };
    case 'https_config':
      return { code: null, host_header: '', method: 'GET', sni: '', uri: '/', ...value };
    case 'mysql_config':
    case 'pgsql_config':
      return { user: '', ...value };
    default:
      return {};
  }
}

export interface CreateBackendInput {
  settings: BackendSettings;
  healthCheck: HealthCheckFields;
  pool: string[];
}

/** CreateBackend: server_ip is required (an empty list is accepted). */
export function parseCreateBackend(body: unknown, duplicates: DuplicateIps = 'dedupe'): CreateBackendInput {
  const object = requireObjectBody(body);
  const reader = new FieldReader(object);
  const settings = readSettings(reader);
  const pool = reader.required('server_ip') ? (reader.ipList('server_ip', duplicates) ?? []) : [];
  let healthCheck: HealthCheckFields | undefined;
  if (reader.required('health_check')) {
    const healthCheckBody = reader.object('health_check');
    if (healthCheckBody) {
      const nested = new FieldReader(healthCheckBody, 'health_check.');
      healthCheck = readHealthCheck(nested, 'create');
      reader.addProblems(nested.problems);
    }
  }
  reader.throwIfInvalid();
  if (!settings || !healthCheck) throw apiErrors.invalidArguments(reader.problems);
  return { settings, healthCheck, pool };
}

/** UpdateBackend; `kept`: the backend's settings, which fields left out keep (switch `updateBackendLeftOut: keep`). */
export function parseUpdateBackend(body: unknown, kept?: BackendSettings): BackendSettings {
  const reader = new FieldReader(requireObjectBody(body));
  const settings = readSettings(reader, kept);
  reader.throwIfInvalid();
  if (!settings) throw apiErrors.invalidArguments(reader.problems);
  return settings;
}

export function parseHealthCheck(body: unknown): HealthCheckFields {
  const reader = new FieldReader(requireObjectBody(body));
  const healthCheck = readHealthCheck(reader, 'update');
  reader.throwIfInvalid();
  if (!healthCheck) throw apiErrors.invalidArguments(reader.problems);
  return healthCheck;
}

export function parseServerIps(body: unknown, duplicates: DuplicateIps = 'dedupe'): string[] {
  const reader = new FieldReader(requireObjectBody(body));
  const ips = reader.required('server_ip') ? reader.ipList('server_ip', duplicates) : undefined;
  reader.throwIfInvalid();
  return ips ?? [];
}

/**
 * A seeded backend goes through the same validation as CreateBackend; omitted enum fields
 * take kOps' values (`proxy_protocol_none` too) and an omitted health check is TCP on the forward port.
 */
export function parseSeedBackend(seed: JsonObject): CreateBackendInput {
  const forwardPort = seed.forward_port;
  return parseCreateBackend({
    forward_protocol: 'tcp',
    forward_port_algorithm: 'roundrobin',
    sticky_sessions: 'none',
    proxy_protocol: 'proxy_protocol_none',
    health_check: { port: forwardPort, check_max_retries: 5 },
    ...seed,
    server_ip: seed.pool ?? seed.server_ip ?? [],
  });
}
