/**
 * The chaos world: T kOps clusters, each with its API load balancer `api.c<i>.k8s.local`, three
 * control-plane servers and one worker, tagged as kOps tags them. Keeps the timeline of which IPs were
 * control-plane IPs of which cluster, so pool writes can be judged against what was desired at the time.
 */
import type { EmulatorSeed, SeedBackend, SeedServer } from '../emulator';
import type { TargetInput } from '../shared/schemas/target';
import { expandKops, kopsTargetSchema } from '../shared/schemas/target';
import type { Prng } from './prng';

export const ZONE = 'fr-par-1';
export const BACKEND = 'lb-backend-https';
/**
 * The cluster whose target is kOps' own plus allowEmptyPool and trustPartialDiscovery: the one configuration in which
 * the pool may shrink to nothing, so the only one where "the last passing member is never removed" is not already
 * implied by "only once every desired member passes". The drain steps play on it.
 */
export const DRAINABLE = 0;

/**
 * How a control-plane server stands. ok: running, tagged, addressed (desired in the pool); stopped / stopping:
 * its Instance state; untagged: running without the role tag (still serving); no_address: running without its
 * public IP. At most one server of a cluster is ever not ok (see Fleet.change).
 */
export type ServerCondition = 'ok' | 'stopped' | 'stopping' | 'untagged' | 'no_address';
export type ServerChange = Exclude<ServerCondition, 'ok'> | 'restore';

export interface ClusterServer {
  id: string;
  ip: string;
  condition: ServerCondition;
}

export interface Cluster {
  index: number;
  name: string;
  lbName: string;
  lbId: string;
  controlPlane: ClusterServer[];
  worker: ClusterServer;
  /** Every IP that has been a control-plane public IP of this cluster, with when it became one (0 = seeded). */
  controlPlaneSince: Map<string, number>;
  /** How many replacements so far, for server names. */
  generation: number;
  /** When each address last stopped being desired (replaced, stopped, untagged, unaddressed). */
  leftAt: Map<string, number>;
  /** Control planes a surge replaced: running, their role tag gone, out of the slots for good. */
  retired: SeedServer[];
}

export const clusterName = (i: number): string => `c${i}.k8s.local`;

function tags(cluster: string, role: 'ControlPlane' | 'Node'): string[] {
  const base = [`noprefix=kops.k8s.io/cluster=${cluster}`];
  // kOps tags control-plane servers with their role; workers carry no role tag (as on the real platform).
  return role === 'ControlPlane'
    ? [...base, 'noprefix=kops.k8s.io/role=ControlPlane', `noprefix=kops.k8s.io/instance-group=control-plane-${ZONE}`]
    : [...base, `noprefix=kops.k8s.io/instance-group=nodes-${ZONE}`];
}

export class Fleet {
  readonly clusters: Cluster[] = [];
  private nextHost = new Map<number, number>();

  constructor(
    readonly size: number,
    private readonly prng: Prng,
  ) {
    if (size < 1 || size > 250) throw new RangeError(`targets must be within 1..250, got ${size}`);
    for (let i = 0; i < size; i += 1) {
      const name = clusterName(i);
      const controlPlane = [0, 1, 2].map((): ClusterServer => ({ id: prng.uuid(), ip: this.newControlPlaneIp(i), condition: 'ok' }));
      this.clusters.push({
        index: i,
        name,
        lbName: `api.${name}`,
        lbId: prng.uuid(),
        controlPlane,
        // Workers live in another /16: they must never reach an API pool.
        worker: { id: prng.uuid(), ip: `51.16.${i}.${prng.int(1, 250)}`, condition: 'ok' },
        controlPlaneSince: new Map(controlPlane.map((s) => [s.ip, 0])),
        generation: 0,
        leftAt: new Map(),
        retired: [],
      });
    }
  }

  /** Control-plane IPs are never reused, so "was it ever a control-plane IP of this cluster" is exact. */
  private newControlPlaneIp(cluster: number): string {
    const host = this.nextHost.get(cluster) ?? 0;
    this.nextHost.set(cluster, host + 1);
    if (host >= 155 * 250) throw new Error(`cluster ${cluster} ran out of control-plane IPs`);
    return `51.${100 + Math.floor(host / 250)}.${cluster}.${(host % 250) + 1}`;
  }

  targets(): TargetInput[] {
    return this.clusters.map((c): TargetInput => {
      const kops = { kops: { cluster: c.name, zone: ZONE } } as const;
      if (c.index !== DRAINABLE) return kops;
      return { ...expandKops(kopsTargetSchema.parse(kops)), allowEmptyPool: true, trustPartialDiscovery: true } as TargetInput;
    });
  }

  /** Whether the cluster's target lets its pool be emptied (once no member passes). */
  allowsEmptyPool(c: Cluster): boolean {
    return c.index === DRAINABLE;
  }

  byLbId(lbId: string): Cluster | undefined {
    return this.clusters.find((c) => c.lbId === lbId);
  }

  /** Starting state: some backends in sync, some with a stale pool, some missing. */
  seed(): EmulatorSeed {
    const servers: SeedServer[] = [];
    const lbs = this.clusters.map((c) => {
      for (const [n, s] of c.controlPlane.entries()) servers.push(this.controlPlaneSeed(c, s, n));
      // A worker runs no API server: the LB's check on 443 fails it (as on the real platform).
      servers.push({
        id: c.worker.id,
        name: `nodes-${ZONE}-0`,
        zone: ZONE,
        state: 'running',
        tags: tags(c.name, 'Node'),
        publicIps: [c.worker.ip],
        listensOn: [22, 10250],
      });
      const start = this.prng.pick(['in_sync', 'stale', 'missing'] as const);
      const backends: SeedBackend[] =
        start === 'missing'
          ? []
          : [
              {
                name: BACKEND,
                forward_port: 443,
                pool: start === 'in_sync' ? c.controlPlane.map((s) => s.ip) : [c.controlPlane[0]?.ip ?? ''],
                health_check: { port: 443, check_delay: 3000, check_timeout: 1000, check_max_retries: 5, tcp_config: {} },
              },
            ];
      return { id: c.lbId, name: c.lbName, zone: ZONE, status: 'ready' as const, tags: tags(c.name, 'ControlPlane').slice(0, 2), backends };
    });
    return { projectId: '23b8c1e9-3924-46de-beb1-3b9046685257', lbs, servers };
  }

  controlPlaneSeed(c: Cluster, s: ClusterServer, n: number): SeedServer {
    const state = s.condition === 'stopped' || s.condition === 'stopping' ? s.condition : 'running';
    const serverTags =
      s.condition === 'untagged' ? tags(c.name, 'ControlPlane').filter((t) => !t.includes('/role=')) : tags(c.name, 'ControlPlane');
    return {
      id: s.id,
      name: `control-plane-${ZONE}-${n}-g${c.generation}`,
      zone: ZONE,
      state,
      tags: serverTags,
      publicIps: s.condition === 'no_address' ? [] : [s.ip],
    };
  }

  /** A kOps rolling update of one control-plane server: a new server with a new IP takes its place. */
  replace(c: Cluster, slot: number, at: number): { oldId: string; next: SeedServer } {
    const old = c.controlPlane[slot];
    if (!old) throw new Error(`no control-plane slot ${slot}`);
    c.generation += 1;
    c.leftAt.set(old.ip, at);
    const fresh: ClusterServer = { id: this.prng.uuid(), ip: this.newControlPlaneIp(c.index), condition: 'ok' };
    c.controlPlane[slot] = fresh;
    c.controlPlaneSince.set(fresh.ip, at);
    return { oldId: old.id, next: this.controlPlaneSeed(c, fresh, slot) };
  }

  /**
   * A control-plane server stops, starts stopping, loses its role tag or its address, or is restored. Another
   * server of the cluster that is not ok is restored first, so at most one is ever not ok: two of three gone
   * from discovery while running is exactly what the reconciler refuses to act on (discovery_suspect), and a
   * chaos run must end in a world it can converge to. Returns the servers to upsert, in order.
   */
  change(c: Cluster, slot: number, change: ServerChange, at: number): SeedServer[] {
    const upserts: SeedServer[] = [];
    c.controlPlane.forEach((s, n) => {
      if (n === slot || s.condition === 'ok') return;
      s.condition = 'ok';
      upserts.push(this.controlPlaneSeed(c, s, n));
    });
    const server = c.controlPlane[slot];
    if (!server) throw new Error(`no control-plane slot ${slot}`);
    if (server.condition === 'ok' && change !== 'restore') c.leftAt.set(server.ip, at);
    server.condition = change === 'restore' ? 'ok' : change;
    upserts.push(this.controlPlaneSeed(c, server, slot));
    return upserts;
  }

  /**
   * A surge replacement of two control planes: two new servers take the slots, and the two they replace lose their
   * role tag while still running and passing: until one of them leaves, the pool holds five, two of them passing
   * and leaving. Returns the servers to upsert.
   */
  surge(c: Cluster, slots: readonly [number, number], at: number): { upserts: SeedServer[]; fresh: string[] } {
    const upserts: SeedServer[] = [];
    const fresh: string[] = [];
    for (const slot of slots) {
      const old = c.controlPlane[slot];
      if (!old) throw new Error(`no control-plane slot ${slot}`);
      if (old.condition === 'ok') c.leftAt.set(old.ip, at);
      const retired = this.controlPlaneSeed(c, { ...old, condition: 'untagged' }, slot);
      c.retired.push(retired);
      upserts.push(retired);
      c.generation += 1;
      const next: ClusterServer = { id: this.prng.uuid(), ip: this.newControlPlaneIp(c.index), condition: 'ok' };
      c.controlPlane[slot] = next;
      c.controlPlaneSince.set(next.ip, at);
      upserts.push(this.controlPlaneSeed(c, next, slot));
      fresh.push(next.ip);
    }
    return { upserts, fresh };
  }

  /** Every control plane of the cluster loses its role tag (running, still passing): nothing is desired any more. */
  drain(c: Cluster, at: number): SeedServer[] {
    return c.controlPlane.map((s, n) => {
      if (s.condition === 'ok') c.leftAt.set(s.ip, at);
      s.condition = 'untagged';
      return this.controlPlaneSeed(c, s, n);
    });
  }

  /** Every control plane of the cluster is itself again: running, tagged, addressed (after a drain, before a rollout). */
  restoreAll(c: Cluster): SeedServer[] {
    return c.controlPlane.map((s, n) => {
      s.condition = 'ok';
      return this.controlPlaneSeed(c, s, n);
    });
  }

  /**
   * After kOps' rolling update: the cluster's slots are the control planes the emulator now runs (kOps created
   * them; their addresses were taken as control-plane addresses when each was created, see `adopt`).
   */
  adoptControlPlanes(c: Cluster, servers: readonly { id: string; ip: string }[], at: number): void {
    for (const s of c.controlPlane) if (!servers.some((n) => n.id === s.id)) c.leftAt.set(s.ip, at);
    c.controlPlane = servers.slice(0, 3).map((s) => ({ id: s.id, ip: s.ip, condition: 'ok' }));
    c.generation += 1;
  }

  /** A control plane kOps just created: its address is one of the cluster's from now on. */
  adopt(c: Cluster, ip: string, at: number): void {
    if (!c.controlPlaneSince.has(ip)) c.controlPlaneSince.set(ip, at);
  }

  /** The addresses the pool should hold: the ok servers'. */
  desiredPool(c: Cluster): string[] {
    return c.controlPlane
      .filter((s) => s.condition === 'ok')
      .map((s) => s.ip)
      .sort();
  }
}
