/**
 * The LB's health checks of its backend servers, as ListBackendStats (and the older GET .../lbs/{id}/stats)
 * report them. Recorded (cli-lb-test-get-stats-simple #14): the item's fields, and a member just added that has
 * not been checked yet reads `server_state` "stopped", `last_health_check_status` "unknown". The timing, and the
 * readings after a check ran, are assumed (docs/emulator.md, "Every behaviour").
 *
 * Health follows the servers. An address of a `running` server passes `healthPassAfterMs` after it is both
 * running and in the backend's pool (`unknown` until then, as a check that has not run yet); an address whose
 * server was deleted, stopped or is stopping, or that no server ever had, fails `healthFailAfterMs` after
 * that (until then it keeps what it had: `passed` if it had passed, else `unknown`). Both delays are switches
 * (emulator/behaviours.ts, default 0: health follows at once). A test may force one address's status, for a
 * while or until cleared, over whatever the servers say.
 *
 * Each LB instance reports every member (switch `lbInstanceReports`: one instance, as recorded, or two). Under
 * `two_disagreeing` the second instance is one change behind the first: it reports what the first reported just
 * before its latest change (a new member the first sees pass is still `unknown` there; one the first sees fail
 * still `passed` there, if it had passed).
 */
import type { EmulatorBehaviours } from './behaviours';
import type { IpamIpRecord, LbRecord, ServerRecord } from './records';

export const HEALTH_CHECK_STATUSES = ['unknown', 'neutral', 'failed', 'passed', 'condpass'] as const;
export type HealthCheckStatus = (typeof HEALTH_CHECK_STATUSES)[number];
export type BackendServerState = 'stopped' | 'starting' | 'running' | 'stopping';

export interface HealthTiming {
  passAfterMs: number;
  failAfterMs: number;
}

/** One backend server as one LB instance sees it. `changedAt` is null for what was so before the seed loaded. */
export interface MemberHealth {
  ip: string;
  status: HealthCheckStatus;
  serverState: BackendServerState;
  changedAt: number | null;
}

export interface ForcedHealth {
  ip: string;
  status: HealthCheckStatus;
  /** Epoch ms after which the servers decide again; null: until cleared. */
  until: number | null;
}

interface AddressLife {
  alive: boolean;
  /** When it became alive (alive) or stopped being so (dead); -Infinity: before the seed. */
  since: number;
  /** For a dead address: when it had last become alive. */
  aliveSince?: number;
}

const SETTLED = Number.NEGATIVE_INFINITY;

/** The LB's server state that goes with each check result (`unknown`: "stopped", as recorded for a member not checked yet). */
const STATE_OF: Record<HealthCheckStatus, BackendServerState> = {
  passed: 'running',
  condpass: 'running',
  failed: 'stopped',
  unknown: 'stopped',
  neutral: 'starting',
};

export class BackendHealth {
  private readonly addresses = new Map<string, AddressLife>();
  /** backend id -> address -> when it joined that backend's pool. */
  private readonly joined = new Map<string, Map<string, number>>();
  private readonly forced = new Map<string, { status: HealthCheckStatus; since: number; until: number | null }>();

  /** After a seed: the world as loaded has been so for long (seeded pools of running servers pass). */
  settle(alive: ReadonlySet<string>, pools: ReadonlyMap<string, readonly string[]>): void {
    this.addresses.clear();
    this.joined.clear();
    this.forced.clear();
    for (const ip of alive) this.addresses.set(ip, { alive: true, since: SETTLED });
    for (const [backendId, pool] of pools) this.joined.set(backendId, new Map(pool.map((ip) => [ip, SETTLED])));
  }

  /** After servers changed: addresses that came alive or died are timed from now. */
  noteAlive(alive: ReadonlySet<string>, now: number): void {
    for (const ip of alive) {
      const life = this.addresses.get(ip);
      if (!life?.alive) this.addresses.set(ip, { alive: true, since: now });
    }
    for (const [ip, life] of this.addresses) {
      if (life.alive && !alive.has(ip)) this.addresses.set(ip, { alive: false, since: now, aliveSince: life.since });
    }
  }

  /** After a pool write: addresses new to the backend are timed from now, removed ones forgotten. */
  notePool(backendId: string, pool: readonly string[], now: number): void {
    const before = this.joined.get(backendId) ?? new Map<string, number>();
    this.joined.set(backendId, new Map(pool.map((ip) => [ip, before.get(ip) ?? now])));
  }

  forgetBackend(backendId: string): void {
    this.joined.delete(backendId);
  }

  force(ip: string, status: HealthCheckStatus, now: number, forMs?: number): void {
    this.forced.set(ip, { status, since: now, until: forMs === undefined ? null : now + forMs });
  }

  /** Clears one forced address, or all of them. */
  unforce(ip?: string): void {
    if (ip === undefined) this.forced.clear();
    else this.forced.delete(ip);
  }

  forcedList(now: number): ForcedHealth[] {
    return [...this.forced].flatMap(([ip, f]) => (f.until !== null && now >= f.until ? [] : [{ ip, status: f.status, until: f.until }]));
  }

  /**
   * How the LB sees one address of one backend's pool at `now`. `deaf`: its server runs but does not listen on
   * the check port, so the check fails as for a dead address.
   */
  member(backendId: string, ip: string, timing: HealthTiming, now: number, deaf = false): MemberHealth {
    const forced = this.forced.get(ip);
    if (forced && forced.since <= now && (forced.until === null || now < forced.until)) {
      return { ip, status: forced.status, serverState: STATE_OF[forced.status], changedAt: forced.since };
    }
    const joinedAt = this.joined.get(backendId)?.get(ip) ?? now;
    const life = deaf ? undefined : this.addresses.get(ip);
    if (life?.alive) {
      const from = Math.max(life.since, joinedAt);
      const readyAt = from + timing.passAfterMs;
      return now >= readyAt ? this.seen(ip, 'passed', readyAt) : this.seen(ip, 'unknown', from);
    }
    // Dead, or never a server's address: dead since it joined the pool.
    const deadFrom = Math.max(life?.since ?? joinedAt, joinedAt);
    const failAt = deadFrom + timing.failAfterMs;
    if (now >= failAt) return this.seen(ip, 'failed', failAt);
    const passedAt = life?.aliveSince === undefined ? undefined : Math.max(life.aliveSince, joinedAt) + timing.passAfterMs;
    return passedAt !== undefined && passedAt <= deadFrom ? this.seen(ip, 'passed', passedAt) : this.seen(ip, 'unknown', joinedAt);
  }

  /** What `member` reported just before its latest change (the same when it has not changed since the seed). */
  memberOneChangeBehind(backendId: string, ip: string, timing: HealthTiming, now: number, deaf = false): MemberHealth {
    const latest = this.member(backendId, ip, timing, now, deaf);
    return latest.changedAt === null ? latest : this.member(backendId, ip, timing, latest.changedAt - 1, deaf);
  }

  private seen(ip: string, status: HealthCheckStatus, at: number): MemberHealth {
    return { ip, status, serverState: STATE_OF[status], changedAt: Number.isFinite(at) ? at : null };
  }
}

/** Addresses (public, and IPAM: private NICs) of `running` servers: the ones a health check reaches. */
export function aliveAddresses(world: { servers: ReadonlyMap<string, ServerRecord>; ips: ReadonlyMap<string, IpamIpRecord> }): Set<string> {
  const alive = new Set<string>();
  const running = new Set<string>();
  for (const server of world.servers.values()) {
    if (server.state !== 'running') continue;
    running.add(server.id);
    for (const ip of server.publicIps) alive.add(ip.address);
  }
  for (const ip of world.ips.values()) {
    if (ip.ownerServerId !== null && running.has(ip.ownerServerId)) alive.add(ip.address.split('/')[0] ?? ip.address);
  }
  return alive;
}

type World = {
  servers: ReadonlyMap<string, ServerRecord>;
  ips: ReadonlyMap<string, IpamIpRecord>;
  health: BackendHealth;
  behaviours: Pick<EmulatorBehaviours, 'healthPassAfterMs' | 'healthFailAfterMs' | 'lbInstanceReports'>;
};

/** Addresses whose server does not listen on this port (a seed's `listensOn`). */
function deafOn(world: World, port: number): Set<string> {
  const deaf = new Set<string>();
  const closed = new Set<string>();
  for (const server of world.servers.values()) {
    if (server.listensOn === null || server.listensOn.includes(port)) continue;
    closed.add(server.id);
    for (const ip of server.publicIps) deaf.add(ip.address);
  }
  for (const ip of world.ips.values())
    if (ip.ownerServerId !== null && closed.has(ip.ownerServerId)) deaf.add(ip.address.split('/')[0] ?? ip.address);
  return deaf;
}

/** The LB instances that report health (the first one always), each with its id and whether it lags one change. */
export function reportingInstances(
  lb: Pick<LbRecord, 'instance' | 'secondInstance'>,
  reports: EmulatorBehaviours['lbInstanceReports'],
): { id: string; oneChangeBehind: boolean }[] {
  const first = { id: lb.instance.id, oneChangeBehind: false };
  if (reports === 'one') return [first];
  return [first, { id: lb.secondInstance.id, oneChangeBehind: reports === 'two_disagreeing' }];
}

/** One member as one LB instance reports it. */
export interface InstanceReport {
  instanceId: string;
  member: MemberHealth;
}

/** Reads one address of a backend's pool at `now`, as the first instance sees it or one change behind. */
function memberReader(world: World, backend: { id: string; healthCheck: { port: number } }, now: number) {
  const timing = { passAfterMs: world.behaviours.healthPassAfterMs, failAfterMs: world.behaviours.healthFailAfterMs };
  const deaf = deafOn(world, backend.healthCheck.port);
  return (ip: string, oneChangeBehind = false): MemberHealth =>
    oneChangeBehind
      ? world.health.memberOneChangeBehind(backend.id, ip, timing, now, deaf.has(ip))
      : world.health.member(backend.id, ip, timing, now, deaf.has(ip));
}

/** How each LB instance sees each given address of a backend now: one report per address per instance. */
export function reportsOfPool(
  world: World,
  lb: Pick<LbRecord, 'instance' | 'secondInstance'>,
  backend: { id: string; healthCheck: { port: number } },
  ips: readonly string[],
  now = Date.now(),
): InstanceReport[] {
  const read = memberReader(world, backend, now);
  return reportingInstances(lb, world.behaviours.lbInstanceReports).flatMap((instance) =>
    ips.map((ip) => ({ instanceId: instance.id, member: read(ip, instance.oneChangeBehind) })),
  );
}

/** How the LB's first instance sees each given address of a backend now. */
export function healthOfPool(
  world: World,
  backend: { id: string; healthCheck: { port: number } },
  ips: readonly string[],
  now = Date.now(),
): MemberHealth[] {
  const read = memberReader(world, backend, now);
  return ips.map((ip) => read(ip));
}

/**
 * Every instance's check of each address in one word, for the pool history: the status when all instances
 * agree, else the distinct statuses joined with "/" (e.g. "passed/unknown").
 */
export function healthAcrossInstances(reports: readonly InstanceReport[]): Record<string, string> {
  const byIp = new Map<string, Set<string>>();
  for (const { member } of reports) byIp.set(member.ip, (byIp.get(member.ip) ?? new Set()).add(member.status));
  return Object.fromEntries([...byIp].map(([ip, statuses]) => [ip, [...statuses].sort().join('/')]));
}

/** The Instance state of the server holding each address (public or IPAM), `none` when no server holds it. */
export function serverStatesOf(
  world: { servers: ReadonlyMap<string, ServerRecord>; ips: ReadonlyMap<string, IpamIpRecord> },
  addresses: readonly string[],
): Record<string, string> {
  const wanted = new Set(addresses);
  const states: Record<string, string> = Object.fromEntries(addresses.map((ip) => [ip, 'none']));
  for (const server of world.servers.values())
    for (const ip of server.publicIps) if (wanted.has(ip.address)) states[ip.address] = server.state;
  for (const ip of world.ips.values()) {
    const bare = ip.address.split('/')[0] ?? ip.address;
    const owner = ip.ownerServerId === null ? undefined : world.servers.get(ip.ownerServerId);
    if (owner && wanted.has(bare)) states[bare] = owner.state;
  }
  return states;
}
