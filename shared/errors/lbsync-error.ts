import type { FieldError } from './field-errors';
import { listedProblems, renderFieldError } from './field-errors';

/**
 * transient: try again later (re-enqueue with backoff).
 * not_found: the backend is gone; the planner takes the create path.
 * permanent: retrying will not help; dead-letter and tell the operator.
 */
export type ErrorClass = 'transient' | 'not_found' | 'permanent';

/** Every error code the tool can emit, with its class and the operator's first check. */
export const ERROR_CATALOG = {
  api_transient_state: {
    errorClass: 'transient',
    hint: 'The load balancer was busy applying a change (409 transient_state); it is retried automatically.',
  },
  lb_transient_state: {
    errorClass: 'transient',
    hint: 'The load balancer is being created, migrated or deleted; nothing is written until it is ready again.',
  },
  rate_limited: {
    errorClass: 'transient',
    hint: "Scaleway's API gateway rate-limited the requests (429, usually without any reset time); the retry waits at least 1 s (or the reset time when one is given) plus backoff. Lower the sweep frequency if it recurs.",
  },
  api_unavailable: {
    errorClass: 'transient',
    hint: 'The Scaleway API answered 5xx; check https://status.scaleway.com. Retried with backoff.',
  },
  network_error: {
    errorClass: 'transient',
    hint: 'The Scaleway API could not be reached or timed out; check SCW_API_URL and outbound network. Retried with backoff.',
  },
  apply_timeout: {
    errorClass: 'transient',
    hint: 'The write was accepted but the load balancer did not report ready within the wait budget; the next attempt re-reads and checks.',
  },
  untrusted_server_ips: {
    errorClass: 'transient',
    hint: "The event asserted serverIps that the target's own discovery (its tags) does not return; they are never written. Retried while a new server may still be booting; dead-lettered if they never show up: check who sent the event and the servers' tags.",
  },
  no_servers: {
    errorClass: 'transient',
    hint: "No server matched the target's tags (or none had an IP of the chosen ipSource); the pool is left as it is. Check servers.tags, or set allowEmptyPool if an empty pool is really wanted.",
  },
  removal_deferred: {
    errorClass: 'transient',
    hint: "A rolling update in progress (make-before-break): a pool member that still passes its health check leaves only once every desired member passes its own, at most maxUnavailable per write, never the last one. Retried with backoff; if it lasts, a desired member keeps failing its health check: `lbsync doctor` shows each member's health.",
  },
  discovery_suspect: {
    errorClass: 'transient',
    hint: "Server discovery found fewer than half of the pool members still serving (lost role tags, a partial listing): members are added but none that serves is removed. Check the servers' tags; if the shrink is intended, set trustPartialDiscovery: true on the target (or remove the addresses by hand).",
  },
  api_route_not_found: {
    errorClass: 'permanent',
    hint: "The API URL answered 404 without the Scaleway API's not-found answer, or 405 (no such route for that method): the request did not reach the API. Check SCW_API_URL (unset it for https://api.scaleway.com) and any proxy on the way; the message names the URL.",
  },
  backend_not_found: { errorClass: 'not_found', hint: 'The backend disappeared between read and write; the next attempt creates it.' },
  lb_not_found: {
    errorClass: 'permanent',
    hint: 'No load balancer with that name or id exists in the zone; check loadBalancer and zone in the target (kOps names it api.<cluster>).',
  },
  lb_ambiguous: {
    errorClass: 'permanent',
    hint: 'Several load balancers have exactly this name in the zone; name the one to use by id (loadBalancer.id).',
  },
  lb_answer_mismatch: {
    errorClass: 'permanent',
    hint: 'The API answered a load balancer other than the one asked for (another id, or another zone); nothing was written to it. Check SCW_API_URL and any proxy on the way; if it repeats, record it with `lbsync doctor --record FILE` and send the file in.',
  },
  private_network_attaching: {
    errorClass: 'transient',
    hint: "The load balancer's attachment to the target's private network is still pending: nothing is written until it is ready (it settles within seconds). Retried with backoff; if it lasts, look at the LB's private networks in the console.",
  },
  private_network_not_attached: {
    errorClass: 'permanent',
    hint: "The target takes its servers' private-network addresses (ipSource ipam-private), but the load balancer is not attached to that private network (or its attachment is in error): it could not reach them, so nothing is written. Attach the LB to the network (`scw lb private-network attach`, or the console), or name the network it is attached to in servers.privateNetworkId; then redrive.",
  },
  private_network_ambiguous: {
    errorClass: 'permanent',
    hint: "The target's servers have private NICs on several private networks and the target does not say which one the load balancer reaches them on: set servers.privateNetworkId (the message lists the networks and their servers); then redrive.",
  },
  lb_not_ready: {
    errorClass: 'permanent',
    hint: 'The load balancer is locked, stopped or in error; look at it in the Scaleway console and contact support if it stays so.',
  },
  resource_locked: {
    errorClass: 'permanent',
    hint: 'The resource is locked (423), often by Scaleway for an abuse or billing reason; check the console.',
  },
  invalid_arguments: {
    errorClass: 'permanent',
    hint: 'The API rejected a field (400 invalid_arguments); the message names it. Check the backend spec in the target.',
  },
  ipv6_pool_refused: {
    errorClass: 'permanent',
    hint: "The load balancer API refused the pool's IPv6 addresses as backend servers (400 invalid_arguments naming server_ip): the target's ipSource (public-ipv6 or public-dual) puts its servers' routed IPv6 in the pool, and this LB does not take them. Nothing was written by that call and it is not retried: set servers.ipSource to public (IPv4 only) for this target, or ask Scaleway whether this LB takes IPv6 backend servers; then redrive.",
  },
  authentication_denied: {
    errorClass: 'permanent',
    hint: 'The API key was refused (401); check SCW_ACCESS_KEY / SCW_SECRET_KEY and that the key is not expired.',
  },
  invalid_credentials: {
    errorClass: 'permanent',
    hint: 'The Scaleway API key is malformed, so nothing was sent to the API: the access key is "SCW" and 17 letters or digits, the secret key a UUID. The message names the variable (or profile field) it was read from; copy both halves of an IAM API key exactly.',
  },
  permissions_denied: {
    errorClass: 'permanent',
    hint: "The API key lacks a permission (403). The functions' key needs LoadBalancersFullAccess (Scaleway has no narrower set that writes backends), InstancesReadOnly and IPAMReadOnly on the project; the watcher's key AuditTrailReadOnly at organization scope. `lbsync doctor` names the missing one.",
  },
  quotas_exceeded: {
    errorClass: 'permanent',
    hint: 'A Scaleway quota is exhausted (403 quotas_exceeded); raise it in the console or remove unused resources.',
  },
  precondition_failed: {
    errorClass: 'permanent',
    hint: "The API refused the change in the resource's current state (412); read the message and check the LB in the console.",
  },
  listing_too_long: {
    errorClass: 'permanent',
    hint: 'A listing answered 50 full pages of 100 and had more (the cap): it was not used, and nothing was written. A target does not select 5,000 servers nor an LB hold 5,000 backends: suspect SCW_API_URL or a proxy that ignores the `page` parameter; record it with `lbsync doctor --record FILE` and send the file in.',
  },
  unknown_api_error: {
    errorClass: 'permanent',
    hint: 'The API answered with an error this tool does not know; the message carries the status and body.',
  },
  unexpected_answer: {
    errorClass: 'permanent',
    hint: 'An answer of another type or shape than asked for (an HTML page from a proxy or a login portal?): the message names the URL, the status and what was expected; check that URL.',
  },
  invalid_config: {
    errorClass: 'permanent',
    hint: 'The targets configuration (LBSYNC_TARGETS, LBSYNC_CONFIG, or dist/targets.json shipped with npm run build -- --targets) is invalid; each field error names the path and the fix.',
  },
  invalid_event: {
    errorClass: 'permanent',
    hint: 'The event is not valid JSON or does not match event version 1; each field error names the path and the fix.',
  },
  unknown_target: {
    errorClass: 'permanent',
    hint: 'The event names a target that is not in the configuration; check the target name or add the target.',
  },
  queue_unavailable: {
    errorClass: 'transient',
    hint: 'The queue (SQS API) could not be reached or refused the message; check SQS_ENDPOINT, the queue URLs and the SQS credentials.',
  },
} as const satisfies Record<string, { errorClass: ErrorClass; hint: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/**
 * The codes that no reconcile ends with: the CLI's own (bad usage, an id that names nothing) and the HTTP answers of
 * the inject function and the cron triggers. Each comes with its hint, and docs/troubleshooting.md has an entry for
 * each (test/unit/errors/error-codes.test.ts finds every code the code emits and checks it against the page).
 */
export const COMMAND_ERROR_CATALOG = {
  usage: { hint: 'A flag, argument or value the command does not take (exit 64); the message names it. Run the command with --help.' },
  unexpected: {
    hint: 'A failure this tool has no code for (a bug, or an environment it does not know); the message is what was thrown. Run again with LOG_LEVEL=debug and report it with the message.',
  },
  not_found: {
    hint: 'What the command was asked for does not exist (a dead letter id, a logs data source); the message says what was looked for.',
  },
  ambiguous_id: { hint: "The --id is the start of several dead letters' ids; the candidates are listed: give more of the id." },
  id_too_short: {
    hint: 'A prefix given as --id must have at least 8 characters (the evt-0b7c1a2f a log line prints); shorter, only a whole id matches.',
  },
  invalid_seed: {
    hint: 'The emulator seed is not readable JSON of the seed format; give a file like emulator/seeds/demo.json, or "demo" or "kops-made".',
  },
  record_failed: {
    hint: '`lbsync doctor --record` could not write its cassette; the message names the file and why. The checks ran and are printed anyway.',
  },
  unauthorized: {
    hint: 'The inject function refused the bearer token (401): the caller must send Authorization: Bearer <INJECT_TOKEN>, the value the function holds.',
  },
  forbidden: {
    hint: 'The platform refused the call before the function (403): a private function needs X-Auth-Token, the secret key of an IAM key with FunctionsPrivateAccess.',
  },
  not_configured: { hint: 'The inject function has no INJECT_TOKEN and refuses every request (503); set the secret and deploy.' },
  method_not_allowed: { hint: 'The inject function takes POST only (405).' },
  payload_too_large: { hint: 'The event is over 64 KiB (413); an event names a target and asserts a few addresses, no more.' },
  unsupported_media_type: { hint: 'The inject function takes JSON only (415): send Content-Type: application/json.' },
  invalid_args: {
    hint: "A cron trigger's JSON args are not what the function takes (400); the message names the field. Fix `input:` in serverless.yml.",
  },
  inject_unreachable: {
    hint: "The inject function's URL gave no answer (no connection, DNS, TLS, timeout); nothing was enqueued. Check the URL and the network.",
  },
  inject_failed: {
    hint: 'The inject function answered an error this tool has no code for (a 5xx: it could not enqueue); nothing was enqueued. Try again, and read its log lines.',
  },
} as const satisfies Record<string, { hint: string }>;

export type CommandErrorCode = keyof typeof COMMAND_ERROR_CATALOG;

/**
 * Every warning code: the reconcile goes on without what the warning names, and says why. A warning starts with its
 * code in brackets (`[discovery_filter_mismatch] ...`), as the CLI shows an error's.
 */
export const WARNING_CATALOG = {
  discovery_filter_mismatch: {
    hint: 'The API answered servers, IPAM addresses, load balancers or health reports its request did not ask for (other tags, zone, project, resource or backend); they were left out of every pool and the rest was used. The warning names each and why. Nothing to fix on your side unless a server named should be in the pool: then check its tags, zone and SCW_DEFAULT_PROJECT_ID.',
  },
  contradictory_answer: {
    hint: 'The API listed one server more than once in one answer, with different content (addresses, state, tags): which copy is true the answer does not say, so that server was left out of the pool for this reconcile (a member of the pool it was leaves only as any serving member does, once the others pass their health checks). Nothing to fix unless it repeats: then record it with `lbsync doctor --record FILE` and send the file in.',
  },
  unusable_address: {
    hint: "A server's address as the API gave it is not a unicast address of the family the target asks for that a load balancer can send traffic to (loopback, link-local, multicast, reserved, the metadata service, not attached, or not of that family at all); it was left out of the pool. Check the server's IPs in the console.",
  },
  pool_contested: {
    hint: "Someone else keeps writing this pool and scw-lb-sync keeps writing it back (three times in 30 minutes): the warning names the writer. kOps' apply writing its workers in (and resetting a backend's on_marked_down_action) is expected; two scw-lb-sync deployments on one target, or a Terraform-managed pool, must be untangled (docs/troubleshooting.md#pool_contested).",
  },
  leaving_admitted: {
    hint: "A leaving server (kOps' needs-update mark, or one of the target's leavingTags) was added to a pool because no other member passes its health check: better a server about to be replaced than none. It leaves again once it stops or is removed; check why the other control planes fail their checks (`lbsync status`).",
  },
} as const satisfies Record<string, { hint: string }>;

export type WarningCode = keyof typeof WARNING_CATALOG;

/** Both identifiers of the LB a message is about; the message itself carries the one kOps uses. */
export interface LbIdentity {
  id?: string;
  name?: string;
}

export interface LbSyncErrorOptions {
  cause?: unknown;
  lb?: LbIdentity;
  retryAfterMs?: number;
  status?: number;
  fieldErrors?: FieldError[];
}

export class LbSyncError extends Error {
  readonly code: ErrorCode;
  readonly errorClass: ErrorClass;
  readonly hint: string;
  readonly retryAfterMs?: number;
  readonly status?: number;
  readonly fieldErrors?: FieldError[];
  readonly lb?: LbIdentity;

  constructor(code: ErrorCode, message: string, options: LbSyncErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LbSyncError';
    this.code = code;
    this.errorClass = ERROR_CATALOG[code].errorClass;
    this.hint = ERROR_CATALOG[code].hint;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.status !== undefined) this.status = options.status;
    if (options.fieldErrors) this.fieldErrors = options.fieldErrors;
    if (options.lb && (options.lb.id !== undefined || options.lb.name !== undefined)) this.lb = { ...options.lb };
  }

  get transient(): boolean {
    return this.errorClass === 'transient';
  }

  toJSON(): SerializedError {
    return serializeError(this);
  }
}

export interface SerializedError {
  code: ErrorCode;
  errorClass: ErrorClass;
  message: string;
  hint: string;
  status?: number;
  retryAfterMs?: number;
  fieldErrors?: FieldError[];
  lb?: LbIdentity;
}

export function serializeError(error: LbSyncError): SerializedError {
  return {
    code: error.code,
    errorClass: error.errorClass,
    message: error.message,
    hint: error.hint,
    ...(error.status !== undefined && { status: error.status }),
    ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
    ...(error.fieldErrors && { fieldErrors: error.fieldErrors }),
    ...(error.lb && { lb: error.lb }),
  };
}

/** What a step threw, as an LbSyncError: ours as they are, anything else an unexpected failure (unknown_api_error). */
export function asLbSyncError(error: unknown): LbSyncError {
  if (error instanceof LbSyncError) return error;
  return new LbSyncError('unknown_api_error', `unexpected failure: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}

/** An input refused: every problem named (the first LISTED_PROBLEMS of them, and how many more), each with its fix. */
export function validationError(code: 'invalid_config' | 'invalid_event', what: string, problems: FieldError[]): LbSyncError {
  const fieldErrors = listedProblems(problems, what);
  const lines = fieldErrors.map((e) => `  - ${renderFieldError(e)}`).join('\n');
  return new LbSyncError(code, `${what} is invalid:\n${lines}`, { fieldErrors });
}
