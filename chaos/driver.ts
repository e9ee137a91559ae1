/**
 * Plays a chaos schedule against the running local stack: events (injected, sent, duplicated, reordered,
 * bursts, invalid, unknown target), sweeps, server replacements and API faults, with backpressure on the
 * events not yet finally answered. Records what it produced and what went wrong while playing; the
 * judging is left to accounting.ts and invariants.ts.
 */
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { faultBodies, KopsSession, scaledKopsTimings } from '../emulator';
import type { FaultSpec, KopsStep } from '../emulator';
import type { LocalStack } from '../local/stack';
import type { DeadLetterRecord } from '../shared/handlers/dead-letter';
import type { AnswerRecorder } from './answer-recorder';
import { answerKey, isTerminalOutcome } from './answer-key';
import { drainDeadLetters } from './dead-letter-queue';
import { BACKEND, type Cluster, type Fleet, ZONE } from './fleet';
import type { FaultStep, Step } from './schedule';

const DEAD_LETTER_QUEUE_NAME = 'lbsync-dead-letter';

/** kOps' API key in a chaos run: its own principal in Audit Trail, its own User-Agent in the call log. */
const CHAOS_KOPS_KEY = 'kops-chaos-0000-4000-8000-00000000c0de';
/** kOps' waits on the chaos clock: 400 times shorter than kOps' own (a drain of 300 ms). */
const CHAOS_KOPS_TIMINGS = scaledKopsTimings(400);

/**
 * What the final answer to a produced event must be: processed, dead-lettered for that reason, or (untrusted: an
 * inject asserting addresses outside the target) never applied, dead-lettered untrusted_server_ips.
 */
export type ExpectedOutcome = 'valid' | 'invalid_event' | 'unknown_target' | 'untrusted';

export interface ChaosDriverOptions {
  stack: LocalStack;
  recorder: AnswerRecorder;
  /** For deleting and restoring the dead-letter queue (hand-off failure). */
  sqs: SQSClient;
  fleet: Fleet;
  /** Most events produced and not yet finally answered before the driver waits. */
  maxOutstanding: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class ChaosDriver {
  /** Every event produced, by event id (`raw:<body>` for a body that is not an event), in production order. */
  readonly expected = new Map<string, ExpectedOutcome>();
  /** Events the sweeps said they enqueued. */
  sweepsEnqueued = 0;
  readonly faultsByType: Record<string, number> = {};
  handoffFailures = 0;
  /** What went wrong while playing (an unexpected answer from inject or sweep, a missing hand-off 5xx). */
  readonly violations: string[] = [];
  /** Dead letters read out before the driver deletes the DLQ (deleting a queue deletes its messages). */
  readonly savedDeadLetters: DeadLetterRecord[] = [];
  /** [from, to] during which a dead letter may have been sent to the DLQ just before the driver deleted it. */
  readonly deletionWindows: [number, number][] = [];
  /** Events asserting addresses (the boot hook's), with when they were sent. */
  readonly assertions = new Map<string, { cluster: number; ips: string[]; at: number }>();
  /** Event ids inject refused (400): no delivery and no API call may ever carry them. */
  readonly refusedAtInject = new Set<string>();
  /** Events asserting the new server's address (the boot hook's), and hostile ones. */
  hostileInjected = 0;
  private readonly finished = new Set<string>();
  /** Addresses kOps marked needs-update, with the server and from when until when (its termination): the leaving rule's evidence. */
  readonly leaving = new Map<string, { serverId: string; from: number; to: number }>();
  /** kOps' rolling updates played, and the attempts that failed (a fault of the schedule met by one of kOps' calls). */
  kopsRuns = 0;
  readonly kopsFailures: string[] = [];
  /** Since when ListServers' tags filter has been loose (a `tags_filter` step), and how many such windows so far. */
  private looseSince: number | undefined;
  private looseWindows = 0;
  /** Rate limits alternate between the gateway's real 429 (no reset time) and the JSON one with reset_seconds. */
  private rateLimits = 0;
  /**
   * When each LB was busy (pending or migrating), by LB id, as the driver set it: the evidence a retries_exhausted
   * dead letter is judged by (evidence.ts). A later status ends the window before it.
   */
  readonly busyWindows = new Map<string, [number, number][]>();
  /** Until when an lb_stuck fault holds a cluster's LB (a shorter lb_busy must not end it early). */
  private readonly stuckUntil = new Map<number, number>();
  private readonly stack: LocalStack;
  private readonly recorder: AnswerRecorder;
  private readonly sqs: SQSClient;
  private readonly fleet: Fleet;
  private readonly maxOutstanding: number;

  constructor(options: ChaosDriverOptions) {
    ({ stack: this.stack, recorder: this.recorder, sqs: this.sqs, fleet: this.fleet, maxOutstanding: this.maxOutstanding } = options);
    this.recorder.onAnswer = (a) => {
      const key = answerKey(a);
      if (key && a.status === 200 && isTerminalOutcome(a.answer?.outcome)) this.finished.add(key);
    };
  }

  /** Plays every step but the closing settle, which run.ts plays once the rest is drained (see settle()). */
  async playSchedule(steps: Step[], log: (line: string) => void): Promise<void> {
    for (const [index, step] of steps.entries()) {
      if (step.kind === 'settle') continue;
      if (step.gapMs > 0) await sleep(step.gapMs);
      await this.backpressure();
      await this.play(step);
      if ((index + 1) % 200 === 0)
        log(`chaos: step ${index + 1}/${steps.length}, ${this.expected.size} events, ${this.recorder.answers.length} answers`);
    }
  }

  async sweep(): Promise<void> {
    const answer = await this.stack.sweep({});
    const body = answer.body as { enqueued?: number };
    if (answer.status !== 200) this.violations.push(`sweep answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    this.sweepsEnqueued += body.enqueued ?? 0;
  }

  private expectEvent(key: string, expect: ExpectedOutcome): void {
    if (!this.expected.has(key)) this.expected.set(key, expect);
  }

  private async backpressure(): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (this.expected.size - this.finished.size > this.maxOutstanding && Date.now() < deadline) await sleep(20);
  }

  private event(id: string, cluster: number, extra: Record<string, unknown> = {}) {
    return { version: 1, id, source: 'manual', target: this.fleet.clusters[cluster]?.name, occurredAt: new Date().toISOString(), ...extra };
  }

  private async send(body: unknown): Promise<void> {
    await this.stack.events.send(this.stack.reconcileQueueUrl, typeof body === 'string' ? body : JSON.stringify(body));
  }

  private async inject(id: string, cluster: number, extra: Record<string, unknown> = {}, expect: ExpectedOutcome = 'valid'): Promise<void> {
    const body = { id, target: this.fleet.clusters[cluster]?.name, ...extra };
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const answer = await this.stack.inject(body);
      if (answer.status === 202) {
        this.expectEvent(id, expect);
        return;
      }
      // 503: the queue was unreachable; a caller retries. Anything else is a bug in the driver or the function.
      if (answer.status !== 503) {
        this.violations.push(`inject ${id} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        return;
      }
      await sleep(100);
    }
    this.violations.push(`inject ${id} kept answering 503`);
  }

  private fault(spec: FaultSpec): void {
    this.stack.emulator.addFault(spec);
  }

  /** Sets an LB's status for a while (ready: at once, for good), keeping the busy windows in step. */
  private setLbStatus(lbId: string, status: 'ready' | 'pending' | 'migrating', forMs?: number): void {
    const now = Date.now();
    this.stack.emulator.setLbStatus(lbId, status, forMs);
    const windows = this.busyWindows.get(lbId) ?? [];
    for (const w of windows) w[1] = Math.min(w[1], now);
    if (status !== 'ready') windows.push([now, forMs === undefined ? Number.POSITIVE_INFINITY : now + forMs]);
    this.busyWindows.set(lbId, windows);
  }

  private async play(step: Step): Promise<void> {
    switch (step.kind) {
      case 'inject':
        return this.inject(step.id, step.cluster, { source: step.source, ...(step.dryRun && { dryRun: true }) });
      case 'send':
        this.expectEvent(step.id, 'valid');
        return this.send(this.event(step.id, step.cluster));
      case 'duplicate': {
        const body = JSON.stringify(this.event(step.id, step.cluster));
        this.expectEvent(step.id, 'valid');
        await this.send(body);
        return this.send(body);
      }
      case 'reorder': {
        const now = Date.now();
        for (const id of [step.earlier, step.later, step.retried]) this.expectEvent(id, 'valid');
        await this.send(this.event(step.later, step.cluster, { occurredAt: new Date(now).toISOString() }));
        await this.send(this.event(step.earlier, step.cluster, { occurredAt: new Date(now - 5_000).toISOString() }));
        await this.send(this.event(step.retried, step.cluster, { attempt: 2, notBefore: new Date(now + 300).toISOString() }));
        return this.send(this.event(step.retried, step.cluster));
      }
      case 'burst':
        for (const id of step.ids) this.expectEvent(id, 'valid');
        await Promise.all(step.ids.map((id) => this.send(this.event(id, step.cluster))));
        return;
      case 'sweep':
        return this.sweep();
      case 'invalid':
        this.expectEvent(`raw:${step.body}`, 'invalid_event');
        return this.send(step.body);
      case 'unknown_target':
        this.expectEvent(step.id, 'unknown_target');
        return this.send({ version: 1, id: step.id, source: 'manual', target: 'no-such.k8s.local', occurredAt: new Date().toISOString() });
      case 'replace':
      case 'replace_two': {
        const cluster = this.fleet.clusters[step.cluster];
        if (!cluster) return;
        const slots = step.kind === 'replace' ? [step.slot] : step.slots;
        const fresh: string[] = [];
        for (const slot of slots) {
          const { oldId, next } = this.fleet.replace(cluster, slot, Date.now());
          this.stack.emulator.replaceServer(oldId, next);
          fresh.push(...(next.publicIps ?? []));
        }
        // The boot hook's event asserts the new server's own address (an assertion discovery confirms, unless the
        // server is gone again before it does: then untrusted_server_ips is its right ending, see assertions).
        if (step.inject) {
          this.assertions.set(step.inject, { cluster: step.cluster, ips: fresh, at: Date.now() });
          await this.inject(step.inject, step.cluster, { source: 'instance-replacement', serverIps: fresh });
        }
        return;
      }
      case 'surge': {
        const cluster = this.fleet.clusters[step.cluster];
        if (!cluster) return;
        await this.untilSettled(cluster, step.sync);
        const replaced = step.slots.map((slot) => cluster.controlPlane[slot]?.ip ?? '');
        const { upserts, fresh } = this.fleet.surge(cluster, step.slots, Date.now());
        for (const server of upserts) this.stack.emulator.upsertServer(server);
        this.assertions.set(step.inject, { cluster: step.cluster, ips: fresh, at: Date.now() });
        return this.untilOneLeft(cluster, step.inject, replaced, { source: 'instance-replacement', serverIps: fresh });
      }
      case 'drain': {
        const cluster = this.fleet.clusters[step.cluster];
        if (!cluster) return;
        await this.untilSettled(cluster, step.sync);
        for (const server of this.fleet.drain(cluster, Date.now())) this.stack.emulator.upsertServer(server);
        await this.untilDrained(cluster, step.inject);
        for (const server of this.fleet.restoreAll(cluster)) this.stack.emulator.upsertServer(server);
        return this.inject(step.restore, step.cluster);
      }
      case 'kops_rolling_update':
        return this.kopsRollingUpdate(step.cluster, step.cloudOnly, step.sync);
      case 'server_change': {
        const cluster = this.fleet.clusters[step.cluster];
        if (!cluster) return;
        for (const server of this.fleet.change(cluster, step.slot, step.change, Date.now())) this.stack.emulator.upsertServer(server);
        if (step.inject) await this.inject(step.inject, step.cluster);
        return;
      }
      case 'hostile_ips':
        this.hostileInjected += 1;
        return this.inject(step.id, step.cluster, { serverIps: [this.hostileAddress(step.cluster, step.ips)] }, 'untrusted');
      case 'hostile_fields':
        return this.hostileFields(step.id, step.cluster, step.field);
      case 'fault':
        this.faultsByType[step.fault.type] = (this.faultsByType[step.fault.type] ?? 0) + 1;
        return this.playFault(step.fault);
      case 'settle':
        return; // played by run.ts after the drain
    }
  }

  /** The pool of the cluster's backend, sorted, when it has exactly one. */
  private poolOf(cluster: Cluster): string[] | undefined {
    const backends = [...this.stack.emulator.state.backends.values()].filter((b) => b.lbId === cluster.lbId && b.settings.name === BACKEND);
    return backends.length === 1 ? [...(backends[0]?.pool ?? [])].sort() : undefined;
  }

  /** Every member of the cluster's pool passes the LB's check now (forced statuses included). */
  private allPassing(cluster: Cluster): boolean {
    const backend = this.stack.emulator.backendHealth().backends.find((b) => b.lbId === cluster.lbId && b.name === BACKEND);
    return backend?.members.every((m) => m.status === 'passed') === true;
  }

  /**
   * Sends event `id` for the cluster, then waits (at most 20 s) until `done`; whenever the event sent last has its
   * final answer and `stuck` says the world has not got there, sends another (`<id>.n<k>`): an event can end
   * without getting there (a fault's permanent error, a world that moved after it).
   */
  private async nudgeUntil(
    cluster: Cluster,
    id: string,
    done: () => boolean,
    stuck: () => boolean = () => true,
    first: Record<string, unknown> = {},
  ): Promise<void> {
    let last = id;
    await this.inject(last, cluster.index, first);
    const deadline = Date.now() + 20_000;
    for (let n = 1; !done() && Date.now() < deadline; ) {
      if (this.finished.has(last) && stuck()) {
        last = `${id}.n${n++}`;
        await this.inject(last, cluster.index);
      }
      await sleep(20);
    }
  }

  /**
   * Every control plane of the cluster restored, then until the pool is them, each passing its check, as an operator
   * readies a cluster before a rolling update: the steps that build a rollout's hard case need every member in and
   * serving.
   */
  private untilSettled(cluster: Cluster, id: string): Promise<void> {
    for (const server of this.fleet.restoreAll(cluster)) this.stack.emulator.upsertServer(server);
    const inSync = () => JSON.stringify(this.poolOf(cluster)) === JSON.stringify(this.fleet.desiredPool(cluster));
    return this.nudgeUntil(
      cluster,
      id,
      () => inSync() && this.allPassing(cluster),
      () => !inSync(),
    );
  }

  /**
   * Until the drained cluster's pool holds at most one member and a reconcile of the target that began after that
   * has answered (it met the last passing member, and kept it or not): the emulator's state and the deliveries
   * tell, not the function's word.
   */
  private untilDrained(cluster: Cluster, id: string): Promise<void> {
    let drainedAt: number | undefined;
    const metLast = () => {
      if (drainedAt === undefined && (this.poolOf(cluster)?.length ?? 2) <= 1) drainedAt = Date.now();
      const since = drainedAt;
      return (
        since !== undefined &&
        this.recorder.answers.some((a) => a.status === 200 && a.answer?.target === cluster.name && a.startedAt > since)
      );
    };
    return this.nudgeUntil(cluster, id, metLast);
  }

  /**
   * Sends the surge's event (`first`: the boot hook's), then waits until at most one of the two replaced members is
   * left in the pool, as kOps waits for a member to leave before it goes on.
   */
  private untilOneLeft(cluster: Cluster, id: string, replaced: readonly string[], extra: Record<string, unknown>): Promise<void> {
    const left = () => (this.poolOf(cluster) ?? []).filter((ip) => replaced.includes(ip)).length <= 1;
    return this.nudgeUntil(cluster, id, left, () => !left(), extra);
  }

  /**
   * Before a loose tags filter ends: until a reconcile that began under it has read the servers and answered
   * `applied` or `noop` (it planned a pool from that answer), nudging cluster 0 when none has. Without this barrier
   * a busy machine could end the window before any delivery of it ran, and a reconcile that takes the API's word
   * for the tags would go unseen (test/chaos/rollout-mutants.test.ts).
   */
  private async untilReadUnderLooseFilter(): Promise<void> {
    const since = this.looseSince;
    const cluster = this.fleet.clusters[0];
    if (since === undefined || !cluster) return;
    const planned = () =>
      this.recorder.answers.some(
        (a) => a.status === 200 && a.startedAt > since && (a.answer?.outcome === 'applied' || a.answer?.outcome === 'noop'),
      );
    if (!planned()) await this.nudgeUntil(cluster, `chaos-loose-filter-${++this.looseWindows}`, planned);
  }

  /**
   * kOps' rolling update of a cluster in sync, with kOps' own calls, API key and User-Agent. What the deployment does
   * beside it is played at kOps' own pace (kOps waits on each): the watcher's event when kOps deregisters a control
   * plane (RemoveBackendServers is a watched write) and when its apply writes the pool, the boot hook's when a new one
   * runs. Each waits for its final answer, so a reconcile meets every stage (the drain above all). The marks are kept
   * as evidence for the leaving rule (invariants.ts, checkLeavingAdds). A run kOps could not finish (a fault of the
   * schedule hit one of its calls) is run again, as an operator does, at most three times.
   */
  private async kopsRollingUpdate(index: number, cloudOnly: boolean, sync: string): Promise<void> {
    const cluster = this.fleet.clusters[index];
    if (!cluster) return;
    await this.untilSettled(cluster, sync);
    // A surge's retired control planes run on with kOps' instance-group tag (only their role tag is gone): kOps groups
    // servers by that tag, so it would replace them too and leave five. As after a real surge, they are gone by now.
    for (const server of cluster.retired.splice(0)) if (server.id) this.stack.emulator.removeServer(server.id);
    // kOps' reads would meet the schedule's faults too, and kOps does not retry: they are cleared for its run.
    this.stack.emulator.clearFaults();
    this.setLbStatus(cluster.lbId, 'ready');
    this.stuckUntil.delete(index);
    this.kopsRuns += 1;
    const tag = `chaos-kops-${this.kopsRuns}`;
    let nudges = 0;
    const react = async (source: 'audit' | 'instance-replacement') => {
      const id = `${tag}-${source}-${++nudges}`;
      this.expectEvent(id, 'valid');
      await this.send(this.event(id, index, { source }));
      const deadline = Date.now() + 15_000;
      while (!this.finished.has(id) && Date.now() < deadline) await sleep(10);
    };
    const ipOf = (serverId: string) => this.stack.emulator.state.servers.get(serverId)?.publicIps[0]?.address;
    const onStep = async (step: KopsStep) => {
      if (step.step === 'marked') {
        const ip = ipOf(step.serverId);
        if (ip) this.leaving.set(ip, { serverId: step.serverId, from: step.at, to: Number.POSITIVE_INFINITY });
      } else if (step.step === 'created') {
        this.fleet.adopt(cluster, step.ip, step.at);
      } else if (step.step === 'deregistered') {
        await react('audit');
      } else if (step.step === 'running') {
        await react('instance-replacement');
      } else if (step.step === 'backend_written') {
        await react('audit');
      }
    };
    // One session: kOps keeps its spec (three control planes) from one attempt to the next.
    const session = new KopsSession({
      apiUrl: this.stack.emulator.url,
      secretKey: CHAOS_KOPS_KEY,
      cluster: cluster.name,
      zone: ZONE,
      cloudOnly,
      timings: CHAOS_KOPS_TIMINGS,
      onStep,
    });
    let done = false;
    for (let attempt = 1; attempt <= 3 && !done; attempt += 1) {
      try {
        await session.updateCluster();
        await session.rollingUpdate();
        done = true;
      } catch (error) {
        this.kopsFailures.push(`${cluster.name} attempt ${attempt}: ${(error as Error)?.message ?? String(error)}`);
        this.stack.emulator.clearFaults();
      }
    }
    // Until a mark leaves with its server: terminated servers end their window.
    const now = Date.now();
    for (const mark of this.leaving.values())
      if (mark.to === Number.POSITIVE_INFINITY && !this.stack.emulator.state.servers.has(mark.serverId)) mark.to = now;
    const running = [...this.stack.emulator.state.servers.values()].filter(
      (s) => s.tags.includes(`noprefix=kops.k8s.io/cluster=${cluster.name}`) && s.tags.includes('noprefix=kops.k8s.io/role=ControlPlane'),
    );
    if (!done) {
      // kOps gave up: the operator takes the marks off, as a reverted spec would, and the cluster goes on as it is.
      for (const server of running.filter((s) => s.tags.includes('noprefix=kops.k8s.io/needs-update'))) {
        this.stack.emulator.upsertServer({
          id: server.id,
          name: server.name,
          zone: server.zone,
          state: server.state,
          tags: server.tags.filter((t) => t !== 'noprefix=kops.k8s.io/needs-update'),
          publicIps: server.publicIps.map((p) => p.address),
          publicIpIds: server.publicIps.map((p) => p.id),
        });
        const mark = server.publicIps[0] && this.leaving.get(server.publicIps[0].address);
        if (mark) mark.to = Date.now();
      }
      this.violations.push(`kOps' rolling update of ${cluster.name} did not finish in 3 attempts: ${this.kopsFailures.slice(-1)[0]}`);
    }
    const live = running.filter((s) => s.state === 'running' && s.publicIps.length > 0);
    if (live.length !== 3) {
      this.violations.push(`kOps' rolling update of ${cluster.name} left ${live.length} running control planes, not 3`);
      return;
    }
    this.fleet.adoptControlPlanes(
      cluster,
      live.map((s) => ({ id: s.id, ip: s.publicIps[0]?.address ?? '' })),
      Date.now(),
    );
  }

  /** An address outside the target: another cluster's control plane, this cluster's worker, or someone else's. */
  private hostileAddress(cluster: number, kind: 'other_cluster' | 'worker' | 'foreign'): string {
    const clusters = this.fleet.clusters;
    const own = clusters[cluster];
    if (kind === 'worker' && own) return own.worker.ip;
    const other = clusters[(cluster + 1) % clusters.length];
    if (kind === 'other_cluster' && other && other !== own) return other.controlPlane[0]?.ip ?? '6.6.6.6';
    return '6.6.6.6';
  }

  /** Fields only the system sets, a source only the system uses, a loopback address: inject must answer 400. */
  private async hostileFields(id: string, cluster: number, field: 'attempt' | 'notBefore' | 'source' | 'loopback'): Promise<void> {
    const extra: Record<string, unknown> = {
      attempt: { attempt: 0 },
      notBefore: { notBefore: '2099-01-01T00:00:00Z' },
      source: { source: 'sweep' },
      loopback: { serverIps: ['127.0.0.1'] },
    }[field];
    const answer = await this.stack.inject({ id, target: this.fleet.clusters[cluster]?.name, ...extra });
    this.refusedAtInject.add(id);
    const path = field === 'loopback' ? 'event.serverIps[0]' : `event.${field}`;
    const named = JSON.stringify(answer.body).includes(path);
    if (answer.status !== 400 || !named)
      this.violations.push(`hostile inject (${field}) answered ${answer.status}, not a 400 naming ${path}: ${JSON.stringify(answer.body)}`);
  }

  /**
   * The end of the schedule, once everything before it is answered: the world stops being hostile (faults, forced
   * health checks and busy LBs cleared), then one event per target, as the watcher or an operator would send after
   * the churn. Convergence is measured once they are answered: no sweep repairs anything after the schedule.
   */
  async settle(ids: string[]): Promise<void> {
    this.stuckUntil.clear();
    this.stack.emulator.clearFaults();
    this.stack.emulator.clearForcedHealth();
    for (const c of this.fleet.clusters) this.setLbStatus(c.lbId, 'ready');
    for (const [index, id] of ids.entries()) {
      this.expectEvent(id, 'valid');
      await this.send(this.event(id, index));
    }
  }

  private async playFault(f: FaultStep): Promise<void> {
    switch (f.type) {
      case 'transient_409': {
        const lbId = this.fleet.clusters[0]?.lbId ?? '';
        return this.fault({ operation: f.operation, ...faultBodies.transientState(lbId, 'pending'), count: f.count });
      }
      case 'lb_busy': {
        const cluster = this.fleet.clusters[f.cluster];
        if (cluster && Date.now() >= (this.stuckUntil.get(f.cluster) ?? 0)) this.setLbStatus(cluster.lbId, f.status, f.forMs);
        return;
      }
      case 'rate_limited':
        this.rateLimits += 1;
        return this.fault({
          operation: f.operation,
          ...(this.rateLimits % 2 === 1 ? faultBodies.rateLimited() : faultBodies.tooManyRequests(f.resetSeconds)),
        });
      case 'server_error':
        return this.fault({
          operation: f.operation,
          ...(f.status === 500
            ? faultBodies.internal()
            : f.status === 503
              ? faultBodies.serviceUnavailable()
              : { status: 502, body: { message: 'bad gateway' } }),
          count: f.count,
        });
      case 'connection_reset':
        return this.fault({ operation: f.operation, reset: true, count: f.count });
      case 'hang':
        return this.fault({ operation: f.operation, hang: true });
      case 'slow_commit':
        return this.fault({ operation: f.operation, latencyMs: f.latencyMs });
      case 'backend_deleted': {
        const cluster = this.fleet.clusters[f.cluster];
        const state = this.stack.emulator.state;
        const backend = [...state.backends.values()].find((b) => b.lbId === cluster?.lbId && b.settings.name === BACKEND);
        if (backend) state.deleteBackend(backend);
        return;
      }
      case 'permanent_403':
        return this.fault({ operation: f.operation, ...faultBodies.permissionsDenied() });
      case 'handoff_failure':
        return this.handoffFailure(f.body);
      case 'health_failure': {
        const ip = this.fleet.clusters[f.cluster]?.controlPlane[f.slot]?.ip;
        if (ip) this.stack.emulator.forceHealth(ip, f.status, f.forMs);
        return;
      }
      case 'lb_stuck': {
        const cluster = this.fleet.clusters[f.cluster];
        if (!cluster) return;
        this.setLbStatus(cluster.lbId, 'migrating', f.forMs);
        this.stuckUntil.set(f.cluster, Date.now() + f.forMs);
        this.expectEvent(f.id, 'valid');
        return this.send(this.event(f.id, f.cluster));
      }
      case 'tags_filter':
        if (f.filter === 'all') await this.untilReadUnderLooseFilter();
        this.looseSince = f.filter === 'all' ? undefined : Date.now();
        this.stack.emulator.setBehaviours({ serverTagsFilter: f.filter });
        return;
      case 'crash':
        this.recorder.crash(f.id, f.times);
        this.expectEvent(f.id, 'valid');
        return this.send(this.event(f.id, f.cluster));
    }
  }

  /** Deletes the DLQ, sends an event that must be dead-lettered, waits for the 5xx, then restores the DLQ. */
  private async handoffFailure(body: string): Promise<void> {
    const url = this.stack.deadLetterQueueUrl;
    const attributes = await this.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['MessageRetentionPeriod'] }));
    const from = Date.now();
    this.savedDeadLetters.push(...(await drainDeadLetters(this.stack)));
    await this.sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    this.deletionWindows.push([from, Date.now() + 1_000]);
    try {
      this.expectEvent(`raw:${body}`, 'invalid_event');
      await this.send(body);
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && !this.recorder.answers.some((a) => a.request === body && a.status === 500)) await sleep(20);
      if (this.recorder.answers.some((a) => a.request === body && a.status === 500)) this.handoffFailures += 1;
      else this.violations.push('hand-off failure: no 5xx answer while the dead-letter queue was gone');
    } finally {
      await this.sqs.send(
        new CreateQueueCommand({
          QueueName: DEAD_LETTER_QUEUE_NAME,
          Attributes: { MessageRetentionPeriod: attributes.Attributes?.MessageRetentionPeriod ?? '1209600' },
        }),
      );
    }
  }
}
