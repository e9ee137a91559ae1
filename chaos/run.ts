/**
 * The chaos run: the whole system (local stack: emulator, queue + dead-letter queue, the three served
 * functions, the queue-trigger bridge) driven by a seeded schedule of events and faults, then checked.
 *
 * This module starts the stack, lets the driver play the schedule (driver.ts), drains, collects what the
 * run left behind and builds the report from the accounting of every event (accounting.ts) and the
 * invariants on the system's state (invariants.ts).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Handle } from '../shared/platform/function-shell';
import type { LocalStack } from '../local/stack';
import type { DeadLetterRecord } from '../shared/handlers/dead-letter';
import { startLocalStack } from '../local/stack';
import { serveFunction, type ServedFunction } from '../local/serve-functions';
import { startTriggerBridge } from '../local/trigger-bridge';
import { accountEvents } from './accounting';
import type { AnswerRecorder } from './answer-recorder';
import { startAnswerRecorder } from './answer-recorder';
import { drainDeadLetters } from './dead-letter-queue';
import { writeDump } from './dump';
import { ChaosDriver } from './driver';
import { checkAppliedWaits, checkEvidence, eventOfCall } from './evidence';
import { Fleet, ZONE } from './fleet';
import {
  byLbsync,
  checkConvergence,
  checkLeavingAdds,
  checkNeedlessWrites,
  checkPoolWrites,
  checkQueueEmpty,
  checkRetryStorm,
  checkShrinks,
  type EmulatorStateDump,
} from './invariants';
import { createPrng } from './prng';
import { buildSchedule } from './schedule';

export { API_CALLS_PER_EVENT, DELIVERIES_PER_EVENT, judgePoolWrite } from './invariants';
export type { Terminal } from './accounting';
export { ZONE };

export const REQUEST_TIMEOUT_MS = 500;

/**
 * The queue and retry settings a run uses (the retry delays are a chaos run's: base 50 ms, cap 1 s). ci: room to
 * recover from every fault (10 receives, a 20 s retry horizon, longer than any busy period the schedule makes),
 * so in runs of the default length no valid event is dead-lettered but for a permanent error (longer runs stack
 * enough faults on one event to outlast it, each attempt failing for a cause the call log shows). production: the deployed maxReceiveCount (4), and
 * a horizon (5 s) shorter than the schedule's stuck LB (7-8 s), so lb_stuck and crash faults really end in
 * retries_exhausted and queue_redrive. Either way, a retries_exhausted dead letter of a valid event is judged by
 * evidence (evidence.ts): each of its attempts shows the failure it answered, for a whole horizon.
 */
export const PROFILES = {
  ci: { maxReceiveCount: 10, retryHorizonMs: 20_000 },
  production: { maxReceiveCount: 4, retryHorizonMs: 5_000 },
} as const;
export type Profile = keyof typeof PROFILES;

/** The emulator's health checks in a chaos run: a new member passes 200 ms after it joins, a gone one fails 300 ms after. */
export const CHAOS_HEALTH = { healthPassAfterMs: 200, healthFailAfterMs: 300 } as const;

/** Every target keeps the default: at most one serving member leaves per write. */
const MAX_UNAVAILABLE = 1;

export interface ChaosOptions {
  seed: number;
  events: number;
  targets: number;
  /** Default ci. */
  profile?: Profile;
  /**
   * Serve this handler as the reconcile function instead of the real one: a test of the chaos run itself hands
   * it a build that lies (test/chaos/chaos-evidence.test.ts). Never used by `npm run chaos`.
   */
  reconcileHandler?: Handle;
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
  profile: Profile;
  targets: number;
  /** Measured once the schedule's last events are answered, before anything else runs. */
  converged: number;
  lost: number;
  lostEvents: string[];
  dupBackends: number;
  badPoolWrites: number;
  badPoolWriteSamples: string[];
  /** Pool writes that removed more serving members than maxUnavailable, or left none passing (as sent). */
  unsafeShrinks: number;
  unsafeShrinkSamples: string[];
  /** Pool writes the API committed after their client had given up (judged as sent). */
  lateCommits: number;
  /** Final answers without the evidence that backs them (evidence.ts). */
  unbackedAnswers: number;
  unbackedSamples: string[];
  backedAnswers: number;
  /** Writes of scw-lb-sync that left the backend as it was, nobody having changed it since their writer read it. */
  needlessWrites: number;
  needlessWriteSamples: string[];
  /** `applied` answers given before the emulator showed their write applied (the LB and every instance ready). */
  earlyApplied: number;
  earlyAppliedSamples: string[];
  /** Events inject refused (system fields, loopback addresses), none of which ever reached the queue or the API. */
  refusedAtInject: number;
  poolWrites: number;
  /** kOps' rolling updates the schedule played, kOps' own API calls (not in apiCalls), and its attempts that failed. */
  kopsRollingUpdates: number;
  kopsApiCalls: number;
  kopsFailures: string[];
  /** scw-lb-sync's API calls (kOps' are counted apart). */
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
  /** Where the run's dump was written: always when it failed, and when CHAOS_DUMP asked for one. */
  dumpPath?: string;
}

export function summaryLine(r: ChaosReport): string {
  return (
    `chaos: seed=${r.seed} events=${r.events} faults=${r.faults} converged=${r.converged}/${r.targets} lost=${r.lost} ` +
    `dup_backends=${r.dupBackends} bad_pool_writes=${r.badPoolWrites} unsafe_shrinks=${r.unsafeShrinks} unbacked_answers=${r.unbackedAnswers} api_calls=${r.apiCalls} ` +
    `needless_writes=${r.needlessWrites} early_applied=${r.earlyApplied}`
  );
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const profile = options.profile ?? 'ci';
  const settings = PROFILES[profile];
  const schedule = buildSchedule(createPrng(options.seed), options);
  // The fleet draws from its own stream, so the schedule does not depend on how many ids the fleet needs.
  const fleet = new Fleet(options.targets, createPrng(options.seed ^ 0x5eed));
  log(
    `chaos: seed=${options.seed} targets=${options.targets} profile=${profile} steps=${schedule.steps.length} planned_events=${schedule.plannedEvents} schedule=${schedule.hash}`,
  );

  const stack = await startLocalStack({
    seed: fleet.seed(),
    targets: fleet.targets(),
    functionsFrom: 'source',
    instancePendingMs: 50,
    maxReceiveCount: settings.maxReceiveCount,
    env: {
      LOG_LEVEL: 'silent',
      LBSYNC_RETRY_BASE_MS: '50',
      LBSYNC_RETRY_CAP_MS: '1000',
      LBSYNC_RETRY_HORIZON_MS: String(settings.retryHorizonMs),
      LBSYNC_MAX_HOLD_MS: '1500',
      LBSYNC_WAIT_BUDGET_MS: '1000',
      LBSYNC_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      LBSYNC_DUPLICATE_GRACE_MS: '1000',
      LBSYNC_TRANSIENT_WAIT_MS: '300',
    },
  });
  // kOps' servers boot and terminate on the chaos clock (the recorded 5 s and 15 s, 50 and 75 times shorter).
  stack.emulator.setBehaviours({ ...CHAOS_HEALTH, poweronMs: 100, terminateMs: 200 });
  // The stack's own bridge is replaced by one that delivers through the answer recorder (same bridge code).
  await stack.bridge.stop();
  let substitute: ServedFunction | undefined;
  if (options.reconcileHandler) substitute = await serveFunction('reconcile', options.reconcileHandler);
  const recorder = await startAnswerRecorder((substitute ?? stack.functions.reconcile).url);
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
  const dumpOf = () => ({ seed: options.seed, stack, answers: recorder.answers, fleet, steps: schedule.steps });
  try {
    await driver.playSchedule(schedule.steps, log);
    log('chaos: schedule played; draining');
    const idleTimeoutMs = options.idleTimeoutMs ?? 180_000;
    await bridge.waitIdle({ quietMs: 1_000, timeoutMs: idleTimeoutMs });
    const settle = schedule.steps.at(-1);
    if (settle?.kind === 'settle') {
      log('chaos: settle: faults off, one event per target');
      await driver.settle(settle.ids);
      await bridge.waitIdle({ quietMs: 1_000, timeoutMs: idleTimeoutMs });
    }

    const { report, deadLetters } = await collectReport({
      options,
      profile,
      scheduleHash: schedule.hash,
      steps: schedule.steps.length,
      started,
      stack,
      recorder,
      driver,
      fleet,
    });
    if (!report.ok || process.env.CHAOS_DUMP) report.dumpPath = writeDump({ ...dumpOf(), deadLetters, violations: report.violations });
    return report;
  } catch (error) {
    // A run that did not finish (a drain that never went idle) is a failure too: its dump is written all the same.
    let path: string;
    try {
      path = writeDump({ ...dumpOf(), violations: driver.violations, failure: (error as Error)?.stack ?? String(error) });
    } catch {
      throw error;
    }
    throw new Error(`${(error as Error)?.message ?? String(error)} (dump: ${path})`, { cause: error });
  } finally {
    sqs.destroy();
    await bridge.stop();
    await recorder.stop();
    await substitute?.stop();
    await stack.stop();
  }
}

interface FinishedRun {
  options: ChaosOptions;
  profile: Profile;
  scheduleHash: string;
  steps: number;
  started: number;
  stack: LocalStack;
  recorder: AnswerRecorder;
  driver: ChaosDriver;
  fleet: Fleet;
}

/** After the drain: reads out the dead letters, the queue, the emulator's state, history and call log, and judges them. */
async function collectReport({
  options,
  profile,
  scheduleHash,
  steps,
  started,
  stack,
  recorder,
  driver,
  fleet,
}: FinishedRun): Promise<{ report: ChaosReport; deadLetters: DeadLetterRecord[] }> {
  // Convergence first: nothing has run since the schedule's last events were answered.
  const convergence = checkConvergence(fleet, stack.emulator.dumpState() as unknown as EmulatorStateDump);
  const deadLetters = [...driver.savedDeadLetters, ...(await drainDeadLetters(stack))];
  const assertionsOvertaken = new Set(
    [...driver.assertions]
      .filter(([, a]) => a.ips.some((ip) => (fleet.clusters[a.cluster]?.leftAt.get(ip) ?? 0) >= a.at))
      .map(([id]) => id),
  );
  const accounting = accountEvents({
    expected: driver.expected,
    answers: recorder.answers,
    deadLetters,
    sweepsEnqueued: driver.sweepsEnqueued,
    assertionsOvertaken,
  });
  const calls = stack.emulator.calls();
  const lbOfTarget = (target: string) => fleet.clusters.find((c) => c.name === target)?.lbId;
  const evidence = checkEvidence({
    answers: recorder.answers,
    calls,
    deadLetters,
    deletionWindows: driver.deletionWindows,
    exhausted: {
      // Valid events: a hostile one, or one whose asserted address left, runs out of retries for another reason.
      mustShow: (id) => (driver.expected.get(id) ?? 'valid') === 'valid' && !assertionsOvertaken.has(id),
      busyWindows: driver.busyWindows,
      lbOfTarget,
      horizonMs: PROFILES[profile].retryHorizonMs,
    },
  });
  const queue = checkQueueEmpty(await stack.events.attributes(stack.reconcileQueueUrl));
  const history = stack.emulator.history();
  // scw-lb-sync's writes are judged; kOps' are the yardstick (its rolling update writes workers in by design).
  const poolWrites = checkPoolWrites(fleet, history.filter(byLbsync));
  const leavingAdds = checkLeavingAdds(history, calls, driver.leaving);
  const shrinks = checkShrinks(history, calls, MAX_UNAVAILABLE, byLbsync);
  const needless = checkNeedlessWrites(history, calls, recorder.answers);
  const waits = checkAppliedWaits(recorder.answers, calls, lbOfTarget);
  const apiCalls = calls.filter(byLbsync).length;
  const deliveries = recorder.answers.length;
  const storm = checkRetryStorm({ events: accounting.events, apiCalls, deliveries });
  // What inject refused never went further: no delivery, no API call carries its id.
  const leaked = [...driver.refusedAtInject].filter(
    (id) =>
      recorder.answers.some((a) => a.answer?.eventId === id || a.request.includes(`"${id}"`)) || calls.some((c) => eventOfCall(c) === id),
  );
  const violations = [
    ...driver.violations,
    ...accounting.violations,
    ...(evidence.unbacked > 0
      ? [`${evidence.unbacked} answer(s) without evidence: ${evidence.unbackedSamples.slice(0, 3).join('; ')}`]
      : []),
    ...queue.violations,
    ...convergence.violations,
    ...poolWrites.violations,
    ...leavingAdds.violations,
    ...shrinks.violations,
    ...needless.violations,
    ...(waits.early > 0
      ? [`${waits.early} early answer(s) applied, before the LB showed the write applied: ${waits.samples.slice(0, 3).join('; ')}`]
      : []),
    ...storm.violations,
    ...(leaked.length > 0 ? [`refused by inject, yet delivered or used: ${leaked.slice(0, 3).join(', ')}`] : []),
  ];

  const report: ChaosReport = {
    seed: options.seed,
    scheduleHash,
    steps,
    events: accounting.events,
    faults: Object.values(driver.faultsByType).reduce((a, b) => a + b, 0),
    faultsByType: driver.faultsByType,
    profile,
    targets: fleet.clusters.length,
    converged: convergence.converged,
    lost: accounting.lostEvents.length,
    lostEvents: accounting.lostEvents,
    dupBackends: convergence.dupBackends,
    badPoolWrites: poolWrites.badPoolWrites + leavingAdds.bad,
    badPoolWriteSamples: [...poolWrites.badPoolWriteSamples, ...leavingAdds.samples],
    unsafeShrinks: shrinks.unsafeShrinks,
    unsafeShrinkSamples: shrinks.samples,
    lateCommits: shrinks.lateCommits,
    unbackedAnswers: evidence.unbacked,
    unbackedSamples: evidence.unbackedSamples,
    backedAnswers: evidence.backed,
    needlessWrites: needless.needless,
    needlessWriteSamples: needless.samples,
    earlyApplied: waits.early,
    earlyAppliedSamples: waits.samples,
    refusedAtInject: driver.refusedAtInject.size,
    poolWrites: poolWrites.poolWrites,
    kopsRollingUpdates: driver.kopsRuns,
    kopsApiCalls: calls.length - apiCalls,
    kopsFailures: driver.kopsFailures,
    apiCalls,
    apiCallBound: storm.apiCallBound,
    deliveries,
    deliveryBound: storm.deliveryBound,
    outcomes: accounting.outcomes,
    deadLetterReasons: accounting.deadLetterReasons,
    handoffFailures: driver.handoffFailures,
    destroyedByDriver: evidence.destroyedByDriver,
    queueEmpty: queue.queueEmpty,
    violations,
    durationMs: Date.now() - started,
    ok: violations.length === 0,
  };
  return { report, deadLetters };
}
