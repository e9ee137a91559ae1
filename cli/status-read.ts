// What `lbsync status` reads, never writes: per target the dry-run reconcile `lbsync plan` runs, then the LB's
// health check of every existing backend's members (ListBackendStats, one call per backend, shared with the
// plan's own read when a removal is planned); and the depth of both queues (GetQueueAttributes, one call each).
import type { EventQueue } from '../shared/adapters/queue';
import type { ApiCallCount, ScalewayGateway } from '../shared/adapters/scaleway';
import { filterMismatchWarning } from '../shared/core/discovery-check';
import type { LeftOutAnswer } from '../shared/core/model';
import type { MemberHealthView } from '../shared/core/rollout';
import { memberHealth } from '../shared/core/rollout';
import type { LbSyncError } from '../shared/errors/lbsync-error';
import type { ReconcileResult, ReconcileSettings } from '../shared/reconcile/reconcile-target';
import { reconcileTarget } from '../shared/reconcile/reconcile-target';
import { atLb } from '../shared/core/lb-identity';
import { healthReadOnce } from '../shared/reconcile/health-read-once';
import { readBackendHealth } from '../shared/reconcile/stage-removals';
import type { QueueEnv } from '../shared/platform/config';
import { newEventId } from '../shared/schemas/event';
import type { Target } from '../shared/schemas/target';
import type { LokiQuery } from './adapters/loki-query';
import { SHADOW_STATUS_RANGE, shadowWritesQuery } from '../cockpit/queries';
import type { DescribedError } from './output';
import { describeError } from './output';
import type { ShadowCount } from './status-view';

export interface TargetStatusRead {
  target: Target;
  /** The dry-run reconcile: the LB, the backends and the servers as read, and what a reconcile would do. */
  result: ReconcileResult;
  /** By backend name: the LB's health of each member, for every backend that exists and whose stats were read. */
  health: Map<string, Map<string, MemberHealthView>>;
  /** A target with several LBs: each LB's `health` and `healthError`, in the order of result.lbs (`health` is then empty). */
  lbHealth?: LbHealthRead[];
  /** Why the health could not be read (the backends were read, their health was not). */
  healthError?: LbSyncError;
  /** Every Scaleway API call this target's status cost. */
  apiCalls: ApiCallCount;
}

export interface LbHealthRead {
  health: Map<string, Map<string, MemberHealthView>>;
  healthError?: LbSyncError;
}

export async function readTargetStatus(target: Target, gateway: ScalewayGateway, settings: ReconcileSettings): Promise<TargetStatusRead> {
  const reads = healthReadOnce(gateway);
  const result = await reconcileTarget(target, { id: newEventId(), dryRun: true }, { gateway: reads.gateway, ...settings });
  // The plan names what its own health reads left out; the reads made here for the other backends are named below.
  const readByPlan = new Set(reads.read);
  const leftOut: LeftOutAnswer[] = [];
  // Each LB's backends, as its own steps see it (a one-LB target's is the target); a failed read stops that LB's.
  const parts = result.lbs
    ? result.lbs.map((part) => ({ view: atLb(target, part.loadBalancer), read: part }))
    : [{ view: target, read: result }];
  const healths: LbHealthRead[] = [];
  for (const { view, read } of parts) {
    const one: LbHealthRead = { health: new Map() };
    healths.push(one);
    const { lb } = read;
    if (!lb) continue;
    for (const [name, backend] of Object.entries(read.observedBackends ?? {})) {
      if (!backend) continue;
      try {
        const answer = await readBackendHealth(reads.gateway, view, lb, backend.id);
        one.health.set(name, memberHealth(answer.reports));
        if (!readByPlan.has(`${view.zone}/${lb.id}/${backend.id}`)) leftOut.push(...answer.leftOut);
      } catch (error) {
        one.healthError = error as LbSyncError;
        break;
      }
    }
  }
  const mismatch = filterMismatchWarning(leftOut);
  if (mismatch) result.warnings.push(mismatch);
  const healthError = healths.find((h) => h.healthError)?.healthError;
  return {
    target,
    result,
    health: result.lbs ? new Map() : (healths[0] as LbHealthRead).health,
    ...(result.lbs && { lbHealth: healths }),
    ...(healthError && { healthError }),
    apiCalls: gateway.calls(),
  };
}

/** A queue's messages as GetQueueAttributes counts them (approximate, as SQS says); null where it gave no count. */
export interface QueueDepth {
  /** ApproximateNumberOfMessages: waiting to be delivered. */
  waiting: number | null;
  /** ApproximateNumberOfMessagesNotVisible: delivered, not yet deleted (a reconcile running, or a dlq command reading). */
  inFlight: number | null;
}

export type QueueDepths = { reconcile: QueueDepth; deadLetter: QueueDepth } | { error: DescribedError };

const count = (value: string | undefined): number | null => {
  const n = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isInteger(n) && n >= 0 ? n : null;
};

async function depthOf(queue: EventQueue, url: string): Promise<QueueDepth> {
  const attributes = await queue.attributes(url);
  return { waiting: count(attributes.ApproximateNumberOfMessages), inFlight: count(attributes.ApproximateNumberOfMessagesNotVisible) };
}

export const QUEUE_HINT =
  'check SQS_ENDPOINT, SQS_ACCESS_KEY_ID / SQS_SECRET_ACCESS_KEY and the queue URLs (`lbsync provision` prints them), or leave the queues out with --no-queue';

/** Both queues' depths; a failure (variables missing, a queue that does not answer) is told in the snapshot. */
export async function readQueueDepths(access: () => QueueEnv & { queue: EventQueue }): Promise<QueueDepths> {
  try {
    const { queue, reconcileQueueUrl, deadLetterQueueUrl } = access();
    const [reconcile, deadLetter] = await Promise.all([depthOf(queue, reconcileQueueUrl), depthOf(queue, deadLetterQueueUrl)]);
    return { reconcile, deadLetter };
  } catch (error) {
    return { error: { ...describeError(error), hint: QUEUE_HINT } };
  }
}

/** Where a shadow count is read from: the logs data source, or why it cannot be (no token, no URL). */
export type ShadowSource = { query: LokiQuery } | { notRead: string; hint: string };

/**
 * A shadow deployment's count per target, read from its logs with the dashboard's own query: one instant query for
 * all targets. A target the logs do not name would have written 0 times; a failed read says so for every target.
 */
export async function readShadowCounts(source: ShadowSource, targets: readonly string[], atMs: number): Promise<Map<string, ShadowCount>> {
  const window = SHADOW_STATUS_RANGE;
  const each = (count: (target: string) => ShadowCount) => new Map(targets.map((t) => [t, count(t)]));
  if ('notRead' in source) return each(() => ({ window, notRead: source.notRead, hint: source.hint }));
  try {
    const samples = await source.query.instant(shadowWritesQuery(window), atMs);
    const byTarget = new Map(samples.map((sample) => [sample.labels.target, sample.value]));
    return each((target) => ({ window, wouldHaveWritten: byTarget.get(target) ?? 0 }));
  } catch (error) {
    const told = describeError(error);
    return each(() => ({
      window,
      notRead: `the logs data source did not answer: [${told.code}] ${told.message}`,
      ...(told.hint && { hint: told.hint }),
    }));
  }
}
