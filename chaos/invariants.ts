/**
 * The end-of-run invariants that judge the system's state, as pure checks returning violations:
 * - converged: every target's backend exists once and its pool is the public IPs of the emulator's running,
 *   role-tagged control planes (stopped, stopping, untagged and address-less ones are out);
 * - no backend name duplicated at the end;
 * - no bad pool write at any moment: every pool write in the emulator's history (DeleteBackend aside) is
 *   non-empty and holds only IPs that, at the time of the write, were or had been control-plane IPs of
 *   *that* LB's cluster. "Desired at write time" is taken as "had been desired by then": a reconcile reads
 *   the servers, then writes; a replacement landing between the two makes its write one step stale, which
 *   the next event corrects. A worker IP, another cluster's IP, an IP of a server not yet created, or an
 *   empty pool (unless the target allows one and no member passed) is a bad write;
 * - no unsafe shrink: no pool write removed more serving members than maxUnavailable, or left none passing
 *   (judged by the write's own record of the LB's health checks and the servers' states, see judgeShrink);
 * - no leaving server added: no pool write adds a server kOps had marked needs-update (the reconcile's own read of
 *   the servers came after the mark) while another member passed its health check (checkLeavingAdds);
 * - no needless write: no write of scw-lb-sync left the backend as it was (its pool as a set, its settings, its
 *   health check), unless another write changed the backend after its writer could have read it (checkNeedlessWrites);
 * pool writes are scw-lb-sync's (its User-Agent): kOps' rolling update writes workers and deregisters serving members
 * by design, and is the yardstick, not the judged;
 * - no retry storm: API calls <= API_CALLS_PER_EVENT x events, deliveries <= DELIVERIES_PER_EVENT x events;
 * - the reconcile queue is empty.
 * (That every event got a final answer is accounting.ts.)
 */
import type { CallRecord, PoolWrite } from '../emulator';
import { LBSYNC_USER_AGENT_MARKER } from '../shared/outbound/user-agent';
import type { RecordedAnswer } from './answer-recorder';
import { answerKey } from './answer-key';
import { eventOfCall } from './evidence';
import { BACKEND, type Fleet } from './fleet';

/** A write or call scw-lb-sync made (its User-Agent), not kOps' (kOps' rolling update writes the same pools). */
export const byLbsync = (record: { userAgent?: string }): boolean => (record.userAgent ?? '').includes(LBSYNC_USER_AGENT_MARKER);

/**
 * Per event: ~3 reads + a health read, at most a few writes and readiness polls per attempt, a few attempts under
 * chaos; some events retry by design until their retries run out or the world lets them through (a hostile
 * event's addresses never come; an LB stuck migrating for 7 s; a removal waiting for new members' checks), which
 * in a short run on few targets lifts the average to 12-16. A retry storm costs far more.
 */
export const API_CALLS_PER_EVENT = 20;
export const DELIVERIES_PER_EVENT = 6;

/** The part of the emulator's state dump the convergence check reads. */
export interface EmulatorStateDump {
  lbs: { id: string; backends: { name: string; pool: string[] }[] }[];
  servers: { tags: string[]; state: string; public_ips: { address: string }[] }[];
}

const OUT_OF_POOL_STATES = new Set(['stopped', 'stopped in place', 'stopping']);

export function checkConvergence(fleet: Fleet, state: EmulatorStateDump): { converged: number; dupBackends: number; violations: string[] } {
  const violations: string[] = [];
  let converged = 0;
  let dupBackends = 0;
  for (const c of fleet.clusters) {
    const lb = state.lbs.find((l) => l.id === c.lbId);
    const backends = lb?.backends.filter((b) => b.name === BACKEND) ?? [];
    dupBackends += Math.max(0, backends.length - 1);
    const wanted = state.servers
      .filter(
        (s) =>
          s.tags.includes(`noprefix=kops.k8s.io/cluster=${c.name}`) &&
          s.tags.includes('noprefix=kops.k8s.io/role=ControlPlane') &&
          !OUT_OF_POOL_STATES.has(s.state),
      )
      .flatMap((s) => s.public_ips.map((ip) => ip.address))
      .sort();
    const model = fleet.desiredPool(c);
    if (JSON.stringify(wanted) !== JSON.stringify(model))
      violations.push(`${c.name}: emulator servers ${wanted.join(',')} differ from the chaos model ${model.join(',')}`);
    const pool = [...(backends[0]?.pool ?? [])].sort();
    if (backends.length === 1 && JSON.stringify(pool) === JSON.stringify(wanted)) converged += 1;
    else
      violations.push(`${c.name}: not converged: ${backends.length} backend(s), pool [${pool.join(', ')}], wanted [${wanted.join(', ')}]`);
  }
  if (dupBackends > 0) violations.push(`${dupBackends} duplicated backend(s) at the end`);
  return { converged, dupBackends, violations };
}

/** Why a pool write was bad, or undefined when it was fine (see the rule at the top of this file). */
export function judgePoolWrite(
  fleet: Fleet,
  write: Pick<PoolWrite, 'lbId' | 'backendName' | 'pool' | 'at'> & Partial<Pick<PoolWrite, 'poolBefore' | 'health' | 'operation'>>,
): string | undefined {
  const cluster = fleet.byLbId(write.lbId);
  if (!cluster) return 'written to an LB outside the fleet';
  if (write.backendName !== BACKEND) return `written to an unexpected backend ${write.backendName}`;
  if (write.pool.length === 0) {
    // A target that allows an empty pool may write one once no member passes (the last passing member stays).
    const passing = (write.poolBefore ?? []).filter((ip) => write.health?.[ip] === 'passed');
    if (!fleet.allowsEmptyPool(cluster)) return 'emptied the pool';
    if (passing.length > 0) return `emptied the pool while ${passing.join(', ')} passed`;
    return undefined;
  }
  // A write of its changes alone (AddBackendServers, RemoveBackendServers) answers for what it added, not for what
  // others had put there (kOps' apply writes the workers in).
  const changesOnly = write.operation === 'AddBackendServers' || write.operation === 'RemoveBackendServers';
  const written = changesOnly ? write.pool.filter((ip) => !(write.poolBefore ?? []).includes(ip)) : write.pool;
  for (const ip of written) {
    const since = cluster.controlPlaneSince.get(ip);
    if (since === undefined) return `${ip} was never a control-plane IP of ${cluster.name}`;
    if (since > write.at) return `${ip} was not yet a control-plane IP of ${cluster.name}`;
  }
  return undefined;
}

/** Every pool ever written, judged. */
export function checkPoolWrites(
  fleet: Fleet,
  history: readonly PoolWrite[],
): { poolWrites: number; badPoolWrites: number; badPoolWriteSamples: string[]; violations: string[] } {
  const violations: string[] = [];
  const badPoolWriteSamples: string[] = [];
  let badPoolWrites = 0;
  for (const write of history) {
    if (write.deleted) continue;
    const problem = judgePoolWrite(fleet, write);
    if (problem) {
      badPoolWrites += 1;
      if (badPoolWriteSamples.length < 10)
        badPoolWriteSamples.push(`#${write.seq} ${write.operation} ${write.lbId} [${write.pool.join(', ')}]: ${problem}`);
    }
  }
  if (badPoolWrites > 0) violations.push(`${badPoolWrites} bad pool write(s): ${badPoolWriteSamples.slice(0, 3).join('; ')}`);
  return { poolWrites: history.filter((w) => !w.deleted).length, badPoolWrites, badPoolWriteSamples, violations };
}

const GONE_SERVER_STATES = new Set(['stopped', 'stopped in place', 'stopping']);

/**
 * Why a pool write shrank the pool unsafely, or undefined: it removed more serving members than allowed, or
 * removed a serving member and left no passing one. Serving, by the write's own record (the LB's health check
 * and the Instance state at that moment): not `failed`, and its server not stopped or stopping.
 */
export function judgeShrink(
  write: Pick<PoolWrite, 'pool' | 'poolBefore' | 'health' | 'serverStates' | 'deleted'>,
  maxUnavailable: number,
): string | undefined {
  if (write.deleted) return undefined;
  const after = new Set(write.pool);
  const serving = (ip: string) => write.health[ip] !== 'failed' && !GONE_SERVER_STATES.has(write.serverStates[ip] ?? 'none');
  const removedServing = write.poolBefore.filter((ip) => !after.has(ip) && serving(ip));
  if (removedServing.length > maxUnavailable)
    return `removed ${removedServing.length} serving members (${removedServing.join(', ')}), more than maxUnavailable ${maxUnavailable}`;
  const passingBefore = write.poolBefore.some((ip) => write.health[ip] === 'passed');
  if (removedServing.length > 0 && passingBefore && !write.pool.some((ip) => write.health[ip] === 'passed')) {
    return `removed ${removedServing.join(', ')} and left no passing member`;
  }
  return undefined;
}

/**
 * Every pool write judged by judgeShrink, against the pool as it stood when the write was sent: the writer decided
 * on what it had read, and a write the API commits later (after other writes, or after its client gave up: the
 * slow_commit fault) cannot be judged on a pool its writer could not have known. Such late commits are counted
 * apart. The earliest write of the same backend committed at or after the sending holds the pool (and the LB's
 * health of it) as it was then.
 */
/** A write as its writer decided it: the pool (and the LB's health of it) when it was sent, not when it committed. */
function asSent(history: readonly PoolWrite[], index: number, sentAt: number): PoolWrite {
  const write = history[index] as PoolWrite;
  const reference = history.slice(0, index + 1).find((w) => w.backendId === write.backendId && w.at >= sentAt) ?? write;
  return {
    ...write,
    poolBefore: reference.poolBefore,
    health: { ...reference.health, ...write.health },
    serverStates: { ...reference.serverStates, ...write.serverStates },
  };
}

export function checkShrinks(
  history: readonly PoolWrite[],
  calls: readonly Pick<CallRecord, 'seq' | 'at' | 'status'>[],
  maxUnavailable: number,
  judged: (write: PoolWrite) => boolean = () => true,
): { unsafeShrinks: number; samples: string[]; lateCommits: number; violations: string[] } {
  const bySeq = new Map(calls.map((c) => [c.seq, c]));
  const samples: string[] = [];
  let unsafeShrinks = 0;
  let lateCommits = 0;
  history.forEach((write, index) => {
    if (!judged(write)) return;
    const call = bySeq.get(write.seq);
    if (call?.status === 0) lateCommits += 1;
    const sent = asSent(history, index, call?.at ?? write.at);
    const problem = judgeShrink(sent, maxUnavailable);
    if (!problem) return;
    unsafeShrinks += 1;
    if (samples.length < 10)
      samples.push(
        `#${write.seq} ${write.operation} ${write.lbId} [${sent.poolBefore.join(', ')}] -> [${write.pool.join(', ')}]: ${problem}`,
      );
  });
  return {
    unsafeShrinks,
    samples,
    lateCommits,
    violations: unsafeShrinks > 0 ? [`${unsafeShrinks} unsafe shrink(s): ${samples.slice(0, 3).join('; ')}`] : [],
  };
}

/**
 * Every write of scw-lb-sync that changed nothing (the emulator's record of what it changed is empty), judged against
 * the backend as the write found it when it was applied. A write is needless by construction only if nobody changed
 * the backend between its writer's read and the write: another write committed in between (kOps', an operator's,
 * another delivery's, or a write of its own that committed after its client gave up) excuses it. Its writer read the
 * backend during the delivery that made the write (the calls of one event carry its id in their User-Agent), so any
 * other write to the backend committed after that delivery began counts as in between (one of the same delivery too:
 * the calls of two overlapping deliveries of one event cannot be told apart, and a judge must never blame a write its
 * writer could not have avoided); a write with no delivery found is judged from the first call made for its event.
 */
export function checkNeedlessWrites(
  history: readonly PoolWrite[],
  calls: readonly CallRecord[],
  answers: readonly RecordedAnswer[],
  judged: (write: PoolWrite) => boolean = byLbsync,
): { needless: number; samples: string[]; violations: string[] } {
  const bySeq = new Map(calls.map((c) => [c.seq, c]));
  const firstCall = new Map<string, number>();
  for (const c of calls) {
    const event = eventOfCall(c);
    if (event && !firstCall.has(event)) firstCall.set(event, c.at);
  }
  const samples: string[] = [];
  let needless = 0;
  history.forEach((write, index) => {
    if (!judged(write) || write.changed.length > 0) return;
    const call = bySeq.get(write.seq);
    const event = call && eventOfCall(call);
    const sentAt = call?.at ?? write.at;
    const deliveries = answers.filter((a) => event !== undefined && answerKey(a) === event && a.startedAt <= sentAt && a.at >= sentAt);
    const since = deliveries.length > 0 ? Math.min(...deliveries.map((a) => a.startedAt)) : (firstCall.get(event ?? '') ?? sentAt);
    const excused = history.slice(0, index).some((other) => other.backendId === write.backendId && other.at >= since);
    if (excused) return;
    needless += 1;
    if (samples.length < 10)
      samples.push(
        `#${write.seq} ${write.operation} ${write.lbId} [${write.pool.join(', ')}] by ${event ?? '?'}: the backend was already so`,
      );
  });
  return {
    needless,
    samples,
    violations: needless > 0 ? [`${needless} needless write(s): ${samples.slice(0, 3).join('; ')}`] : [],
  };
}

/** When an address was marked leaving (kOps' needs-update), until its server left. */
export type LeavingMarks = ReadonlyMap<string, { from: number; to: number }>;

/**
 * Every write of scw-lb-sync that added an address marked leaving while another member passed the LB's check (as
 * sent). Only a mark its reconcile could see counts: one made before that reconcile's last ListServers before the
 * write (the calls of one event carry its id in their User-Agent).
 */
export function checkLeavingAdds(
  history: readonly PoolWrite[],
  calls: readonly CallRecord[],
  marks: LeavingMarks,
): { bad: number; samples: string[]; violations: string[] } {
  const bySeq = new Map(calls.map((c) => [c.seq, c]));
  const samples: string[] = [];
  let bad = 0;
  history.forEach((write, index) => {
    if (!byLbsync(write) || write.deleted) return;
    const call = bySeq.get(write.seq);
    const event = call && eventOfCall(call);
    const read = event
      ? calls.filter((c) => c.operation === 'ListServers' && c.seq < write.seq && eventOfCall(c) === event).at(-1)
      : undefined;
    const readAt = read?.at ?? call?.at ?? write.at;
    const sent = asSent(history, index, call?.at ?? write.at);
    for (const ip of write.pool.filter((a) => !sent.poolBefore.includes(a))) {
      const mark = marks.get(ip);
      if (!mark || readAt < mark.from || readAt >= mark.to) continue;
      const passing = sent.poolBefore.filter((o) => o !== ip && sent.health[o] === 'passed');
      if (passing.length === 0) continue;
      bad += 1;
      if (samples.length < 10)
        samples.push(
          `#${write.seq} ${write.operation} ${write.lbId}: added ${ip}, marked needs-update, while ${passing.join(', ')} passed`,
        );
    }
  });
  return {
    bad,
    samples,
    violations: bad > 0 ? [`${bad} bad pool write(s) adding a leaving server: ${samples.slice(0, 3).join('; ')}`] : [],
  };
}

export function checkRetryStorm(counts: { events: number; apiCalls: number; deliveries: number }): {
  apiCallBound: number;
  deliveryBound: number;
  violations: string[];
} {
  const { events, apiCalls, deliveries } = counts;
  const violations: string[] = [];
  const apiCallBound = API_CALLS_PER_EVENT * events;
  if (apiCalls > apiCallBound) violations.push(`retry storm: ${apiCalls} API calls > ${apiCallBound} (${API_CALLS_PER_EVENT} per event)`);
  const deliveryBound = DELIVERIES_PER_EVENT * events;
  if (deliveries > deliveryBound)
    violations.push(`retry storm: ${deliveries} deliveries > ${deliveryBound} (${DELIVERIES_PER_EVENT} per event)`);
  return { apiCallBound, deliveryBound, violations };
}

/** From the reconcile queue's attributes: nothing visible, in flight or delayed. */
export function checkQueueEmpty(attributes: Record<string, string>): { queueEmpty: boolean; violations: string[] } {
  const queueEmpty = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'].every(
    (n) => (attributes[n] ?? '0') === '0',
  );
  return { queueEmpty, violations: queueEmpty ? [] : [`the reconcile queue is not empty: ${JSON.stringify(attributes)}`] };
}
