import * as z from 'zod';
import { validationError } from '../errors/lbsync-error';
import type { FieldError } from '../errors/field-errors';
import { keysAt, toFieldErrors } from './zod-issues';
import {
  durationMsSchema,
  FORWARD_PORT_ALGORITHMS,
  FORWARD_PROTOCOLS,
  HEALTH_CHECK_TYPES,
  HTTP_CHECK_METHODS,
  labelSchema,
  ON_MARKED_DOWN_ACTIONS,
  portSchema,
  PROXY_PROTOCOLS,
  STICKY_SESSIONS,
  targetNameSchema,
  regionOfZone,
  uuidSchema,
  zoneSchema,
} from './primitives';
import { DEFAULT_HEALTH_CHECK } from './api-defaults';
import { IP_SOURCES, ipSourcesDescription } from './ip-sources';
import { closest } from './suggest';
import { looksLikeApiKey } from './api-key';

/** The tag `kops update cluster` adds to a server whose spec changed; `kops rolling-update` replaces exactly those. */
export const KOPS_NEEDS_UPDATE_TAG = 'noprefix=kops.k8s.io/needs-update';

/** An HTTP(S) health check's request and the answer it expects (`http_config`, `https_config` on the wire). */
export const httpCheckSchema = z
  .object({
    uri: z
      .string()
      .min(1)
      .max(2048)
      .regex(/^\S+$/, { message: 'must be a path (or URL) without spaces, e.g. /healthz' })
      .describe('what the check asks for, e.g. /healthz; required with type http or https'),
    method: z
      .enum(HTTP_CHECK_METHODS)
      .optional()
      .describe('HTTP method the check sends; GET when the check is created or changes type and none is named'),
    code: z.number().int().min(100).max(599).optional().describe('the HTTP status a passing server answers'),
    hostHeader: z.string().max(255).optional().describe('the Host header the check sends'),
    sni: z.string().max(255).optional().describe('type https only: the server name (SNI) the check sends'),
  })
  .strict();

/**
 * Health-check fields a target names are compared; fields it leaves out are never rewritten. Durations are integer ms
 * here; on the wire check_delay and check_timeout are integer ms, transient_check_delay a "0.5s"-style duration.
 */
export const healthCheckSchema = z
  .object({
    type: z
      .enum(HEALTH_CHECK_TYPES)
      .optional()
      .describe(
        "tcp: the server accepts a connection; http, https: it answers the request of `http`; a change of type replaces the check's config (the old one is cleared); a backend created without it gets tcp",
      ),
    port: portSchema.optional().describe('TCP port probed; defaults to the forward port on create'),
    checkDelayMs: durationMsSchema.optional().describe('time between two checks, in ms (API default 3000)'),
    checkTimeoutMs: durationMsSchema.optional().describe('time to wait for an answer, in ms (API default 1000)'),
    checkMaxRetries: z.number().int().min(0).max(100).optional().describe('failed checks before a server is marked down'),
    checkSendProxy: z.boolean().optional().describe('send the PROXY protocol header with each check (check_send_proxy)'),
    transientCheckDelayMs: durationMsSchema
      .optional()
      .describe(
        'time between two checks while a server goes up or down, in ms (transient_check_delay, a "0.5s"-style duration on the wire; 500 on a backend created without it)',
      ),
    http: httpCheckSchema
      .optional()
      .describe('type http or https: the request the check sends and the status it expects; each field compared only when named'),
  })
  .strict()
  .refine((hc) => hc.http === undefined || hc.type === 'http' || hc.type === 'https', {
    message: 'http is read only with type "http" or "https": add "type": "http" (or "https"), or remove http',
    path: ['type'],
  })
  .refine((hc) => (hc.type !== 'http' && hc.type !== 'https') || hc.http !== undefined, {
    message: 'type "http" and "https" need http.uri, the path the check asks for: add "http": {"uri": "/healthz"}',
    path: ['http'],
  })
  .refine((hc) => hc.http?.sni === undefined || hc.type === 'https', {
    message: 'sni is sent by an https check only: set "type": "https", or remove http.sni',
    path: ['http', 'sni'],
  });

/**
 * Backend fields compared and written only when a target names them (docs/reconcile.md, "Backend fields and health
 * checks"). A field left out is never compared, and a full PUT sends the LB's value back unchanged. A null answer (the
 * API's "not set") differs from every value, so a named field is written once over it, then reads in sync.
 */
export const backendOptionFields = {
  onMarkedDownAction: z
    .enum(ON_MARKED_DOWN_ACTIONS)
    .optional()
    .describe(
      "what the LB does to a server's open sessions when its health check marks it down: shutdown_sessions closes them, on_marked_down_action_none leaves them",
    ),
  timeoutServerMs: durationMsSchema
    .optional()
    .describe(
      'longest time a server may take to answer, in ms (timeout_server, integer ms on the wire; 300000 on a backend created without it)',
    ),
  timeoutConnectMs: durationMsSchema
    .optional()
    .describe(
      'longest time to open a connection to a server, in ms (timeout_connect, integer ms on the wire; 5000 on a backend created without it)',
    ),
  timeoutTunnelMs: durationMsSchema
    .optional()
    .describe(
      'longest inactivity of an established tunnel (a WebSocket), in ms (timeout_tunnel, integer ms on the wire; 900000 on a backend created without it)',
    ),
  maxRetries: z
    .number()
    .int()
    .min(0)
    .max(100)
    .optional()
    .describe(
      'connection attempts to a server that fail before the LB gives up (max_retries; null, not set, on a backend created without it)',
    ),
  redispatchAttemptCount: z
    .number()
    .int()
    .min(0)
    .max(100)
    .optional()
    .describe('of those retries, how many go to another server (redispatch_attempt_count; null until set)'),
  maxConnections: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .optional()
    .describe('most connections at once to each server (max_connections; null until set; 0 is a value of its own, read back as 0)'),
  timeoutQueueMs: durationMsSchema
    .optional()
    .describe(
      'longest time a request waits once maxConnections is reached, in ms (timeout_queue, a "4s"-style duration on the wire; null until set; 0 reads "0s")',
    ),
};

export const backendSchema = z
  .object({
    name: labelSchema(255).describe('backend name, matched exactly'),
    forwardProtocol: z.enum(FORWARD_PROTOCOLS).default('tcp').describe('protocol spoken to the servers'),
    forwardPort: portSchema.describe('port on the servers traffic is sent to'),
    forwardPortAlgorithm: z.enum(FORWARD_PORT_ALGORITHMS).default('roundrobin').describe('how connections are spread over the pool'),
    stickySessions: z.enum(STICKY_SESSIONS).default('none').describe('session stickiness'),
    stickySessionsCookieName: z.string().max(255).optional().describe('required by the API when stickySessions is "cookie"'),
    proxyProtocol: z.enum(PROXY_PROTOCOLS).default('proxy_protocol_none').describe('PROXY protocol header sent to the servers'),
    healthCheck: healthCheckSchema.optional().describe('the health check (tcp, http or https); only the fields named here are compared'),
    ...backendOptionFields,
    createIfMissing: z
      .boolean()
      .default(true)
      .describe('false: keep the backend in sync only while the LB has one of this name, never create it'),
  })
  .strict()
  .refine((b) => b.stickySessions !== 'cookie' || !!b.stickySessionsCookieName, {
    message: 'stickySessionsCookieName is required when stickySessions is "cookie"',
    path: ['stickySessionsCookieName'],
  });

const lbNameSchema = labelSchema(255).describe('exact LB name (kOps: api.<cluster>); give name or id');
const lbIdSchema = uuidSchema.describe('LB id, saves a list call; give name or id');

export const loadBalancerRefSchema = z.union([z.object({ name: lbNameSchema }).strict(), z.object({ id: lbIdSchema }).strict()]);

/** One LB of a target that names several: by exact name or by id, in its own zone. */
export const loadBalancerPlaceSchema = z.union([
  z.object({ name: lbNameSchema, zone: zoneSchema.describe("the LB's zone: in the region of the target's zone") }).strict(),
  z.object({ id: lbIdSchema, zone: zoneSchema.describe("the LB's zone: in the region of the target's zone") }).strict(),
]);

/** At most this many LBs per target: each costs a no-op two reads (docs/reconcile.md, Several LBs). */
export const MAX_LOAD_BALANCERS = 10;

export const serverSelectorSchema = z
  .object({
    tags: z.array(labelSchema(255)).min(1).max(20).describe('exact Instance tags, all of which a server must carry'),
    ipSource: z.enum(IP_SOURCES).default('public').describe(ipSourcesDescription()),
    leavingTags: z
      .array(labelSchema(255))
      .max(20)
      .default([])
      .describe(
        `a server carrying any of these tags is leaving: never added to a pool (unless no other member would pass its health check), kept while it is in one; kOps marks the servers it will replace with ${KOPS_NEEDS_UPDATE_TAG} (the kops shorthand names it)`,
      ),
    privateNetworkId: uuidSchema
      .optional()
      .describe(
        'ipSource ipam-private only: the private network whose NIC address each server gives, which the LB must be attached to (ready); required when the servers have NICs on several private networks',
      ),
  })
  .strict();

/** Rolling-update safety (shared/core/rollout.ts): how fast serving members may leave a pool. */
export const maxUnavailableSchema = z
  .number({ message: 'must be a number of pool members' })
  .int({ message: 'must be a whole number of pool members' })
  .min(0)
  .max(100)
  .default(1)
  .describe(
    'at most this many pool members that pass (or may pass) their health check leave per write, and only once every desired member passes its own; 0: only members the LB reports failing (or whose server is stopped) leave',
  );

export const trustPartialDiscoverySchema = z
  .boolean({ message: 'must be true or false' })
  .default(false)
  .describe(
    'false: when discovery finds fewer than half of the pool members still serving, none of them is removed in that reconcile (lost tags and partial listings look like a shrink); true: trust such a discovery',
  );

/** An environment variable's name, as a deployed function may be given it (Scaleway reserves SCW_*). */
const variableNameSchema = z
  .string({ message: 'must be the name of an environment variable' })
  .min(1)
  .max(100)
  .refine((name) => !looksLikeApiKey(name), {
    message: 'looks like an API key itself: give the name of the environment variable that holds it, never the key',
    abort: true,
  })
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    message: 'must be an environment variable name: letters, digits and "_", not starting with a digit',
  })
  .refine((name) => !name.startsWith('SCW_'), {
    message: 'SCW_* names are reserved inside Scaleway Functions: name the variable otherwise, e.g. TEAM_B_SCW_ACCESS_KEY',
  });

/** The target's own API key, by the names of the variables that contain it: a key is never written in the targets. */
export const credentialsSchema = z
  .object({
    accessKeyEnv: variableNameSchema.describe('name of the environment variable holding the access key (SCW...); deployed as a secret'),
    secretKeyEnv: variableNameSchema.describe('name of the environment variable holding the secret key (a UUID); deployed as a secret'),
  })
  .strict()
  .refine((c) => c.accessKeyEnv !== c.secretKeyEnv, {
    message: 'accessKeyEnv and secretKeyEnv name the same variable',
    path: ['secretKeyEnv'],
  });

/** Where a target lives and which key serves it (docs/configuration.md, "A fleet"): each part defaults to the deployment's. */
const accountFields = {
  projectId: uuidSchema
    .optional()
    .describe(
      "the project of the target's servers: discovery takes only servers of it (default: the deployment's SCW_DEFAULT_PROJECT_ID, or any project when unset)",
    ),
  organizationId: uuidSchema
    .optional()
    .describe(
      "the organization of the target's project: the watcher reads its Audit Trail there (default: the deployment's SCW_DEFAULT_ORGANIZATION_ID)",
    ),
  credentials: credentialsSchema
    .optional()
    .describe("the API key every call made for this target authenticates with, named by its variables (default: the deployment's key)"),
};

type LoadBalancerFields = {
  zone: string;
  loadBalancer?: z.output<typeof loadBalancerRefSchema> | undefined;
  loadBalancers?: z.output<typeof loadBalancerPlaceSchema>[] | undefined;
};

/**
 * Exactly one of loadBalancer and loadBalancers. Every LB must be in the region of the target's zone, because the
 * watcher reads one region's Audit Trail per target and a private network is regional. No LB may be named twice.
 */
function checkLoadBalancers(t: LoadBalancerFields, ctx: z.core.$RefinementCtx<LoadBalancerFields>): void {
  const forms = 'loadBalancer {"name": ...} or {"id": ...} (the LB in the target\'s zone), or loadBalancers [{"name" | "id", "zone"}, ...]';
  if (t.loadBalancer === undefined && t.loadBalancers === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['loadBalancer'],
      input: undefined,
      message: `is missing: give ${forms}`,
      params: { fix: `add ${forms}` },
    });
    return;
  }
  if (t.loadBalancer !== undefined && t.loadBalancers !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['loadBalancers'],
      input: undefined,
      message: 'loadBalancer and loadBalancers are both given',
      params: {
        fix: 'keep one: list every LB under loadBalancers (the one in the target\'s zone with "zone" too), and remove loadBalancer',
      },
    });
    return;
  }
  const region = regionOfZone(t.zone);
  const seen = new Map<string, number>();
  (t.loadBalancers ?? []).forEach((lb, index) => {
    if (regionOfZone(lb.zone) !== region)
      ctx.addIssue({
        code: 'custom',
        path: ['loadBalancers', index, 'zone'],
        input: lb.zone,
        message: `${lb.zone} is not in ${region}, the region of the target's zone ${t.zone}`,
        params: { fix: `give a zone of ${region}: the target's LBs and servers live in one region` },
      });
    const key = 'id' in lb ? `id ${lb.id}` : `name "${lb.name}" in ${lb.zone}`;
    const first = seen.get(key);
    if (first !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['loadBalancers', index],
        input: undefined,
        message: `names the LB loadBalancers[${first}] names (${key})`,
        params: { fix: `remove loadBalancers[${index}]` },
      });
    else seen.set(key, index);
  });
}

export const fullTargetSchema = z
  .object({
    name: targetNameSchema.describe('target name; events name their target with it'),
    zone: zoneSchema.describe('zone of the servers, e.g. fr-par-1, and of the LB named by loadBalancer'),
    loadBalancer: loadBalancerRefSchema
      .optional()
      .describe("the LB, by exact name or by id, in the target's zone; give loadBalancer or loadBalancers"),
    loadBalancers: z
      .array(loadBalancerPlaceSchema)
      .min(1)
      .max(MAX_LOAD_BALANCERS)
      .optional()
      .describe(
        "several LBs that share the one desired pool (e.g. a main LB and a fallback in another zone of the region), each by exact name or by id with its own zone; each LB's backends are reconciled by the same rules; instead of loadBalancer",
      ),
    backends: z.array(backendSchema).min(1).max(20).describe('backends to keep in sync, matched by exact name'),
    servers: serverSelectorSchema.describe('which servers belong in the pools'),
    allowEmptyPool: z
      .boolean()
      .default(false)
      .describe(
        'allow writing an empty pool when no server matches (only once no member passes its health check: the last passing member never leaves)',
      ),
    maxUnavailable: maxUnavailableSchema,
    trustPartialDiscovery: trustPartialDiscoverySchema,
    ...accountFields,
  })
  .strict()
  .refine((t) => new Set(t.backends.map((b) => b.name)).size === t.backends.length, {
    message: 'backend names must be unique within a target',
    path: ['backends'],
  })
  .superRefine(checkLoadBalancers)
  .refine((t) => t.servers.privateNetworkId === undefined || t.servers.ipSource === 'ipam-private', {
    message: 'privateNetworkId is read only with ipSource "ipam-private": remove it, or set ipSource to "ipam-private"',
    path: ['servers', 'privateNetworkId'],
  });

const clusterNameSchema = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, {
    message: 'must be a DNS name like "prod.k8s.local"',
  });

/** The backend fields a kops shorthand may set on kOps' backends; the rest of kOps' model is kOps' own. */
export const kopsBackendOptionsSchema = z.object(backendOptionFields).strict();

export const kopsTargetSchema = z
  .object({
    kops: z
      .object({
        cluster: clusterNameSchema.describe('kOps cluster name; also the target name'),
        zone: zoneSchema.describe('zone of the cluster'),
        kopsController: z
          .union([z.literal('auto'), z.boolean()])
          .default('auto')
          .describe(
            'lb-backend-kops-controller (3988), which kOps adds for gossip, private and none DNS: auto = keep it in sync when the LB has it, never create it; true = create and sync; false = leave it alone',
          ),
        maxUnavailable: maxUnavailableSchema,
        trustPartialDiscovery: trustPartialDiscoverySchema,
        backend: kopsBackendOptionsSchema
          .optional()
          .describe(
            "backend fields set on every backend the shorthand keeps in sync (lb-backend-https, and lb-backend-kops-controller when synced); kOps' own apply sends on_marked_down_action on every `kops update cluster`, so a value named here is reset by kOps and written back by scw-lb-sync each time (docs/kops-parity.md, section 3)",
          ),
        ...accountFields,
      })
      .strict(),
  })
  .strict();

export type Target = z.output<typeof fullTargetSchema>;
export type BackendSpec = z.output<typeof backendSchema>;
export type HealthCheckSpec = z.output<typeof healthCheckSchema>;
export type HttpCheckSpec = z.output<typeof httpCheckSchema>;
export type KopsBackendOptions = z.output<typeof kopsBackendOptionsSchema>;
export type TargetCredentials = z.output<typeof credentialsSchema>;
export type KopsTargetInput = z.input<typeof kopsTargetSchema>;
export type TargetInput = z.input<typeof fullTargetSchema> | KopsTargetInput;

function kopsBackend(name: string, port: number, createIfMissing: boolean, options: KopsBackendOptions): BackendSpec {
  return {
    ...options,
    name,
    createIfMissing,
    forwardProtocol: 'tcp',
    forwardPort: port,
    forwardPortAlgorithm: 'roundrobin',
    stickySessions: 'none',
    proxyProtocol: 'proxy_protocol_none',
    healthCheck: { port, ...DEFAULT_HEALTH_CHECK },
  };
}

/** Which backends the shorthand manages: kops-controller in "auto" is synced only where kOps made it. */
export function kopsBackends(kopsController: boolean | 'auto', options: KopsBackendOptions = {}): BackendSpec[] {
  const backends = [kopsBackend('lb-backend-https', 443, true, options)];
  if (kopsController !== false) backends.push(kopsBackend('lb-backend-kops-controller', 3988, kopsController === true, options));
  return backends;
}

/** kOps' own model: LB api.<cluster>, tcp backends, positive ControlPlane selection, kOps' address rule. */
export function expandKops(input: z.output<typeof kopsTargetSchema>): Target {
  const { cluster, zone, kopsController, maxUnavailable, trustPartialDiscovery, projectId, organizationId, credentials, backend } =
    input.kops;
  const backends = kopsBackends(kopsController, backend);
  return {
    name: cluster,
    zone,
    loadBalancer: { name: `api.${cluster}` },
    backends,
    servers: {
      tags: [`noprefix=kops.k8s.io/cluster=${cluster}`, 'noprefix=kops.k8s.io/role=ControlPlane'],
      ipSource: 'kops',
      leavingTags: [KOPS_NEEDS_UPDATE_TAG],
    },
    allowEmptyPool: false,
    maxUnavailable,
    trustPartialDiscovery,
    ...(projectId && { projectId }),
    ...(organizationId && { organizationId }),
    ...(credentials && { credentials }),
  };
}

function isKopsShorthand(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'kops');
}

/** `{"kop": {...}}`: no key of the full form, one close to "kops". Told as that one typo, not as five missing fields. */
function misspeltShorthand(value: unknown, path: string): FieldError | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const fullKeys = keysAt(fullTargetSchema, []);
  if (keys.some((key) => fullKeys.includes(key))) return undefined;
  const typo = keys.find((key) => closest(key, ['kops']) !== undefined);
  if (typo === undefined) return undefined;
  return {
    path,
    message: `Unrecognized key: ${JSON.stringify(typo)} (did you mean "kops"?)`,
    fix: `rename ${JSON.stringify(typo)} to "kops" (the kOps shorthand: {"kops": {"cluster": "...", "zone": "..."}})`,
  };
}

/** A value given under `credentials` is never quoted back: it may be a key pasted where its variable's name belongs. */
function withoutCredentialValues(errors: FieldError[]): FieldError[] {
  return errors.map(({ received, ...rest }) =>
    /\.credentials(\.|$)/.test(rest.path) ? rest : { ...rest, ...(received !== undefined && { received }) },
  );
}

function parseOne(value: unknown, path: string): { target?: Target; errors: FieldError[] } {
  if (isKopsShorthand(value)) {
    const parsed = kopsTargetSchema.safeParse(value, { reportInput: true });
    return parsed.success
      ? { target: expandKops(parsed.data), errors: [] }
      : { errors: withoutCredentialValues(toFieldErrors(parsed.error, path, kopsTargetSchema)) };
  }
  const typo = misspeltShorthand(value, path);
  if (typo) return { errors: [typo] };
  const parsed = fullTargetSchema.safeParse(value, { reportInput: true });
  return parsed.success
    ? { target: parsed.data, errors: [] }
    : { errors: withoutCredentialValues(toFieldErrors(parsed.error, path, fullTargetSchema)) };
}

/** Validates a list of targets (full form or kOps shorthand); throws invalid_config naming every bad field. */
/** `{"targets": [...]}` as its array, with the path its errors start with (`<source>.targets`); a bare array as it is. */
export function unwrapTargets(value: unknown, source: string): { value: unknown; path: string } {
  if (value && typeof value === 'object' && !Array.isArray(value) && 'targets' in value)
    return { value: (value as { targets: unknown }).targets, path: `${source}.targets` };
  return { value, path: source };
}

export function parseTargets(value: unknown, source = 'targets'): Target[] {
  if (!Array.isArray(value)) {
    throw validationError('invalid_config', source, [
      { path: source, message: 'must be a JSON array of targets', received: typeof value, fix: 'wrap the target objects in [ ... ]' },
    ]);
  }
  const targets: Target[] = [];
  const errors: FieldError[] = [];
  value.forEach((item, index) => {
    const one = parseOne(item, `${source}[${index}]`);
    errors.push(...one.errors);
    if (one.target) targets.push(one.target);
  });
  const seen = new Set<string>();
  for (const target of targets) {
    if (seen.has(target.name)) {
      errors.push({ path: source, message: `target name "${target.name}" is used twice`, fix: 'give every target a unique name' });
    }
    seen.add(target.name);
  }
  if (errors.length > 0) throw validationError('invalid_config', source, errors);
  return targets;
}
