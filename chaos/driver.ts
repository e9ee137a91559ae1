/**
 * Plays a chaos schedule against the running local stack: events (injected, sent, duplicated, reordered,
 * bursts, invalid, unknown target), sweeps, server replacements and API faults, with backpressure on the
 * events not yet finally answered. Records what it produced and what went wrong while playing; the
 * judging is left to accounting.ts and invariants.ts.
 */
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { faultBodies } from '../emulator';
import type { FaultSpec } from '../emulator';
import type { LocalStack } from '../local/stack';
import type { DeadLetterRecord } from '../shared/dead-letter';
import type { AnswerRecorder } from './answer-recorder';
import { answerKey, isTerminalOutcome } from './answer-key';
import { drainDeadLetters } from './dead-letter-queue';
import { BACKEND, type Fleet } from './fleet';
import type { FaultStep, Step } from './schedule';

const DEAD_LETTER_QUEUE_NAME = 'lbsync-dead-letter';

/** What the final answer to a produced event must be: processed, or dead-lettered for that reason. */
export type ExpectedOutcome = 'valid' | 'invalid_event' | 'unknown_target';

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
  private readonly finished = new Set<string>();
  /** Rate limits alternate between the gateway's real 429 (no reset time) and the JSON one with reset_seconds. */
  private rateLimits = 0;
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

  async playSchedule(steps: Step[], log: (line: string) => void): Promise<void> {
    for (const [index, step] of steps.entries()) {
      if (step.gapMs > 0) await sleep(step.gapMs);
      await this.backpressure();
      await this.play(step);
      if ((index + 1) % 200 === 0) log(`chaos: step ${index + 1}/${steps.length}, ${this.expected.size} events, ${this.recorder.answers.length} answers`);
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

  private fault(spec: FaultSpec): void {
    this.stack.emulator.addFault(spec);
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
        this.rateLimits += 1;
        return this.fault({ operation: f.operation, ...(this.rateLimits % 2 === 1 ? faultBodies.rateLimited() : faultBodies.tooManyRequests(f.resetSeconds)) });
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
      await this.sqs.send(new CreateQueueCommand({
        QueueName: DEAD_LETTER_QUEUE_NAME,
        Attributes: { MessageRetentionPeriod: attributes.Attributes?.MessageRetentionPeriod ?? '1209600' },
      }));
    }
  }
}
