/** The emulator's in-memory world: LBs, backends, servers and IPAM addresses. */
import { randomUUID } from 'node:crypto';
import type { BackendSettings, BackendRecord, FrontendRecord, HealthCheckFields, IpamIpRecord, LbRecord, ServerRecord } from './records';
import { DEFAULT_PROJECT_ID, backendFromSeed, ipamIpFromSeed, lbFromSeed, regionOfZone, serverFromSeed, type Ownership } from './seed';
import { LB_STATUSES, type EmulatorSeed, type LbStatus, type SeedServer } from './contract';
import { readBehaviours, withDefaults, type EmulatorBehaviours } from './behaviours';
import { aliveAddresses, BackendHealth } from './health';
import { Tenancy } from './tenancy';

export type InstanceStatus = 'unknown' | 'ready' | 'pending';

export class EmulatorState {
  readonly lbs = new Map<string, LbRecord>();
  readonly backends = new Map<string, BackendRecord>();
  readonly frontends = new Map<string, FrontendRecord>();
  readonly servers = new Map<string, ServerRecord>();
  readonly ips = new Map<string, IpamIpRecord>();
  owner: Ownership = { projectId: DEFAULT_PROJECT_ID, organizationId: DEFAULT_PROJECT_ID };
  /** Organizations, their projects and keys: which key is answered for what (emulator/tenancy.ts). */
  readonly tenancy = new Tenancy(this.owner);
  /** The LB's health checks of the pools' addresses (emulator/health.ts). */
  readonly health = new BackendHealth();

  behaviours: EmulatorBehaviours;

  constructor(behaviours: Partial<EmulatorBehaviours> = {}) {
    this.behaviours = withDefaults(behaviours);
  }

  get instancePendingMs(): number {
    return this.behaviours.instancePendingMs;
  }

  /** Changes some switches; the others keep their current setting. */
  setBehaviours(partial: Partial<EmulatorBehaviours>): EmulatorBehaviours {
    this.behaviours = { ...this.behaviours, ...readBehaviours(partial) };
    return this.behaviours;
  }

  /** Replaces the whole world with the seed's content. */
  loadSeed(seed: EmulatorSeed): void {
    this.lbs.clear();
    this.backends.clear();
    this.frontends.clear();
    this.servers.clear();
    this.ips.clear();
    const projectId = seed.projectId ?? DEFAULT_PROJECT_ID;
    this.owner = { projectId, organizationId: seed.organizationId ?? projectId };
    this.tenancy.load(seed, this.owner);
    // Seeded entities get strictly increasing creation times, so ordering by date is deterministic.
    const base = Date.now() - 60_000;
    let tick = 0;
    const nextTime = (): string => new Date(base + tick++).toISOString();
    for (const lbSeed of seed.lbs ?? []) {
      const now = nextTime();
      if (lbSeed.status !== undefined && !LB_STATUSES.includes(lbSeed.status)) {
        throw new Error(`seed LB ${lbSeed.name}: unknown status ${lbSeed.status}`);
      }
      const lb = lbFromSeed(lbSeed, this.tenancy.ownership(lbSeed.projectId), now);
      if (lbSeed.instancesPendingMs !== undefined) this.markInstancesPending(lb, Date.now(), lbSeed.instancesPendingMs);
      this.lbs.set(lb.id, lb);
      for (const backendSeed of lbSeed.backends ?? []) {
        const backend = backendFromSeed(backendSeed, lb.id, nextTime());
        this.backends.set(backend.id, backend);
      }
      for (const frontendSeed of lbSeed.frontends ?? []) {
        const target = this.backendsOf(lb.id).find((b) => b.id === frontendSeed.backend || b.settings.name === frontendSeed.backend);
        if (!target) throw new Error(`seed LB ${lbSeed.name}: frontend ${frontendSeed.name} names no backend "${frontendSeed.backend}"`);
        const frontend: FrontendRecord = {
          id: frontendSeed.id ?? randomUUID(),
          lbId: lb.id,
          name: frontendSeed.name,
          inboundPort: frontendSeed.inbound_port,
          backendId: target.id,
          createdAt: nextTime(),
        };
        this.frontends.set(frontend.id, frontend);
      }
    }
    for (const serverSeed of seed.servers ?? []) this.upsertServer(serverSeed, nextTime());
    const defaultRegion = regionOfZone(seed.lbs?.[0]?.zone ?? seed.servers?.[0]?.zone ?? 'fr-par-1');
    for (const ipSeed of seed.ips ?? []) {
      const ip = ipamIpFromSeed(ipSeed, this.owner, defaultRegion, nextTime());
      this.ips.set(ip.id, ip);
    }
    this.health.settle(aliveAddresses(this), new Map([...this.backends.values()].map((b) => [b.id, b.pool])));
  }

  // ---- LB status ----

  lbStatus(lb: LbRecord, now = Date.now()): LbStatus {
    if (lb.statusRevertsAt !== null && now >= lb.statusRevertsAt) {
      lb.status = 'ready';
      lb.statusRevertsAt = null;
      lb.updatedAt = new Date(now).toISOString();
    }
    return lb.status;
  }

  instanceStatus(lb: LbRecord, now = Date.now()): InstanceStatus {
    const status = this.lbStatus(lb, now);
    if (status === 'creating') return 'unknown';
    return now < lb.instancesPendingUntil ? 'pending' : 'ready';
  }

  instanceUpdatedAt(lb: LbRecord, now = Date.now()): string {
    const last = now < lb.instancesPendingUntil ? lb.instancesUpdatedAt : Math.max(lb.instancesUpdatedAt, lb.instancesPendingUntil);
    return new Date(last).toISOString();
  }

  setLbStatus(lbId: string, status: LbStatus, forMs?: number): void {
    const lb = this.requireLb(lbId);
    if (!LB_STATUSES.includes(status)) throw new Error(`unknown LB status ${status}`);
    lb.status = status;
    lb.statusRevertsAt = forMs !== undefined && forMs >= 0 ? Date.now() + forMs : null;
    lb.updatedAt = new Date().toISOString();
  }

  /** A write that changes the LB's config makes its instances apply it for a while (recorded). */
  markInstancesPending(lb: LbRecord, now = Date.now(), forMs = this.instancePendingMs): void {
    lb.instancesUpdatedAt = now;
    lb.instancesPendingUntil = now + forMs;
  }

  requireLb(lbId: string): LbRecord {
    const lb = this.lbs.get(lbId);
    if (!lb) throw new Error(`no LB ${lbId}`);
    return lb;
  }

  frontendsOf(lbId: string): FrontendRecord[] {
    return [...this.frontends.values()].filter((frontend) => frontend.lbId === lbId);
  }

  backendsOf(lbId: string): BackendRecord[] {
    return [...this.backends.values()].filter((backend) => backend.lbId === lbId);
  }

  // ---- backend mutations (validation and status checks are the caller's job) ----

  // Which writes flip the instances to pending follows the recordings (docs/emulator.md): CreateBackend,
  // DeleteBackend and a pool write that changes the pool do; UpdateBackend and a no-op pool write do not.

  createBackend(lb: LbRecord, settings: BackendSettings, healthCheck: HealthCheckFields, pool: string[]): BackendRecord {
    const now = new Date().toISOString();
    const backend: BackendRecord = { id: randomUUID(), lbId: lb.id, settings, healthCheck, pool, createdAt: now, updatedAt: now };
    this.backends.set(backend.id, backend);
    this.health.notePool(backend.id, pool, Date.now());
    this.markInstancesPending(lb);
    return backend;
  }

  updateBackend(backend: BackendRecord, settings: BackendSettings): void {
    backend.settings = settings;
    this.touch(backend, false);
  }

  setHealthCheck(backend: BackendRecord, healthCheck: HealthCheckFields): void {
    backend.healthCheck = healthCheck;
    this.touch(backend, this.behaviours.pendingAfterHealthCheck);
  }

  /** Returns whether the pool changed (as a set: the same addresses in another order are no change). */
  setPool(backend: BackendRecord, pool: string[]): boolean {
    const next = [...new Set(pool)];
    const changed = next.length !== backend.pool.length || next.some((ip) => !backend.pool.includes(ip));
    backend.pool = next;
    this.health.notePool(backend.id, next, Date.now());
    this.touch(backend, changed);
    return changed;
  }

  /** Deletes the backend and, when given, the frontends that used it (the `cascade` setting). */
  deleteBackend(backend: BackendRecord, withFrontends: readonly FrontendRecord[] = []): void {
    for (const frontend of withFrontends) this.frontends.delete(frontend.id);
    this.backends.delete(backend.id);
    this.health.forgetBackend(backend.id);
    const lb = this.lbs.get(backend.lbId);
    if (lb) this.markInstancesPending(lb);
  }

  /** The frontends that send traffic to this backend. */
  frontendsUsing(backend: BackendRecord): FrontendRecord[] {
    return [...this.frontends.values()].filter((frontend) => frontend.backendId === backend.id);
  }

  /** Addresses the strict backend-IP mode accepts: the seeded servers' public IPs and every IPAM address. */
  knownAddresses(): Set<string> {
    const known = new Set<string>();
    for (const server of this.servers.values()) for (const ip of server.publicIps) known.add(ip.address);
    for (const ip of this.ips.values()) known.add(ip.address.split('/')[0] ?? ip.address);
    return known;
  }

  private touch(backend: BackendRecord, flipsInstances: boolean): void {
    backend.updatedAt = new Date().toISOString();
    const lb = this.lbs.get(backend.lbId);
    if (lb && flipsInstances) this.markInstancesPending(lb);
  }

  // ---- servers ----

  upsertServer(seed: SeedServer, now = new Date().toISOString()): ServerRecord {
    const existing = seed.id ? this.servers.get(seed.id) : undefined;
    if (existing) this.dropServer(existing.id);
    const owner = existing && seed.projectId === undefined ? existing : this.tenancy.ownership(seed.projectId);
    const { server, ips } = serverFromSeed(seed, { projectId: owner.projectId, organizationId: owner.organizationId }, now);
    if (existing) server.createdAt = existing.createdAt;
    this.servers.set(server.id, server);
    for (const ip of ips) this.ips.set(ip.id, ip);
    this.health.noteAlive(aliveAddresses(this), Date.now());
    return server;
  }

  /** A server's Instance state changes (the health checks follow). */
  setServerState(serverId: string, state: string): void {
    const server = this.servers.get(serverId);
    if (!server) return;
    server.state = state;
    server.modifiedAt = new Date().toISOString();
    this.health.noteAlive(aliveAddresses(this), Date.now());
  }

  /** A terminated server's public IPs go at once (recorded: `stopping` with `public_ips: []`), with their IPAM entries. */
  detachPublicIps(serverId: string): void {
    const server = this.servers.get(serverId);
    if (!server) return;
    const gone = new Set(server.publicIps.map((ip) => ip.id));
    server.publicIps = [];
    for (const id of gone) this.ips.delete(id);
    this.health.noteAlive(aliveAddresses(this), Date.now());
  }

  removeServer(serverId: string): boolean {
    const removed = this.dropServer(serverId);
    this.health.noteAlive(aliveAddresses(this), Date.now());
    return removed;
  }

  private dropServer(serverId: string): boolean {
    const removed = this.servers.delete(serverId);
    for (const [id, ip] of this.ips) {
      if (ip.ownerServerId === serverId) this.ips.delete(id);
    }
    return removed;
  }

  /** Simulates a kOps rolling update: the old server goes away, a new one takes its place. */
  replaceServer(oldServerId: string, next: SeedServer): ServerRecord {
    const old = this.servers.get(oldServerId);
    this.removeServer(oldServerId);
    return this.upsertServer({ ...(old && { projectId: old.projectId }), ...next });
  }

  ipamIdsOfNic(nicId: string): string[] {
    return [...this.ips.values()].filter((ip) => ip.resource?.id === nicId).map((ip) => ip.id);
  }
}
