/**
 * The chaos run: the whole system (local stack: emulator, queue + dead-letter queue, the three served
 * functions, the queue-trigger bridge) driven by a seeded schedule of events and faults, then checked.
 *
 * Invariants, checked at the end (see checkInvariants):
 * - converged: every target's backend exists once and its pool is the control-plane public IPs of the
 *   emulator's current state;
 * - accounted: every event produced (injected, sent, swept, invalid) got a final answer from the reconcile
 *   function (applied / noop / dead_lettered with a reason, the dead letter present in the DLQ) or was
 *   redriven to the DLQ by the queue itself; none lost; the reconcile queue is empty;
 * - no backend name duplicated at the end;
 * - no bad pool write at any moment: every pool write in the emulator's history (DeleteBackend aside) is
 *   non-empty and holds only IPs that, at the time of the write, were or had been control-plane IPs of
 *   *that* LB's cluster. "Desired at write time" is taken as "had been desired by then": a reconcile reads
 *   the servers, then writes; a replacement landing between the two makes its write one step stale, which
 *   the next event corrects. A worker IP, another cluster's IP, an IP of a server not yet created, or an
 *   empty pool is a bad write;
 * - no retry storm: API calls <= API_CALLS_PER_EVENT x events, deliveries <= DELIVERIES_PER_EVENT x events.
 */
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { faultBodies } from '../emulator';
import type { FaultSpec } from '../emulator';
import type { LocalStack } from '../local/stack';
import { startLocalStack } from '../local/stack';
import type { TriggerBridge } from '../local/trigger-bridge';
import { startTriggerBridge } from '../local/trigger-bridge';
import type { DeadLetterRecord } from '../shared/dead-letter';
import type { AnswerRecorder, RecordedAnswer } from './answer-recorder';
import { startAnswerRecorder } from './answer-recorder';
import { BACKEND, Fleet, ZONE } from './fleet';
import { createPrng } from './prng';
import type { FaultStep, Step } from './schedule';
import { buildSchedule } from './schedule';

/** Per event: ~3 reads + at most a few writes and readiness polls per attempt, a few attempts under chaos. */
export const API_CALLS_PER_EVENT = 15;
export const DELIVERIES_PER_EVENT = 6;
export const REQUEST_TIMEOUT_MS = 500;
const DEAD_LETTER_QUEUE_NAME = 'lbsync-dead-letter';

export interface ChaosOptions {
  seed: number;
  events: number;
  targets: number;
  /** Progress lines; silent when omitted. */
  log?: (line: string) => void;
  /** How long the final drain may take. */
  idleTimeoutMs?: number;
  /** Most events produced and not yet finally answered before the driver waits. */
  maxOutstanding?: number;
}

export type Terminal = 'applied' | 'noop' | 'dead_lettered' | 'redriven';

export interface ChaosReport {
  seed: number;
  scheduleHash: string;
  steps: number;
  /** Events produced: distinct event ids (and invalid bodies), sweeps' included. */
  events: number;
  faults: number;
  faultsByType: Record<string, number>;
  targets: number;
  converged: number;
  lost: number;
  lostEvents: string[];
  dupBackends: number;
  badPoolWrites: number;
  badPoolWriteSamples: string[];
  poolWrites: number;
  apiCalls: number;
  apiCallBound: number;
  deliveries: number;
  deliveryBound: number;
  outcomes: Record<string, number>;
  deadLetterReasons: Record<string, number>;
  handoffFailures: number;
  /** Dead letters sent in the instant before the driver deleted the DLQ, so gone with it (the function did its part). */
  destroyedByDriver: number;
  queueEmpty: boolean;
  violations: string[];
  durationMs: number;
  ok: boolean;
}

interface Produced {
  key: string;
  expect: 'valid' | 'invalid_event' | 'unknown_target';
  terminal?: Terminal;
  reason?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function summaryLine(r: ChaosReport): string {
  return `chaos: seed=${r.seed} events=${r.events} faults=${r.faults} converged=${r.converged}/${r.targets} lost=${r.lost} dup_backends=${r.dupBackends} bad_pool_writes=${r.badPoolWrites} api_calls=${r.apiCalls}`;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const schedule = buildSchedule(createPrng(options.seed), options);
  // The fleet draws from its own stream, so the schedule does not depend on how many ids the fleet needs.
  const fleet = new Fleet(options.targets, createPrng(options.seed ^ 0x5eed));
  log(`chaos: seed=${options.seed} targets=${options.targets} steps=${schedule.steps.length} planned_events=${schedule.plannedEvents} schedule=${schedule.hash}`);

  const stack = await startLocalStack({
    seed: fleet.seed(),
    targets: fleet.targets(),
    functionsFrom: 'source',
    instancePendingMs: 50,
    maxReceiveCount: 10,
    env: {
      LOG_LEVEL: 'silent',
      LBSYNC_RETRY_BASE_MS: '50',
      LBSYNC_RETRY_CAP_MS: '1000',
      LBSYNC_MAX_ATTEMPTS: '40',
      LBSYNC_MAX_HOLD_MS: '1500',
      LBSYNC_WAIT_BUDGET_MS: '1000',
      LBSYNC_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      LBSYNC_DUPLICATE_GRACE_MS: '1000',
    },
  });
  // The stack's own bridge is replaced by one that delivers through the answer recorder (same bridge code).
  await stack.bridge.stop();
  const recorder = await startAnswerRecorder(stack.functions.reconcile.url);
  const bridge = startTriggerBridge({
    queue: stack.events,
    queueUrl: stack.reconcileQueueUrl,
    functionUrl: recorder.url,
    maxInFlight: 10,
    visibilityTimeoutSeconds: 5,
  });
  const sqs = new SQSClient({
    endpoint: stack.queue.endpoint,
    region: stack.queue.region,
    credentials: { accessKeyId: stack.queue.settings.accessKeyId, secretAccessKey: stack.queue.settings.secretAccessKey },
  });

  const run = new ChaosRun(stack, bridge, recorder, sqs, fleet, log, options.maxOutstanding ?? 30);
  try {
    for (const [index, step] of schedule.steps.entries()) {
      if (step.gapMs > 0) await sleep(step.gapMs);
      await run.backpressure();
      await run.play(step);
      if ((index + 1) % 200 === 0) log(`chaos: step ${index + 1}/${schedule.steps.length}, ${run.produced.size} events, ${recorder.answers.length} answers`);
    }
    log('chaos: schedule played; faults off, LBs ready, draining');
    stack.emulator.clearFaults();
    for (const c of fleet.clusters) stack.emulator.setLbStatus(c.lbId, 'ready');
    const idleTimeoutMs = options.idleTimeoutMs ?? 180_000;
    await bridge.waitIdle({ quietMs: 1_000, timeoutMs: idleTimeoutMs });
    log('chaos: final sweep');
    await run.sweep();
    await bridge.waitIdle({ quietMs: 1_000, timeoutMs: idleTimeoutMs });
    const report = await run.report(options, schedule.hash, schedule.steps.length, started);
    if (process.env.CHAOS_DUMP) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(process.env.CHAOS_DUMP, JSON.stringify({ calls: stack.emulator.calls(), history: stack.emulator.history(), answers: recorder.answers, lbs: fleet.clusters.map((c) => ({ name: c.name, lbId: c.lbId })) }, null, 1));
    }
    return report;
  } finally {
    sqs.destroy();
    await bridge.stop();
    await recorder.stop();
    await stack.stop();
  }
}

class ChaosRun {
  readonly produced = new Map<string, Produced>();
  private readonly sweepsEnqueued = { count: 0 };
  readonly faultsByType: Record<string, number> = {};
  handoffFailures = 0;
  private readonly violations: string[] = [];
  private readonly finished = new Set<string>();
  /** Dead letters read out before the driver deletes the DLQ (deleting a queue deletes its messages). */
  private readonly savedDeadLetters: DeadLetterRecord[] = [];
  /** [from, to] during which a dead letter may have been sent to the DLQ just before the driver deleted it. */
  private readonly deletionWindows: [number, number][] = [];

  constructor(
    readonly stack: LocalStack,
    readonly bridge: TriggerBridge,
    readonly recorder: AnswerRecorder,
    readonly sqs: SQSClient,
    readonly fleet: Fleet,
    readonly log: (line: string) => void,
    readonly maxOutstanding: number,
  ) {
    recorder.onAnswer = (a) => {
      const key = answerKey(a);
      if (key && a.status === 200 && isTerminalOutcome(a.answer?.outcome)) this.finished.add(key);
    };
  }

  private expectEvent(key: string, expect: Produced['expect']): void {
    if (!this.produced.has(key)) this.produced.set(key, { key, expect });
  }

  async backpressure(): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (this.produced.size - this.finished.size > this.maxOutstanding && Date.now() < deadline) await sleep(20);
  }

  private event(id: string, cluster: number, extra: Record<string, unknown> = {}) {
    return { version: 1, id, source: 'manual', target: this.fleet.clusters[cluster]?.name, occurredAt: new Date().toISOString(), ...extra };
  }

  private async send(body: unknown): Promise<void> {
    await this.stack.events.send(this.stack.reconcileQueueUrl, typeof body === 'string' ? body : JSON.stringify(body));
  }

  private async inject(id: string, cluster: number, extra: Record<string, unknown> = {}): Promise<void> {
    const body = { id, target: this.fleet.clusters[cluster]?.name, ...extra };
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const answer = await this.stack.inject(body);
      if (answer.status === 202) {
        this.expectEvent(id, 'valid');
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

  async sweep(): Promise<void> {
    const answer = await this.stack.sweep({});
    const body = answer.body as { enqueued?: number };
    if (answer.status !== 200) this.violations.push(`sweep answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    this.sweepsEnqueued.count += body.enqueued ?? 0;
  }

  private fault(spec: FaultSpec): void {
    this.stack.emulator.addFault(spec);
  }

  async play(step: Step): Promise<void> {
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
      case 'replace': {
        const cluster = this.fleet.clusters[step.cluster];
        if (!cluster) return;
        const { oldId, next } = this.fleet.replace(cluster, step.slot, Date.now());
        this.stack.emulator.replaceServer(oldId, next);
        if (step.inject) await this.inject(step.inject, step.cluster, { source: 'instance-replacement' });
        return;
      }
      case 'fault':
        this.faultsByType[step.fault.type] = (this.faultsByType[step.fault.type] ?? 0) + 1;
        return this.playFault(step.fault);
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
        if (cluster) this.stack.emulator.setLbStatus(cluster.lbId, f.status, f.forMs);
        return;
      }
      case 'rate_limited':
        return this.fault({ operation: f.operation, ...faultBodies.tooManyRequests(f.resetSeconds) });
      case 'server_error':
        return this.fault({
          operation: f.operation,
          ...(f.status === 500 ? faultBodies.internal() : f.status === 503 ? faultBodies.serviceUnavailable() : { status: 502, body: { message: 'bad gateway' } }),
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
    }
  }

  /** Deletes the DLQ, sends an event that must be dead-lettered, waits for the 5xx, then restores the DLQ. */
  private async handoffFailure(body: string): Promise<void> {
    const url = this.stack.deadLetterQueueUrl;
    const attributes = await this.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['MessageRetentionPeriod'] }));
    const from = Date.now();
    this.savedDeadLetters.push(...(await drainAll(this.stack)));
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
      await this.sqs.send(new CreateQueueCommand({
        QueueName: DEAD_LETTER_QUEUE_NAME,
        Attributes: { MessageRetentionPeriod: attributes.Attributes?.MessageRetentionPeriod ?? '1209600' },
      }));
    }
  }

  async report(options: ChaosOptions, scheduleHash: string, steps: number, started: number): Promise<ChaosReport> {
    const { stack, fleet, recorder } = this;
    const violations = [...this.violations];
    const deadLetters = [...this.savedDeadLetters, ...(await drainAll(stack))];
    let destroyedByDriver = 0;

    // Sweeps' own events: learned from the deliveries, checked against what the sweeps said they enqueued.
    const sweepIds = new Set<string>();
    for (const a of recorder.answers) {
      const event = parseJson(a.request) as { id?: string; source?: string } | undefined;
      if (event?.source === 'sweep' && typeof event.id === 'string') sweepIds.add(event.id);
    }
    for (const id of sweepIds) this.expectEvent(id, 'valid');
    if (sweepIds.size !== this.sweepsEnqueued.count) violations.push(`sweeps enqueued ${this.sweepsEnqueued.count} events, ${sweepIds.size} were delivered`);

    // Final answers, then the dead-letter queue.
    const outcomes: Record<string, number> = {};
    const deadLetterReasons: Record<string, number> = {};
    const dlqKeys = new Map<string, string>();
    for (const record of deadLetters) {
      if (record.kind === 'lbsync.dead-letter') {
        const key = record.eventId ?? (record.rawBody !== undefined ? `raw:${record.rawBody}` : undefined);
        if (key) dlqKeys.set(key, record.reason);
        deadLetterReasons[record.reason] = (deadLetterReasons[record.reason] ?? 0) + 1;
      } else {
        // Redriven by the queue's RedrivePolicy: the raw message itself.
        const raw = (record as unknown as { __raw: string }).__raw;
        const event = parseJson(raw) as { id?: string } | undefined;
        const key = typeof event?.id === 'string' && this.produced.has(event.id) ? event.id : `raw:${raw}`;
        const item = this.produced.get(key);
        if (item && !item.terminal) Object.assign(item, { terminal: 'redriven', reason: 'queue_redrive' });
        deadLetterReasons.queue_redrive = (deadLetterReasons.queue_redrive ?? 0) + 1;
      }
    }
    for (const a of recorder.answers) {
      if (a.status !== 200 || !a.answer?.outcome) continue;
      outcomes[a.answer.outcome] = (outcomes[a.answer.outcome] ?? 0) + 1;
      const key = answerKey(a);
      const item = key ? this.produced.get(key) : undefined;
      if (!item || !isTerminalOutcome(a.answer.outcome)) continue;
      if (a.answer.outcome === 'dead_lettered') {
        const inWindow = this.deletionWindows.some(([from, to]) => a.at >= from && a.at <= to);
        if (!dlqKeys.has(item.key) && inWindow) destroyedByDriver += 1;
        else if (!dlqKeys.has(item.key)) violations.push(`${item.key}: answered dead_lettered (${a.answer.reason}) but no record in the dead-letter queue`);
        item.terminal = 'dead_lettered';
        item.reason = a.answer.reason;
      } else if (item.terminal !== 'dead_lettered') {
        item.terminal = a.answer.outcome as Terminal;
      }
    }
    const lostEvents: string[] = [];
    for (const item of this.produced.values()) {
      if (!item.terminal) {
        lostEvents.push(item.key);
        continue;
      }
      if (item.expect !== 'valid' && item.terminal !== 'redriven' && item.reason !== item.expect) {
        violations.push(`${item.key}: expected dead_lettered ${item.expect}, got ${item.terminal} ${item.reason ?? ''}`);
      }
      if (item.expect === 'valid' && item.terminal === 'dead_lettered' && item.reason !== 'permanent_error') {
        violations.push(`${item.key}: a valid event was dead-lettered (${item.reason})`);
      }
    }
    if (lostEvents.length > 0) violations.push(`${lostEvents.length} event(s) without a final outcome: ${lostEvents.slice(0, 5).join(', ')}`);

    const attributes = await stack.events.attributes(stack.reconcileQueueUrl);
    const queueEmpty = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'].every((n) => (attributes[n] ?? '0') === '0');
    if (!queueEmpty) violations.push(`the reconcile queue is not empty: ${JSON.stringify(attributes)}`);

    // Convergence and duplicates, from the emulator's state.
    const state = stack.emulator.dumpState() as {
      lbs: { id: string; backends: { name: string; pool: string[] }[] }[];
      servers: { tags: string[]; public_ips: { address: string }[] }[];
    };
    let converged = 0;
    let dupBackends = 0;
    for (const c of fleet.clusters) {
      const lb = state.lbs.find((l) => l.id === c.lbId);
      const backends = lb?.backends.filter((b) => b.name === BACKEND) ?? [];
      dupBackends += Math.max(0, backends.length - 1);
      const wanted = state.servers
        .filter((s) => s.tags.includes(`noprefix=kops.k8s.io/cluster=${c.name}`) && s.tags.includes('noprefix=kops.k8s.io/role=ControlPlane'))
        .flatMap((s) => s.public_ips.map((ip) => ip.address))
        .sort();
      const model = c.controlPlane.map((s) => s.ip).sort();
      if (JSON.stringify(wanted) !== JSON.stringify(model)) violations.push(`${c.name}: emulator servers ${wanted.join(',')} differ from the chaos model ${model.join(',')}`);
      const pool = [...(backends[0]?.pool ?? [])].sort();
      if (backends.length === 1 && JSON.stringify(pool) === JSON.stringify(wanted)) converged += 1;
      else violations.push(`${c.name}: not converged: ${backends.length} backend(s), pool [${pool.join(', ')}], wanted [${wanted.join(', ')}]`);
    }
    if (dupBackends > 0) violations.push(`${dupBackends} duplicated backend(s) at the end`);

    // Every pool ever written.
    const history = stack.emulator.history();
    const badPoolWriteSamples: string[] = [];
    let badPoolWrites = 0;
    for (const write of history) {
      if (write.deleted) continue;
      const problem = judgePoolWrite(fleet, write);
      if (problem) {
        badPoolWrites += 1;
        if (badPoolWriteSamples.length < 10) badPoolWriteSamples.push(`#${write.seq} ${write.operation} ${write.lbId} [${write.pool.join(', ')}]: ${problem}`);
      }
    }
    if (badPoolWrites > 0) violations.push(`${badPoolWrites} bad pool write(s): ${badPoolWriteSamples.slice(0, 3).join('; ')}`);

    const events = this.produced.size;
    const apiCalls = stack.emulator.calls().length;
    const apiCallBound = API_CALLS_PER_EVENT * events;
    if (apiCalls > apiCallBound) violations.push(`retry storm: ${apiCalls} API calls > ${apiCallBound} (${API_CALLS_PER_EVENT} per event)`);
    const deliveries = recorder.answers.length;
    const deliveryBound = DELIVERIES_PER_EVENT * events;
    if (deliveries > deliveryBound) violations.push(`retry storm: ${deliveries} deliveries > ${deliveryBound} (${DELIVERIES_PER_EVENT} per event)`);

    const faults = Object.values(this.faultsByType).reduce((a, b) => a + b, 0);
    return {
      seed: options.seed,
      scheduleHash,
      steps,
      events,
      faults,
      faultsByType: this.faultsByType,
      targets: fleet.clusters.length,
      converged,
      lost: lostEvents.length,
      lostEvents,
      dupBackends,
      badPoolWrites,
      badPoolWriteSamples,
      poolWrites: history.filter((w) => !w.deleted).length,
      apiCalls,
      apiCallBound,
      deliveries,
      deliveryBound,
      outcomes,
      deadLetterReasons,
      handoffFailures: this.handoffFailures,
      destroyedByDriver,
      queueEmpty,
      violations,
      durationMs: Date.now() - started,
      ok: violations.length === 0,
    };
  }
}

/** Why a pool write was bad, or undefined when it was fine (see the rule at the top of this file). */
export function judgePoolWrite(fleet: Fleet, write: { lbId: string; backendName: string; pool: string[]; at: number }): string | undefined {
  const cluster = fleet.byLbId(write.lbId);
  if (!cluster) return 'written to an LB outside the fleet';
  if (write.backendName !== BACKEND) return `written to an unexpected backend ${write.backendName}`;
  if (write.pool.length === 0) return 'emptied the pool';
  for (const ip of write.pool) {
    const since = cluster.controlPlaneSince.get(ip);
    if (since === undefined) return `${ip} was never a control-plane IP of ${cluster.name}`;
    if (since > write.at) return `${ip} was not yet a control-plane IP of ${cluster.name}`;
  }
  return undefined;
}

function isTerminalOutcome(outcome: string | undefined): boolean {
  return outcome === 'applied' || outcome === 'noop' || outcome === 'dead_lettered';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The event id an answer is about; for a body that is not an event, the body itself. */
function answerKey(a: RecordedAnswer): string | undefined {
  if (a.answer?.eventId) return a.answer.eventId;
  const event = parseJson(a.request) as { id?: unknown; target?: unknown } | undefined;
  if (a.answer?.reason === 'invalid_event' || !event || typeof event !== 'object') return `raw:${a.request}`;
  return typeof event.id === 'string' ? event.id : `raw:${a.request}`;
}

/** Every record in the dead-letter queue; a message the queue redrove itself is kept as { __raw }. */
async function drainAll(stack: LocalStack): Promise<DeadLetterRecord[]> {
  const records: DeadLetterRecord[] = [];
  for (;;) {
    const batch = await stack.events.receive(stack.deadLetterQueueUrl, { maxMessages: 10, waitSeconds: 0 });
    if (batch.length === 0) return records;
    for (const message of batch) {
      const parsed = parseJson(message.body) as DeadLetterRecord | undefined;
      records.push(parsed && parsed.kind === 'lbsync.dead-letter' ? parsed : ({ __raw: message.body } as unknown as DeadLetterRecord));
      await stack.events.delete(stack.deadLetterQueueUrl, message.receiptHandle);
    }
  }
}

export { ZONE };
