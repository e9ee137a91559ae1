/**
 * kOps' rolling update of a Scaleway cluster, played call by call against the emulator as kOps' own principal, with
 * kOps' User-Agent (emulator/kops/go-sdk.ts), so the call log, the pool history and Audit Trail hold what the real one
 * leaves. Read from kubernetes/kops at master 268927e264: `kops update cluster --yes` (an apply that marks the servers
 * of the changed instance groups needs-update, and writes the API LB's backends), then `kops rolling-update cluster
 * --yes` (pkg/instancegroups/instancegroups.go): control-plane groups first, one server at a time, each through
 * drainTerminateAndWait: cordon; DeregisterInstance (on by default with two control planes or more,
 * cmd/kops/rolling-update_cluster.go); the drain; the post-drain delay; DeleteInstance (terminate, wait until gone);
 * reconcileInstanceGroup (a full apply: the successor is created and powered on, then the backends are written with
 * kOps' rule, workers included); the control-plane interval; then validation before the next. `--cloudonly` skips the
 * drain, the deregistration and the validations. The Kubernetes calls (cordon, drain, node deletion) touch no
 * Scaleway API: they are waits here. Every wait is a setting (KopsTimings), assumed unless the comment says kOps'.
 */
import { kopsApply, type ApplyStep, type InstanceGroupSpec, type KopsBackendSpec } from './apply';
import { instanceGroupOf, KopsCloud, ROLE_CONTROL_PLANE, roleOf, TAG_NEEDS_UPDATE, type WaitSettings, type WireServer } from './cloud';
import { goSdkClient, KOPS_USER_AGENT } from './go-sdk';

export interface KopsTimings {
  /** RunNodeDrain: evicting the node's pods (assumed; minutes on a real cluster, --drain-timeout 15 min at most). */
  drainMs: number;
  /** --post-drain-delay (kOps' default 5 s). */
  postDrainDelayMs: number;
  /** --control-plane-interval, after each control plane's apply (kOps' default 15 s). */
  controlPlaneIntervalMs: number;
  /** --node-interval (kOps' default 15 s). */
  nodeIntervalMs: number;
  /** One cluster validation until it passes (assumed: the new node joining; kOps validates twice, 10 s apart, --validate-count 2). */
  validateMs: number;
  /** The Go SDK's WaitForServer poll (5 s) and WaitForLb poll (2 s). */
  serverPollMs: number;
  lbPollMs: number;
  /** The Go SDK's wait timeout (5 min). */
  waitTimeoutMs: number;
}

export const KOPS_TIMINGS: Readonly<KopsTimings> = Object.freeze({
  drainMs: 120_000,
  postDrainDelayMs: 5_000,
  controlPlaneIntervalMs: 15_000,
  nodeIntervalMs: 15_000,
  validateMs: 60_000,
  serverPollMs: 5_000,
  lbPollMs: 2_000,
  waitTimeoutMs: 300_000,
});

/**
 * kOps' waits (KOPS_TIMINGS) on a clock `scale` times faster, at least 1 ms each; the wait timeout stays long enough
 * for a busy machine. The tests, the demo, the bench and chaos play kOps so.
 */
export function scaledKopsTimings(scale: number): KopsTimings {
  const scaled = Object.fromEntries(Object.entries(KOPS_TIMINGS).map(([name, ms]) => [name, Math.max(1, Math.round(ms / scale))]));
  return { ...(scaled as unknown as KopsTimings), waitTimeoutMs: Math.max(30_000, KOPS_TIMINGS.waitTimeoutMs / scale) };
}

/** What the rolling update did, in order, each with when (epoch ms): the timeline the tests and the bench read. */
export type KopsStepBody =
  | ApplyStep
  | { step: 'update_cluster' | 'rolling_update' | 'done' }
  | { step: 'validated'; after: string }
  | { step: 'cordoned' | 'drained' | 'terminated'; server: string; serverId: string }
  | { step: 'deregistered'; server: string; serverId: string; ip: string; backends: string[] };
export type KopsStep = { at: number } & KopsStepBody;

export interface KopsRollingUpdateOptions {
  /** The emulator's URL. */
  apiUrl: string;
  /** kOps' API key (its X-Auth-Token; a principal of its own in Audit Trail). */
  secretKey: string;
  cluster: string;
  zone: string;
  /** The project kOps creates servers in; the emulator's when absent. */
  projectId?: string;
  /** `kops rolling-update --cloudonly`: no drain, no deregistration, no validation. */
  cloudOnly?: boolean;
  /** Instance groups whose spec changed (`kops edit ig`, a new image...); default: every control-plane group. */
  changedGroups?: readonly string[];
  timings?: Partial<KopsTimings>;
  userAgent?: string;
  /** Told each step as it happens; kOps goes on once what it returns settles (a test's barrier, e.g. during a drain). */
  onStep?: (step: KopsStep) => void | Promise<void>;
  signal?: AbortSignal;
}

export interface KopsRun {
  steps: KopsStep[];
  /** The servers replaced, old id -> new id, in order. */
  replaced: { old: string; oldIp: string; successor: string; successorIp: string }[];
}

function abortableSleep(signal: AbortSignal | undefined): (ms: number) => Promise<void> {
  return (ms) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}

/** The instance groups as kOps' cluster spec holds them, read off the servers: count, type, and tags without the mark. */
function groupsOf(servers: readonly WireServer[]): InstanceGroupSpec[] {
  const groups = new Map<string, InstanceGroupSpec>();
  for (const server of servers) {
    const name = instanceGroupOf(server);
    const group = groups.get(name);
    if (group) group.count += 1;
    else
      groups.set(name, {
        name,
        role: roleOf(server),
        count: 1,
        commercialType: server.commercial_type,
        tags: server.tags.filter((t) => t !== TAG_NEEDS_UPDATE),
      });
  }
  // kOps rolls control-plane groups before the others.
  return [...groups.values()].sort((a, b) => Number(b.role === ROLE_CONTROL_PLANE) - Number(a.role === ROLE_CONTROL_PLANE));
}

/** kOps at work on one cluster: `kops update cluster --yes`, `kops rolling-update cluster --yes`, and their parts. */
export class KopsSession {
  readonly run: KopsRun = { steps: [], replaced: [] };
  readonly cloud: KopsCloud;
  private readonly timings: KopsTimings;
  private readonly sleep: (ms: number) => Promise<void>;
  private groups: InstanceGroupSpec[] = [];
  private backends: KopsBackendSpec[] = [];

  constructor(private readonly options: KopsRollingUpdateOptions) {
    this.timings = { ...KOPS_TIMINGS, ...options.timings };
    this.sleep = abortableSleep(options.signal);
    const sdk = goSdkClient({ apiUrl: options.apiUrl, secretKey: options.secretKey, userAgent: options.userAgent ?? KOPS_USER_AGENT });
    this.cloud = new KopsCloud(sdk, options.zone);
  }

  private async note(step: KopsStepBody): Promise<void> {
    const stamped: KopsStep = { ...step, at: Date.now() };
    this.run.steps.push(stamped);
    await this.options.onStep?.(stamped);
  }

  private wait(pollMs: number): WaitSettings {
    return { pollMs, timeoutMs: this.timings.waitTimeoutMs, sleep: this.sleep };
  }

  /** The cluster's spec as kOps holds it, read off the cloud once: its instance groups and its LB's backends. */
  private async readSpec(): Promise<void> {
    if (this.groups.length > 0) return;
    const { cluster, zone } = this.options;
    this.groups = groupsOf(await this.cloud.clusterServers(cluster));
    const names = new Set<string>();
    for (const lb of await this.cloud.clusterLoadBalancers(cluster)) {
      const listed = await this.cloud.sdk.listAll<{ name: string }>(
        `/lb/v1/zones/${zone}/lbs/${lb.id}/backends`,
        [['order_by', 'created_at_asc']],
        'backends',
      );
      for (const b of listed) names.add(b.name);
    }
    // kOps' model: lb-backend-https always; lb-backend-kops-controller with gossip, private or none DNS (where kOps made it).
    this.backends = [
      { name: 'lb-backend-https', port: 443 },
      ...(names.has('lb-backend-kops-controller') ? [{ name: 'lb-backend-kops-controller', port: 3988 }] : []),
    ];
  }

  private async apply(changed?: ReadonlySet<string>): Promise<void> {
    await kopsApply(this.cloud, {
      cluster: this.options.cluster,
      groups: this.groups,
      ...(changed && { changed }),
      backends: this.backends,
      ...(this.options.projectId && { projectId: this.options.projectId }),
      image: 'ubuntu_noble',
      instanceWait: this.wait(this.timings.serverPollMs),
      lbWait: this.wait(this.timings.lbPollMs),
      onStep: (step) => this.note(step),
    });
  }

  /** `kops update cluster --yes` after a spec change: the changed groups' servers marked needs-update, the backends written. */
  async updateCluster(): Promise<void> {
    await this.readSpec();
    const changed = this.options.changedGroups ?? this.groups.filter((g) => g.role === ROLE_CONTROL_PLANE).map((g) => g.name);
    await this.note({ step: 'update_cluster' });
    await this.apply(new Set(changed));
  }

  /** DeregisterInstance alone: the server's address removed from every backend of the cluster's LBs that holds it. */
  async deregister(server: Pick<WireServer, 'id' | 'name'>): Promise<void> {
    const { ip, backends } = await this.cloud.deregisterInstance(server.id);
    await this.note({ step: 'deregistered', server: server.name, serverId: server.id, ip, backends });
  }

  /** `kops rolling-update cluster --yes [--cloudonly]`: every server marked needs-update replaced, control planes first. */
  async rollingUpdate(): Promise<void> {
    await this.readSpec();
    const { cluster, cloudOnly } = this.options;
    const { timings } = this;
    await this.note({ step: 'rolling_update' });
    const controlPlanes = this.groups.filter((g) => g.role === ROLE_CONTROL_PLANE).reduce((n, g) => n + g.count, 0);
    const deregister = !cloudOnly && controlPlanes >= 2;
    const validate = async (after: string) => {
      if (cloudOnly) return;
      await this.sleep(timings.validateMs);
      await this.note({ step: 'validated', after });
    };
    for (const group of this.groups) {
      // GetCloudGroups: the cluster's servers, each with its address; those carrying the mark need an update.
      const members = (await this.cloud.clusterServers(cluster)).filter((s) => instanceGroupOf(s) === group.name);
      for (const member of members) await this.cloud.serverIp(member.id, member.zone);
      const update = members.filter((s) => s.tags.includes(TAG_NEEDS_UPDATE));
      if (update.length === 0) continue;
      await validate('');
      for (const server of update) {
        const oldIp = await this.cloud.serverIp(server.id, server.zone);
        if (!cloudOnly) {
          await this.note({ step: 'cordoned', server: server.name, serverId: server.id });
          if (deregister) await this.deregister(server);
          await this.sleep(timings.drainMs);
          await this.sleep(timings.postDrainDelayMs);
          await this.note({ step: 'drained', server: server.name, serverId: server.id });
        }
        await this.cloud.deleteInstance(server.id, this.wait(timings.serverPollMs));
        await this.note({ step: 'terminated', server: server.name, serverId: server.id });
        const before = this.run.steps.length;
        await this.apply();
        const created = this.run.steps.slice(before).find((s) => s.step === 'created');
        if (created?.step === 'created')
          this.run.replaced.push({ old: server.id, oldIp, successor: created.serverId, successorIp: created.ip });
        await this.sleep(group.role === ROLE_CONTROL_PLANE ? timings.controlPlaneIntervalMs : timings.nodeIntervalMs);
        await validate(' after terminating instance');
      }
    }
    await this.note({ step: 'done' });
  }
}

/** `kops update cluster --yes`, then `kops rolling-update cluster --yes [--cloudonly]`. */
export async function kopsRollingUpdate(options: KopsRollingUpdateOptions): Promise<KopsRun> {
  const session = new KopsSession(options);
  await session.updateCluster();
  await session.rollingUpdate();
  return session.run;
}
