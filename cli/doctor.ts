// `lbsync doctor`: a read-only pre-flight against the real account (or the emulator). Every check is one
// line, ok | fail | warn, proven by the read calls the functions themselves make; nothing is ever written
// (the Scaleway reads go through the same gateway as the functions; the queues are only asked for their
// attributes). The command (commands/doctor.ts) prints what this returns.
import type { EventQueue } from '../shared/adapters/queue';
import { createEventQueue } from '../shared/adapters/queue';
import type { ExchangeRecorder } from './adapters/http-recorder';
import type { ScalewayGateway } from '../shared/adapters/scaleway';
import { createScalewayGateway } from '../shared/adapters/scaleway';
import { type QueueEnv, queueEnvFromEnv, runtimeConfigFromEnv } from '../shared/platform/config';
import { asLbSyncError, ERROR_CATALOG, type LbSyncError, WARNING_CATALOG } from '../shared/errors/lbsync-error';
import { tryGateway } from '../shared/adapters/api-failure';
import { kopsMessage } from '../shared/errors/kops-messages';
import type { PoolMember } from '../shared/core/desired';
import { addressChoiceNotes, unusableAddressWarning } from '../shared/core/desired';
import { contradictionWarning, filterMismatchWarning, ownHealthReports } from '../shared/core/discovery-check';
import type { IpamIpView } from '../shared/core/kops-rule';
import { kopsServerIp } from '../shared/core/kops-rule';
import type { ObservedBackend, ObservedLb, RefusedAnswer } from '../shared/core/model';
import type { MemberHealthView } from '../shared/core/rollout';
import { memberHealth } from '../shared/core/rollout';
import { CONTEST_THRESHOLD, contestWarning } from '../shared/core/contest';
import { describeLeaving } from '../shared/core/leaving';
import { describeRollout } from '../shared/core/rollout-text';
import { TRANSIENT_LB_STATUSES } from '../shared/core/model';
import type { DiscoveredPool } from '../shared/core/desired';
import type { LbPlace } from '../shared/core/lb-identity';
import { atLb, hasSeveralLbs, lbLabel, targetLbs } from '../shared/core/lb-identity';
import { normalisePool } from '../shared/core/pool';
import { regionOf } from '../shared/core/locality';
import { discoverWith } from '../shared/reconcile/discover';
import type { FoundLb } from '../shared/reconcile/observe';
import { assertLbOnNetwork, findLb, observeBackends } from '../shared/reconcile/observe';
import type { ReconcileSettings } from '../shared/reconcile/reconcile-target';
import { describePlanned, reconcileSettings, reconcileTarget } from '../shared/reconcile/reconcile-target';
import type { Target } from '../shared/schemas/target';
import { DEPLOYMENT_KEY, keyIdOf } from '../shared/core/target-accounts';
import { gatewayPerKey } from '../shared/platform/target-keys';
import { IP_SOURCE } from '../shared/schemas/ip-sources';
import { resolveScalewayCredentials } from './credentials';
import { configuredTargets, selectTargets } from './environment';
import { readWriters, type WritersRead } from './writers-read';
import { CliError, type DescribedError, describeError } from './output';

export type CheckStatus = 'ok' | 'fail' | 'warn';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  hint?: string;
}

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  targets?: string[];
  file?: string;
  /** false with --no-queue. */
  queue: boolean;
  /** The reconcile function's timeout; the reconcile queue's visibility timeout must exceed it. */
  functionTimeoutSeconds: number;
  /** Receives every exchange with the Scaleway API (--record); the queues' are not recorded. */
  recorder?: ExchangeRecorder;
  /** Learns each target key read (the CLI's output scrubber). */
  protect?: (secret: string) => void;
}

/** The IAM permission each read proves, and the permission set that grants it (docs/deploy.md §2). */
const PERMISSIONS = {
  'iam:lb-read': {
    calls: 'ListLbs / GetLb (and ListLbPrivateNetworks for ipam-private)',
    set: 'LoadBalancersFullAccess (or LoadBalancersReadOnly)',
  },
  'iam:lb-backends': { calls: 'ListBackends / ListBackendStats', set: 'LoadBalancersFullAccess (or LoadBalancersReadOnly)' },
  'iam:instance-servers': { calls: 'ListServers by tags', set: 'InstancesReadOnly' },
  'iam:ipam-read': { calls: 'IPAM ListIPs', set: 'IPAMReadOnly' },
} as const;
type Permission = keyof typeof PERMISSIONS;

const ok = (name: string, detail: string): Check => ({ name, status: 'ok', detail });
const warn = (name: string, detail: string, hint?: string): Check => ({ name, status: 'warn', detail, ...(hint && { hint }) });
const fail = (name: string, detail: string, hint: string): Check => ({ name, status: 'fail', detail, hint });

/**
 * Failures that still prove the key may make the call: the API answered it. A 404 proves nothing (anything on the
 * way can answer one); an LB not found by name or found twice is our verdict on a list the API did answer.
 */
const ANSWERED = new Set([
  'lb_not_found',
  'lb_ambiguous',
  'invalid_arguments',
  'precondition_failed',
  'resource_locked',
  'private_network_not_attached',
  'private_network_attaching',
]);
const answeredBy = (error: LbSyncError) => ANSWERED.has(error.code) && error.status !== 404;

/** Thrown to stop the Scaleway checks: the key itself was refused, every further call would be too. */
class KeyRefused extends Error {
  constructor(readonly error: LbSyncError) {
    super(error.message);
  }
}

/** Collects one verdict per permission from every read that exercises it; the first refusal wins. */
class PermissionLedger {
  private readonly seen = new Map<Permission, { zones: Set<string>; denied?: LbSyncError }>();

  /** Runs one read; a failure comes back classified and worded like the functions' (`step`: kOps' words). */
  async prove<T>(permission: Permission, where: string, step: string, read: () => Promise<T>): Promise<T> {
    const entry = this.seen.get(permission) ?? { zones: new Set<string>() };
    this.seen.set(permission, entry);
    const answer = await tryGateway({ message: step, notFound: 'unknown_api_error', run: read });
    if ('value' in answer) {
      entry.zones.add(where);
      return answer.value;
    }
    const { error } = answer;
    if (error.code === 'authentication_denied') throw new KeyRefused(error);
    if (error.code === 'permissions_denied') entry.denied ??= error;
    else if (answeredBy(error)) entry.zones.add(where); // e.g. "no such LB": the read itself was allowed
    throw error;
  }

  /** Whether any read got an answer from the API: only that proves the key was accepted. */
  anyAnswered(): boolean {
    return [...this.seen.values()].some((entry) => entry.zones.size > 0);
  }

  /** One line per permission, named `iam:<permission>` and the key's suffix (`:<its access key variable>`, none for the deployment's). */
  checks(suffix = ''): Check[] {
    return (Object.keys(PERMISSIONS) as Permission[]).map((permission) => {
      const { calls, set } = PERMISSIONS[permission];
      const name = `${permission}${suffix}`;
      const whose = suffix === '' ? "the functions' key" : `the key of ${suffix.slice(1)}`;
      const entry = this.seen.get(permission);
      if (entry?.denied)
        return fail(
          name,
          `${calls} refused (403): ${entry.denied.message}`,
          `give ${whose} ${set} on the project (docs/deploy.md, step 2)`,
        );
      if (!entry) return warn(name, `${calls} not tried: no earlier check got far enough`);
      if (entry.zones.size === 0) return warn(name, `${calls} not proven: tried, but no read got an answer from the API`);
      return ok(name, `${calls} answered (${[...entry.zones].join(', ')})`);
    });
  }
}

function failedWith(name: string, error: LbSyncError): Check {
  return fail(name, error.message, error.hint);
}

const KEY_FORMAT_FIX =
  'nothing was sent to the API: copy the access key (SCW and 17 more characters) and the secret key (a UUID) of an IAM API key exactly, e.g. from `scw iam api-key get <access key>` and the secret shown when the key was made';

/** A check that could not run: told, with why, never left out (its cause is a failed line of its own). */
const skipped = (name: string, why: string): Check => warn(name, `skipped: ${why}`);

function lbCheck(name: string, target: Target, { lb, refused }: FoundLb): Check {
  const how = target.loadBalancer && 'id' in target.loadBalancer ? 'found by id' : `the only LB named exactly so in ${target.zone}`;
  const what = `${lb.name} (${lb.id}) is ${lb.status}`;
  const leftOut = filterMismatchWarning(refused);
  if (lb.status === 'ready' && leftOut) return warn(name, `${what}; ${how}; ${leftOut}`, WARNING_CATALOG.discovery_filter_mismatch.hint);
  if (lb.status === 'ready') return ok(name, `${what}; ${how}`);
  if ((TRANSIENT_LB_STATUSES as readonly string[]).includes(lb.status))
    return warn(name, `${what}: writes wait until it is ready again`, ERROR_CATALOG.lb_transient_state.hint);
  return fail(name, `${what}: nothing can be written`, ERROR_CATALOG.lb_not_ready.hint);
}

function serversCheck(name: string, target: Target, pool: DiscoveredPool): Check {
  const leftOut = [
    filterMismatchWarning(pool.refused),
    contradictionWarning(pool.contradicted),
    unusableAddressWarning(pool.unusable),
    ...pool.skipped.map((s) => `${s.server} left out: ${s.reason}`),
    ...addressChoiceNotes(pool, target.servers.ipSource),
  ].filter((line) => line !== undefined);
  const leaving = pool.marked.map((m) => `${m.server} (${m.ip}) leaving: ${m.why}, never added back while another member passes`);
  const detail = [
    `${pool.serverCount} server(s) carry ${target.servers.tags.join(' + ')}; the pool would be [${pool.ips.join(', ')}] (ipSource ${target.servers.ipSource})`,
    ...leaving,
  ].join('; ');
  if (pool.ips.length === 0 && pool.marked.length === 0 && !target.allowEmptyPool)
    return fail(name, [detail, ...leftOut].join('; '), ERROR_CATALOG.no_servers.hint);
  if (pool.refused.length > 0) return warn(name, `${detail}; ${leftOut.join('; ')}`, WARNING_CATALOG.discovery_filter_mismatch.hint);
  if (pool.contradicted.length > 0) return warn(name, `${detail}; ${leftOut.join('; ')}`, WARNING_CATALOG.contradictory_answer.hint);
  if (leftOut.length > 0) return warn(name, `${detail}; ${leftOut.join('; ')}`);
  return ok(name, detail);
}

/**
 * ipam-private: the LB's attachment to the private network the pool's addresses are on (ListLbPrivateNetworks), the
 * check a reconcile makes before it writes; its code is in the line, as a reconcile's answer carries it.
 */
async function privateNetworkCheck(
  name: string,
  gateway: ScalewayGateway,
  ledger: PermissionLedger,
  target: Target,
  lb: ObservedLb | undefined,
  pool: DiscoveredPool | undefined,
): Promise<Check> {
  if (!lb) return skipped(name, `needs the load balancer (see ${name.replace(/private-network$/, 'lb')})`);
  if (!pool) return skipped(name, `needs the servers (see ${name.replace(/private-network$/, 'servers')})`);
  const network = pool.privateNetworkId;
  if (network === undefined) return skipped(name, 'no server of the target has a private NIC: no private network to check');
  try {
    await ledger.prove('iam:lb-read', target.zone, kopsMessage.privateNetworks(lb.name), () =>
      assertLbOnNetwork(gateway, target.zone, lb, network),
    );
    return ok(name, `${lb.name} is attached to private network ${network} (ready): it reaches the pool's addresses there`);
  } catch (error) {
    if (error instanceof KeyRefused) throw error;
    const failure = asLbSyncError(error);
    return fail(name, `[${failure.code}] ${failure.message}`, failure.hint);
  }
}

/** For the kops ipSource: the address kOps' own GetServerIP would take for each server, from IPAM. */
function kopsParityCheck(name: string, target: Target, members: readonly PoolMember[], ips: readonly IpamIpView[]): Check {
  if (members.length === 0) return skipped(name, 'no server gives an address to compare with what kOps would write');
  const differing = members.flatMap((m) => {
    const theirs = kopsServerIp(m.serverId, target.zone, ips);
    return theirs === m.ip ? [] : [`${m.server}: ours ${m.ip}, kOps' ${theirs ?? 'none (kOps would fail: could not find IP for server)'}`];
  });
  if (differing.length > 0) {
    return warn(
      name,
      `kOps' GetServerIP (IPAM, zonal IPv4) would write other addresses: ${differing.join('; ')}`,
      "kOps and scw-lb-sync would rewrite each other's pool on every `kops update cluster`; see docs/kops-parity.md",
    );
  }
  return ok(name, `the ${members.length} address(es) are the ones kOps' GetServerIP reads from IPAM for the same servers`);
}

type HealthReport = { backend: ObservedBackend; health: Map<string, MemberHealthView>; refused: RefusedAnswer[] };

/** One address as every backend holding it reports it: `51.15.1.2 passed`, or per backend where they differ. */
function memberLine(ip: string, reports: readonly HealthReport[]): string {
  const holding = reports.filter(({ backend }) => backend.pool.includes(ip));
  const seen = holding.map(({ backend, health }) => ({ backend: backend.name, reported: health.get(ip)?.reported ?? 'no report' }));
  const only = holding.length < reports.length ? ` (${seen.map((s) => s.backend).join(', ')} only)` : '';
  if (new Set(seen.map((s) => s.reported)).size === 1) return `${ip} ${seen[0]?.reported}${only}`;
  return `${ip} ${seen.map((s) => `${s.reported} in ${s.backend}`).join(', ')}`;
}

/**
 * The LB's health check of every pool member: the gate of every rolling update (shared/core/rollout.ts). Each
 * address is told once, however many backends hold it.
 */
function healthCheck(name: string, reports: readonly HealthReport[]): Check {
  const ips = normalisePool(reports.flatMap(({ backend }) => backend.pool));
  const empty = reports.filter(({ backend }) => backend.pool.length === 0).map(({ backend }) => `${backend.name}: empty pool`);
  const passing = (ip: string) =>
    reports.every(({ backend, health }) => !backend.pool.includes(ip) || health.get(ip)?.condition === 'passing');
  const notPassing = ips.filter((ip) => !passing(ip));
  const backends = reports.map(({ backend }) => backend.name).join(', ');
  const members = [...ips.map((ip) => memberLine(ip, reports)), ...empty].join(', ');
  const leftOut = filterMismatchWarning(reports.flatMap((r) => r.refused));
  if (notPassing.length === 0 && !leftOut)
    return ok(name, `every member passes the LB's health check (${backends}): ${members || 'no member'}`);
  if (notPassing.length === 0)
    return warn(
      name,
      `every member passes the LB's health check (${backends}): ${members || 'no member'}; ${leftOut}`,
      WARNING_CATALOG.discovery_filter_mismatch.hint,
    );
  return warn(
    name,
    `not passing: ${notPassing.map((ip) => memberLine(ip, reports)).join(', ')}; passing: ${ips.filter(passing).join(', ') || 'none'} (${backends})${leftOut ? `; ${leftOut}` : ''}`,
    "while a desired member does not pass, members that still serve are not removed (removal_deferred); a failing member of a server that is gone leaves on the next reconcile. Check the server's API and the health-check port",
  );
}

/** The servers and the pool they give, read and checked as discoverPool does, one permission per call. */
function discover(gateway: ScalewayGateway, ledger: PermissionLedger, target: Target): Promise<DiscoveredPool> {
  return discoverWith(target, gateway.projectId, {
    servers: () =>
      ledger.prove('iam:instance-servers', target.zone, kopsMessage.listServers(), () =>
        gateway.listServersByTags(target.zone, target.servers.tags),
      ),
    privateNicIps: (nicIds, serverNames) =>
      ledger.prove('iam:ipam-read', regionOf(target.zone), kopsMessage.serverIp(serverNames.join(',')), () =>
        gateway.listPrivateNicIps(regionOf(target.zone), nicIds),
      ),
  });
}

/** How a per-LB line is named: as ever for a one-LB target; `<what>:<name or id>@<zone>` for each LB of several. */
function lbSuffix(target: Target, place: LbPlace): string {
  return hasSeveralLbs(target) ? `:${'id' in place ? place.id : place.name}@${place.zone}` : '';
}

async function targetChecks(
  gateway: ScalewayGateway,
  ledger: PermissionLedger,
  target: Target,
  settings: ReconcileSettings,
): Promise<Check[]> {
  const at = (what: string) => `target:${target.name}:${what}`;
  const checks: Check[] = [];
  /** Runs one check's reads; a failure is its own failed line (a refused permission too: the iam: line says which). */
  const attempt = async <T>(name: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof KeyRefused) throw error;
      checks.push(failedWith(at(name), asLbSyncError(error)));
      return undefined;
    }
  };

  // Each LB of the target, as its own steps see it (its zone), and what was found of it.
  const lbs: { view: Target; suffix: string; lb?: ObservedLb }[] = [];
  for (const place of targetLbs(target)) {
    const view = atLb(target, place);
    const suffix = lbSuffix(target, place);
    const found = await attempt(`lb${suffix}`, () =>
      ledger.prove('iam:lb-read', view.zone, kopsMessage.findLb(lbLabel(view)), () => findLb(gateway, view)),
    );
    if (found) checks.push(lbCheck(at(`lb${suffix}`), view, found));
    lbs.push({ view, suffix, ...(found && { lb: found.lb }) });
  }
  const pool = await attempt('servers', () => discover(gateway, ledger, target));
  if (pool) checks.push(serversCheck(at('servers'), target, pool));
  const ipSource = IP_SOURCE[target.servers.ipSource];
  if (ipSource.readsIpam)
    for (const { view, suffix, lb } of lbs)
      checks.push(await privateNetworkCheck(at(`private-network${suffix}`), gateway, ledger, view, lb, pool));
  // kOps' own address rule reads IPAM (zonal IPv4 per server); the functions' key holds IPAMReadOnly either way.
  if (!ipSource.readsIpam) {
    const parity = ipSource.kopsRule ? 'kops-parity' : 'ipam';
    const members = pool?.members ?? [];
    const ips = await attempt(parity, () =>
      ledger.prove('iam:ipam-read', regionOf(target.zone), `listing IPAM addresses of ${target.zone}`, () =>
        gateway.listZonalIpv4(
          target.zone,
          members.map((m) => m.serverId),
        ),
      ),
    );
    if (ips && parity === 'kops-parity')
      checks.push(
        pool ? kopsParityCheck(at(parity), target, members, ips) : skipped(at(parity), `needs the servers (see ${at('servers')})`),
      );
  }

  let unread: string | undefined;
  for (const { view, suffix, lb } of lbs) {
    const why = await backendChecks({ view, suffix, lb, at, attempt, checks, gateway, ledger });
    unread ??= why;
  }

  if (unread || !pool) {
    checks.push(skipped(at('plan'), unread ?? `needs the servers (see ${at('servers')})`));
    return checks;
  }
  // What a reconcile would write: the reconciler itself, as a dry run (reads only).
  const result = await reconcileTarget(target, { dryRun: true }, { gateway, ...settings });
  const planParts = result.lbs ?? [result];
  if (result.error) {
    if (result.error.code === 'authentication_denied') throw new KeyRefused(result.error);
    checks.push(failedWith(at('plan'), result.error));
  } else if (result.planned.length === 0 && !planParts.some((r) => r.rollouts?.some((b) => b.rollout.deferred.length > 0))) {
    const notes = [...planParts.flatMap((r) => describeLeaving(r.leaving ?? [])), ...result.warnings];
    checks.push(ok(at('plan'), `in sync: a reconcile would write nothing${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`));
  } else {
    const writes =
      result.planned.length > 0 ? `a reconcile would write: ${describePlanned(result).join('; ')}` : 'a reconcile would write nothing now';
    const staged = planParts.flatMap((r) => [...describeLeaving(r.leaving ?? []), ...(r.rollouts ?? []).flatMap(describeRollout)]);
    checks.push(ok(at('plan'), `${writes}${staged.length > 0 ? `; ${staged.join('; ')}` : ''} (see \`lbsync plan\`)`));
  }
  return checks;
}

/** One LB's backends and the health of their members (its `backends` and `health` lines); why not, when unread. */
async function backendChecks(one: {
  view: Target;
  suffix: string;
  lb: ObservedLb | undefined;
  at: (what: string) => string;
  attempt: <T>(name: string, run: () => Promise<T>) => Promise<T | undefined>;
  checks: Check[];
  gateway: ScalewayGateway;
  ledger: PermissionLedger;
}): Promise<string | undefined> {
  const { view, suffix, lb, at, attempt, checks, gateway, ledger } = one;
  const backends =
    lb &&
    (await attempt(`backends${suffix}`, async () => {
      const read = await ledger.prove('iam:lb-backends', view.zone, kopsMessage.listBackends(lb.id), () =>
        observeBackends(gateway, view, lb),
      );
      return [...read.byName.values()];
    }));
  const unreadBackends = lb ? `needs the backends (see ${at(`backends${suffix}`)})` : `needs the load balancer (see ${at(`lb${suffix}`)})`;
  if (!backends) checks.push(skipped(at(`health${suffix}`), unreadBackends));
  else if (backends.length === 0)
    checks.push(
      skipped(
        at(`health${suffix}`),
        `nothing to check, the LB has none of the target's backends yet (${view.backends.map((b) => b.name).join(', ')})`,
      ),
    );
  else {
    const reports = await attempt(`health${suffix}`, async () => {
      const read: HealthReport[] = [];
      for (const backend of backends) {
        const stats = await ledger.prove('iam:lb-backends', view.zone, kopsMessage.backendHealth(lb.name), () =>
          gateway.listBackendHealth(view.zone, lb.id, backend.id),
        );
        const { own, refused } = ownHealthReports(stats, backend.id);
        read.push({ backend, health: memberHealth(own), refused });
      }
      return read;
    });
    if (reports) checks.push(healthCheck(at(`health${suffix}`), reports));
  }
  return backends ? undefined : unreadBackends;
}

/** A key's failure before or at its first call, as its credentials line. */
function keyFailure(name: string, error: unknown, source: string): Check {
  const described = describeError(error);
  // The SDK checks the keys' format as it makes its client: refused before any call, so nothing was sent.
  if (source !== '') return fail(name, `the key from ${source} was refused before any call: ${described.message}`, KEY_FORMAT_FIX);
  return fail(
    name,
    fieldProblems(described) || described.message.replace(/\s*\n\s*-?\s*/g, ' '),
    described.code === 'invalid_credentials'
      ? ERROR_CATALOG.invalid_credentials.hint
      : (described.fieldErrors?.[0]?.fix ?? ERROR_CATALOG.authentication_denied.hint),
  );
}

/** One key pair and the targets it serves: the deployment's (checks named as ever) or a target's own (`:<its access key variable>`). */
interface KeyUse {
  suffix: string;
  source: string;
  targets: Target[];
  gateway: () => ScalewayGateway;
}

/** A key pair's credentials line, its permissions (each proven by a read its targets make), and its targets' lines. */
async function keyChecks(use: KeyUse, settings: ReconcileSettings): Promise<{ key: Check[]; targets: Check[] }> {
  const name = `credentials${use.suffix}`;
  const serves = use.targets.map((t) => t.name).join(', ');
  let gateway: ScalewayGateway;
  try {
    gateway = use.gateway();
  } catch (error) {
    // A target's key unset or malformed is told by its variables (field problems); the deployment's, by its source.
    return { key: [keyFailure(name, error, use.suffix === '' ? use.source : '')], targets: [] };
  }
  const ledger = new PermissionLedger();
  const checks: Check[] = [];
  try {
    for (const target of use.targets) checks.push(...(await targetChecks(gateway, ledger, target, settings)));
  } catch (error) {
    if (!(error instanceof KeyRefused)) throw error;
    return {
      key: [
        fail(name, `the API refused the key from ${use.source} (401): ${error.error.message}`, ERROR_CATALOG.authentication_denied.hint),
      ],
      targets: [],
    };
  }
  const credentials =
    use.targets.length === 0
      ? warn(name, `key found (${use.source}), not tried: no target to read`)
      : ledger.anyAnswered()
        ? ok(name, `the API accepted the key from ${use.source}; it serves ${serves}`)
        : warn(
            name,
            `key found (${use.source}), not proven: no read got an answer from the API (see the failed lines); it serves ${serves}`,
          );
  return { key: [credentials, ...ledger.checks(use.suffix)], targets: checks };
}

async function scalewayChecks(
  env: NodeJS.ProcessEnv,
  targets: readonly Target[],
  recorder?: ExchangeRecorder,
  protect?: (secret: string) => void,
): Promise<Check[]> {
  let credentials: ReturnType<typeof resolveScalewayCredentials>;
  let settings: ReconcileSettings;
  try {
    // Both read the runtime settings (LBSYNC_REQUEST_TIMEOUT_MS...): an invalid one fails here, as credentials.
    settings = reconcileSettings(runtimeConfigFromEnv(env));
    credentials = resolveScalewayCredentials(env);
  } catch (error) {
    return [keyFailure('credentials', error, '')];
  }
  // Each target's calls go out with its own key (its credentials), else the deployment's: one gateway per key pair.
  const gatewayFor = gatewayPerKey(
    env,
    (key) => createScalewayGateway({ ...credentials.settings, ...key, ...(recorder && { recorder }) }),
    protect,
  );
  const uses = new Map<string, KeyUse>();
  uses.set(DEPLOYMENT_KEY, {
    suffix: '',
    source: credentials.source,
    targets: [],
    gateway: () => createScalewayGateway({ ...credentials.settings, ...(recorder && { recorder }) }),
  });
  for (const target of targets) {
    const id = keyIdOf(target);
    const c = target.credentials;
    const use = uses.get(id) ?? {
      suffix: c ? `:${c.accessKeyEnv}` : '',
      source: c ? `${c.accessKeyEnv} / ${c.secretKeyEnv}` : credentials.source,
      targets: [],
      gateway: () => gatewayFor(target),
    };
    use.targets.push(target);
    uses.set(id, use);
  }
  // The deployment's key is told even when it serves no target (as with no target at all), unless others serve them all.
  const deployment = uses.get(DEPLOYMENT_KEY) as KeyUse;
  if (deployment.targets.length === 0 && uses.size > 1) uses.delete(DEPLOYMENT_KEY);
  const keyLines: Check[] = [];
  const targetLines = new Map<string, Check[]>();
  for (const use of uses.values()) {
    const { key, targets: lines } = await keyChecks(use, settings);
    keyLines.push(...key);
    for (const line of lines) {
      const target = line.name.split(':')[1] ?? '';
      targetLines.set(target, [...(targetLines.get(target) ?? []), line]);
    }
  }
  const inOrder = targets.flatMap((t) => targetLines.get(t.name) ?? []);
  return [...keyLines, ...inOrder, ...writersChecks(await readWriters(env, targets, Date.now(), protect), targets)];
}

/**
 * Each target's other writers in the last 30 minutes (Audit Trail): ok when none, or when none is contested; warn
 * pool_contested naming the writer. Audit Trail not readable (no permission): one skipped line each; no organization
 * known: no line.
 */
function writersChecks(writers: WritersRead, targets: readonly Target[]): Check[] {
  // No organization known: Audit Trail is not this key's to read (the watch function has its own), nothing is said.
  if (!writers.read && !writers.configured) return [];
  return targets.map((target) => {
    const name = `target:${target.name}:writers`;
    if (!writers.read) return skipped(name, writers.why);
    const unread = writers.unread.find((u) => u.targets.includes(target.name));
    if (unread) return skipped(name, unread.why);
    const contested = writers.contests.filter((c) => c.target === target.name);
    if (contested.length > 0)
      return warn(name, contested.map((c) => contestWarning(c, writers.ownerId)).join('; '), WARNING_CATALOG.pool_contested.hint);
    const foreign = writers.foreign.filter((w) => w.target === target.name);
    if (foreign.length === 0) return ok(name, 'no pool or backend write by anyone else in the last 30 minutes (Audit Trail)');
    const counts = new Map<string, number>();
    for (const w of foreign) counts.set(w.writer, (counts.get(w.writer) ?? 0) + 1);
    return ok(
      name,
      `written by others in the last 30 minutes, none reverted ${CONTEST_THRESHOLD} times: ${[...counts].map(([w, n]) => `${w} (${n})`).join(', ')}`,
    );
  });
}

interface QueueAttributes {
  VisibilityTimeout?: string;
  RedrivePolicy?: string;
  QueueArn?: string;
}

async function queueAttributes(
  name: string,
  queue: EventQueue,
  url: string,
  variable: string,
): Promise<{ check: Check; attributes?: QueueAttributes }> {
  try {
    const attributes = (await queue.attributes(url)) as QueueAttributes;
    return { check: ok(name, `${url} answers (GetQueueAttributes)`), attributes };
  } catch (error) {
    const { message } = describeError(error);
    return {
      check: fail(
        name,
        message,
        `check ${variable} (printed by \`lbsync provision\`), SQS_ENDPOINT and the Queues credentials; reading attributes needs credentials that may manage queues`,
      ),
    };
  }
}

function redriveCheck(reconcile: QueueAttributes, deadLetter: QueueAttributes): Check {
  const name = 'queue:redrive';
  const hint = 'run `lbsync provision` with the same --prefix: it sets the RedrivePolicy to the dead-letter queue';
  if (!reconcile.RedrivePolicy)
    return fail(
      name,
      'the reconcile queue has no RedrivePolicy: a message that keeps failing is never moved to the dead-letter queue',
      hint,
    );
  let policy: { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
  try {
    policy = JSON.parse(reconcile.RedrivePolicy) as typeof policy;
  } catch {
    return fail(name, `the reconcile queue's RedrivePolicy is not JSON: ${reconcile.RedrivePolicy}`, hint);
  }
  if (policy.deadLetterTargetArn !== deadLetter.QueueArn) {
    return fail(
      name,
      `the reconcile queue's RedrivePolicy points at ${String(policy.deadLetterTargetArn)}, not at DEAD_LETTER_QUEUE_URL's queue (${deadLetter.QueueArn ?? 'no ARN'})`,
      hint,
    );
  }
  return ok(name, `the reconcile queue moves a message to the dead-letter queue after ${String(policy.maxReceiveCount)} receives`);
}

function visibilityCheck(reconcile: QueueAttributes, functionTimeoutSeconds: number): Check {
  const name = 'queue:visibility';
  const seconds = Number(reconcile.VisibilityTimeout);
  const hint = `run \`lbsync provision --function-timeout ${functionTimeoutSeconds}\`: it sets the visibility timeout to the function timeout + 30 s`;
  if (!Number.isFinite(seconds)) return fail(name, 'the reconcile queue reports no VisibilityTimeout', hint);
  if (seconds <= functionTimeoutSeconds) {
    return fail(
      name,
      `visibility timeout ${seconds} s is not above the reconcile function's timeout (${functionTimeoutSeconds} s): a slow invocation's message would be handed to a second one`,
      hint,
    );
  }
  return ok(name, `visibility timeout ${seconds} s > the reconcile function's timeout ${functionTimeoutSeconds} s`);
}

async function queueChecks(env: NodeJS.ProcessEnv, functionTimeoutSeconds: number): Promise<Check[]> {
  let queueEnv: QueueEnv;
  try {
    queueEnv = queueEnvFromEnv(env);
  } catch (error) {
    const described = describeError(error);
    const missing = (described.fieldErrors ?? []).map((fe) => fe.path).join(', ');
    return [
      fail(
        'queue:config',
        `${missing || described.message} not set`,
        'set the queue variables (`lbsync provision` prints the URLs), or skip the queue checks with --no-queue',
      ),
    ];
  }
  const queue = createEventQueue(queueEnv);
  const [reconcile, deadLetter] = await Promise.all([
    queueAttributes('queue:reconcile', queue, queueEnv.reconcileQueueUrl, 'RECONCILE_QUEUE_URL'),
    queueAttributes('queue:dead-letter', queue, queueEnv.deadLetterQueueUrl, 'DEAD_LETTER_QUEUE_URL'),
  ]);
  const checks = [reconcile.check, deadLetter.check];
  if (reconcile.attributes && deadLetter.attributes) checks.push(redriveCheck(reconcile.attributes, deadLetter.attributes));
  if (reconcile.attributes) checks.push(visibilityCheck(reconcile.attributes, functionTimeoutSeconds));
  return checks;
}

function configCheck(options: DoctorOptions): { check: Check; targets: Target[] } {
  try {
    const targets = selectTargets(configuredTargets(options.env, options.file), options.targets);
    return { check: ok('config', `${targets.length} target(s): ${targets.map((t) => t.name).join(', ')}`), targets };
  } catch (error) {
    // A --target the configuration lacks is bad usage (exit 64), not a failed check.
    if (error instanceof CliError && error.code === 'usage') throw error;
    const described = describeError(error);
    const hint = described.fieldErrors?.[0]?.fix ?? described.hint ?? ERROR_CATALOG.invalid_config.hint;
    return { check: fail('config', fieldProblems(described) || described.message, hint), targets: [] };
  }
}

/** `path: message` of each field error, without the fix (a failed check prints the fix once, as its hint). */
function fieldProblems(described: DescribedError): string {
  return (described.fieldErrors ?? []).map((fe) => `${fe.path}: ${fe.message}`).join('; ');
}

/** Every check, in order: config, credentials and IAM permissions (per key pair), targets, writers, queues. Never writes. */
export async function runDoctor(options: DoctorOptions): Promise<Check[]> {
  const config = configCheck(options);
  const checks = [config.check, ...(await scalewayChecks(options.env, config.targets, options.recorder, options.protect))];
  if (options.queue) checks.push(...(await queueChecks(options.env, options.functionTimeoutSeconds)));
  return checks;
}

export function doctorPassed(checks: readonly Check[]): boolean {
  return checks.every((c) => c.status !== 'fail');
}
