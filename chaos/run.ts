/**
 * The chaos run: the whole system (local stack: emulator, queue + dead-letter queue, the three served
 * functions, the queue-trigger bridge) driven by a seeded schedule of events and faults, then checked.
 *
 * This module starts the stack, lets the driver play the schedule (driver.ts), drains, collects what the
 * run left behind and builds the report from the accounting of every event (accounting.ts) and the
 * invariants on the system's state (invariants.ts).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { LocalStack } from '../local/stack';
import { startLocalStack } from '../local/stack';
import { startTriggerBridge } from '../local/trigger-bridge';
import { accountEvents } from './accounting';
import type { AnswerRecorder } from './answer-recorder';
import { startAnswerRecorder } from './answer-recorder';
import { drainDeadLetters } from './dead-letter-queue';
import { ChaosDriver } from './driver';
import { Fleet, ZONE } from './fleet';
import { checkConvergence, checkPoolWrites, checkQueueEmpty, checkRetryStorm, type EmulatorStateDump } from './invariants';
import { createPrng } from './prng';
import { buildSchedule } from './schedule';

export { API_CALLS_PER_EVENT, DELIVERIES_PER_EVENT, judgePoolWrite } from './invariants';
export type { Terminal } from './accounting';
export { ZONE };

export const REQUEST_TIMEOUT_MS = 500;

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
      LBSYNC_TRANSIENT_WAIT_MS: '300',
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

  const driver = new ChaosDriver({ stack, recorder, sqs, fleet, maxOutstanding: options.maxOutstanding ?? 30 });
  try {
    await driver.playSchedule(schedule.steps, log);
    log('chaos: schedule played; faults off, LBs ready, draining');
    stack.emulator.clearFaults();
    for (const c of fleet.clusters) stack.emulator.setLbStatus(c.lbId, 'ready');
    const idleTimeoutMs = options.idleTimeoutMs ?? 180_000;
    await bridge.waitIdle({ quietMs: 1_000, timeoutMs: idleTimeoutMs });
    log('chaos: final sweep');
    await driver.sweep();
    await bridge.waitIdle({ quietMs: 1_000, timeoutMs: idleTimeoutMs });

    const report = await collectReport({ options, scheduleHash: schedule.hash, steps: schedule.steps.length, started, stack, recorder, driver, fleet });
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

interface FinishedRun {
  options: ChaosOptions;
  scheduleHash: string;
  steps: number;
  started: number;
  stack: LocalStack;
  recorder: AnswerRecorder;
  driver: ChaosDriver;
  fleet: Fleet;
}

/** After the drain: reads out the dead letters, the queue, the emulator's state, history and call log, and judges them. */
async function collectReport({ options, scheduleHash, steps, started, stack, recorder, driver, fleet }: FinishedRun): Promise<ChaosReport> {
  const accounting = accountEvents({
    expected: driver.expected,
    answers: recorder.answers,
    deadLetters: [...driver.savedDeadLetters, ...(await drainDeadLetters(stack))],
    sweepsEnqueued: driver.sweepsEnqueued,
    deletionWindows: driver.deletionWindows,
  });
  const queue = checkQueueEmpty(await stack.events.attributes(stack.reconcileQueueUrl));
  const convergence = checkConvergence(fleet, stack.emulator.dumpState() as unknown as EmulatorStateDump);
  const poolWrites = checkPoolWrites(fleet, stack.emulator.history());
  const apiCalls = stack.emulator.calls().length;
  const deliveries = recorder.answers.length;
  const storm = checkRetryStorm({ events: accounting.events, apiCalls, deliveries });
  const violations = [
    ...driver.violations,
    ...accounting.violations,
    ...queue.violations,
    ...convergence.violations,
    ...poolWrites.violations,
    ...storm.violations,
  ];

  return {
    seed: options.seed,
    scheduleHash,
    steps,
    events: accounting.events,
    faults: Object.values(driver.faultsByType).reduce((a, b) => a + b, 0),
    faultsByType: driver.faultsByType,
    targets: fleet.clusters.length,
    converged: convergence.converged,
    lost: accounting.lostEvents.length,
    lostEvents: accounting.lostEvents,
    dupBackends: convergence.dupBackends,
    badPoolWrites: poolWrites.badPoolWrites,
    badPoolWriteSamples: poolWrites.badPoolWriteSamples,
    poolWrites: poolWrites.poolWrites,
    apiCalls,
    apiCallBound: storm.apiCallBound,
    deliveries,
    deliveryBound: storm.deliveryBound,
    outcomes: accounting.outcomes,
    deadLetterReasons: accounting.deadLetterReasons,
    handoffFailures: driver.handoffFailures,
    destroyedByDriver: accounting.destroyedByDriver,
    queueEmpty: queue.queueEmpty,
    violations,
    durationMs: Date.now() - started,
    ok: violations.length === 0,
  };
}
