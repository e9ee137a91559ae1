/**
 * Answers checked against evidence, not taken at their word. Every final answer of the reconcile function is
 * matched with what independently shows it happened:
 * - `applied`: a write the emulator answered 2xx, made for that event (the User-Agent of every call made for an
 *   event ends in ` event/<id>`, and the emulator's call log keeps it) while that delivery was under way; or a
 *   DeleteBackend of a duplicate answered 404, which the reconciler counts as done (another reconcile removed it);
 * - `noop`: the reads that prove the pool was in sync, made for that event during that delivery: the LB
 *   (ListLbs or GetLb), its backends (ListBackends) and the servers (ListServers), each answered 2xx;
 * - `dead_lettered`: its record (by recordId) in the dead-letter queue; for `retries_exhausted` (of an event the
 *   caller says must show it), also that every delivery that failed it (answered retry_scheduled with an error, or
 *   this dead letter) shows the failure it answered in the calls made for it (TRANSIENT_EVIDENCE: the LB read while
 *   the driver had it pending or migrating, or a 409, for a busy LB; the 429, 5xx or unanswered call; the health read
 *   behind a held removal...); and that the retry horizon had passed since its first attempt.
 * Each call or record backs one answer only. An answer without its evidence is an unbacked answer: a build that
 * answered `noop` without looking, or `applied` without writing, shows up here and not as "lost=0".
 *
 * An `applied` that came before the emulator showed its write applied is an early answer (checkAppliedWaits): after
 * the write, the LB read again for that event must have shown the LB and every one of its instances `ready`.
 */
import type { CallRecord, ShownLb } from '../emulator';
import type { DeadLetterRecord } from '../shared/handlers/dead-letter';
import type { RecordedAnswer } from './answer-recorder';
import { answerKey } from './answer-key';

export interface EvidenceInput {
  answers: readonly RecordedAnswer[];
  calls: readonly CallRecord[];
  deadLetters: readonly DeadLetterRecord[];
  /** When the driver had the dead-letter queue deleted: a dead letter sent then went with it (the function did its part). */
  deletionWindows: readonly [number, number][];
  /** retries_exhausted is judged only for the events this says must show it (valid events); none without it. */
  exhausted?: ExhaustedEvidence;
}

/** What a retries_exhausted dead letter is judged by. */
export interface ExhaustedEvidence {
  mustShow: (eventId: string) => boolean;
  /** When each LB was busy, by LB id (the driver's record). */
  busyWindows: ReadonlyMap<string, readonly (readonly [number, number])[]>;
  lbOfTarget: (target: string) => string | undefined;
  /** LBSYNC_RETRY_HORIZON_MS of the run. */
  horizonMs: number;
}

export interface EvidenceReport {
  /** Final answers matched with their evidence. */
  backed: number;
  unbacked: number;
  unbackedSamples: string[];
  /** Dead letters answered while the driver had deleted the dead-letter queue. */
  destroyedByDriver: number;
}

const EVENT_TAG = / event\/([A-Za-z0-9._:-]+)$/;
const NOOP_PROOF: readonly (readonly string[])[] = [['ListLbs', 'GetLb'], ['ListBackends'], ['ListServers']];
/** The emulator and the recorder read the same clock; this only absorbs the millisecond rounding of both. */
const SLACK_MS = 2;

/** The event id a call was made for, from its User-Agent. */
export function eventOfCall(call: Pick<CallRecord, 'userAgent'>): string | undefined {
  return EVENT_TAG.exec(call.userAgent ?? '')?.[1];
}

const LB_READS = new Set(['ListLbs', 'GetLb']);

/** What an attempt that failed with this code shows in the calls made for it (the API's answer that caused it). */
type Shown = (call: CallRecord, busyAt: (at: number) => boolean) => boolean;
const lbBusy: Shown = (c, busyAt) => (LB_READS.has(c.operation) && busyAt(c.at)) || c.status === 409;
const rateLimited: Shown = (c) => c.status === 429;
const serverError: Shown = (c) => c.status >= 500;
const unanswered: Shown = (c) => c.status === 0;
const answeredRead =
  (operation: string): Shown =>
  (c) =>
    c.operation === operation && c.status >= 200 && c.status < 300;
const TRANSIENT_EVIDENCE: Record<string, Shown> = {
  lb_transient_state: lbBusy,
  api_transient_state: lbBusy,
  rate_limited: rateLimited,
  api_unavailable: serverError,
  network_error: unanswered,
  apply_timeout: (c) => c.write && c.status >= 200 && c.status < 300,
  // A removal held by make-before-break: the LB's health read that held it; discovery's own word for the rest.
  removal_deferred: answeredRead('ListBackendStats'),
  discovery_suspect: answeredRead('ListServers'),
  no_servers: answeredRead('ListServers'),
  untrusted_server_ips: answeredRead('ListServers'),
};
/** An attempt whose answer names no code: any transient failure the API answered. */
const ANY_TRANSIENT: Shown = (c, busyAt) => lbBusy(c, busyAt) || rateLimited(c, busyAt) || serverError(c, busyAt) || unanswered(c, busyAt);
const ok = (call: CallRecord) => call.status >= 200 && call.status < 300;
/** A write the API took, or a duplicate's deletion that found it gone already (done, for the reconciler). */
const wrote = (call: CallRecord) => call.write && (ok(call) || (call.operation === 'DeleteBackend' && call.status === 404));

export function checkEvidence(input: EvidenceInput): EvidenceReport {
  const callsByEvent = new Map<string, CallRecord[]>();
  for (const call of input.calls) {
    const id = eventOfCall(call);
    if (id) callsByEvent.set(id, [...(callsByEvent.get(id) ?? []), call]);
  }
  const used = new Set<number>();
  const records = new Map<string, number>();
  for (const r of input.deadLetters) if (r.kind === 'lbsync.dead-letter') records.set(r.recordId, (records.get(r.recordId) ?? 0) + 1);

  const report: EvidenceReport = { backed: 0, unbacked: 0, unbackedSamples: [], destroyedByDriver: 0 };
  const unbacked = (a: RecordedAnswer, why: string) => {
    report.unbacked += 1;
    if (report.unbackedSamples.length >= 10) return;
    // What there was, to tell a lie from a timing slip: the calls made for that event, relative to the delivery.
    const made = (callsByEvent.get(a.answer?.eventId ?? '') ?? [])
      .map((c) => `${c.operation}@${c.at - a.startedAt}ms:${c.status}${used.has(c.seq) ? '(used)' : ''}`)
      .join(' ');
    report.unbackedSamples.push(
      `${answerKey(a) ?? '?'}: answered ${a.answer?.outcome} ${why} [delivery 0..${a.at - a.startedAt} ms; calls for it: ${made || 'none'}]`,
    );
  };
  /** An unused call for this event, during this delivery, that `fits`; marked used. */
  const take = (a: RecordedAnswer, id: string, fits: (c: CallRecord) => boolean): CallRecord | undefined => {
    const found = (callsByEvent.get(id) ?? []).find(
      (c) => !used.has(c.seq) && c.at >= a.startedAt - SLACK_MS && c.at <= a.at + SLACK_MS && fits(c),
    );
    if (found) used.add(found.seq);
    return found;
  };

  for (const a of [...input.answers].sort((x, y) => x.at - y.at)) {
    if (a.status !== 200) continue;
    const outcome = a.answer?.outcome;
    const id = a.answer?.eventId;
    if (outcome === 'applied') {
      if (id && take(a, id, wrote)) report.backed += 1;
      else unbacked(a, 'with no write made for it (User-Agent event/<id>) while it ran');
    } else if (outcome === 'noop' || outcome === 'dry_run') {
      // A dry run is backed as a no-op is: the reads that prove it (and it wrote nothing: the write judges see that).
      const missing = NOOP_PROOF.filter((ops) => !(id && take(a, id, (c) => !c.write && ok(c) && ops.includes(c.operation))));
      if (missing.length === 0) report.backed += 1;
      else unbacked(a, `without the reads that prove it (missing ${missing.map((ops) => ops.join('/')).join(', ')})`);
    } else if (outcome === 'dead_lettered') {
      const recordId = a.answer?.recordId;
      const left = recordId ? (records.get(recordId) ?? 0) : 0;
      const exhausted =
        a.answer?.reason === 'retries_exhausted' && id && input.exhausted?.mustShow(id)
          ? unbackedExhaustion(a, id, input.answers, callsByEvent.get(id) ?? [], input.exhausted)
          : undefined;
      if (exhausted) {
        unbacked(a, `(retries_exhausted) though ${exhausted}`);
      } else if (recordId && left > 0) {
        records.set(recordId, left - 1);
        report.backed += 1;
      } else if (input.deletionWindows.some(([from, to]) => a.at >= from && a.at <= to)) {
        report.destroyedByDriver += 1;
      } else {
        unbacked(a, `(${a.answer?.reason}) with no record ${recordId ?? '(no recordId)'} in the dead-letter queue`);
      }
    }
  }
  return report;
}

/**
 * Why a retries_exhausted dead letter is not backed by its attempts, or undefined when it is: each attempt of the
 * event (a delivery answered retry_scheduled with an error, and the dead letter itself) shows the failure it
 * answered in the calls made for it, and the dead letter came a whole retry horizon after the first attempt began.
 */
function unbackedExhaustion(
  dead: RecordedAnswer,
  id: string,
  answers: readonly RecordedAnswer[],
  calls: readonly CallRecord[],
  evidence: ExhaustedEvidence,
): string | undefined {
  const lbId = evidence.lbOfTarget(dead.answer?.target ?? '');
  const windows = (lbId && evidence.busyWindows.get(lbId)) || [];
  const busyAt = (at: number) => windows.some(([from, to]) => at >= from - SLACK_MS && at <= to + SLACK_MS);
  const attempts = answers
    .filter(
      (a) =>
        a.status === 200 &&
        a.answer?.eventId === id &&
        a.at <= dead.at &&
        ((a.answer.outcome === 'retry_scheduled' && a.answer.error) || a === dead),
    )
    .sort((x, y) => x.startedAt - y.startedAt);
  for (const attempt of attempts) {
    const during = calls.filter((c) => c.at >= attempt.startedAt - SLACK_MS && c.at <= attempt.at + SLACK_MS);
    const code = attempt.answer?.error?.code;
    const evidenceOf = (code && TRANSIENT_EVIDENCE[code]) || ANY_TRANSIENT;
    if (!during.some((c) => evidenceOf(c, busyAt)))
      return `its attempt ${attempt.answer?.attempt ?? '?'} shows no cause for its failure (+${attempt.startedAt - (attempts[0]?.startedAt ?? 0)} ms: ${code ?? attempt.answer?.reason ?? '?'}; calls ${during.map((c) => `${c.operation}:${c.status}`).join(' ') || 'none'})`;
  }
  const spanMs = dead.at - (attempts[0]?.startedAt ?? dead.at);
  if (spanMs < evidence.horizonMs) return `it came ${spanMs} ms after its first attempt, before the ${evidence.horizonMs} ms retry horizon`;
  return undefined;
}

export interface AppliedWaitReport {
  /** `applied` answers given before a read of the LB, after their write, showed it applied. */
  early: number;
  samples: string[];
}

/** The LB and every one of its instances ready again: what "applied" means (docs/architecture.md). */
const showsApplied = (lb: ShownLb | undefined, lbId: string | undefined): boolean =>
  lb !== undefined && lb.id === lbId && lb.status === 'ready' && lb.instances.every((status) => status === 'ready');

/**
 * Every `applied` answer came after the emulator showed its write applied: a GetLb made for the event, sent once the
 * write was answered and before the answer, that the emulator answered with the target's LB and every instance
 * `ready`. Judged on the delivery's last write; when two deliveries of one event overlap, their calls cannot be told
 * apart, and one write of the window followed by such a read suffices. An answer with no write is unbacked already.
 */
export function checkAppliedWaits(
  answers: readonly RecordedAnswer[],
  calls: readonly CallRecord[],
  lbOfTarget: (target: string) => string | undefined,
): AppliedWaitReport {
  const callsByEvent = new Map<string, CallRecord[]>();
  for (const call of calls) {
    const id = eventOfCall(call);
    if (id) callsByEvent.set(id, [...(callsByEvent.get(id) ?? []), call]);
  }
  const report: AppliedWaitReport = { early: 0, samples: [] };
  for (const a of answers) {
    const id = a.answer?.eventId;
    if (a.status !== 200 || a.answer?.outcome !== 'applied' || !id) continue;
    const during = (callsByEvent.get(id) ?? [])
      .filter((c) => c.at >= a.startedAt - SLACK_MS && c.at <= a.at + SLACK_MS)
      .sort((x, y) => x.seq - y.seq);
    const writes = during.filter(wrote);
    const last = writes.at(-1);
    if (!last) continue;
    const lbId = lbOfTarget(a.answer.target ?? '');
    const seenApplied = (write: CallRecord) =>
      during.some((c) => c.operation === 'GetLb' && c.at >= write.at + write.durationMs && showsApplied(c.lb, lbId));
    const overlapped = answers.some((o) => o !== a && answerKey(o) === id && o.startedAt <= a.at && o.at >= a.startedAt);
    if (overlapped ? writes.some(seenApplied) : seenApplied(last)) continue;
    report.early += 1;
    if (report.samples.length < 10) {
      const reads = during
        .filter((c) => c.operation === 'GetLb' && c.seq > last.seq)
        .map((c) => `GetLb@${c.at - a.startedAt}ms:${c.lb ? `${c.lb.status}/${c.lb.instances.join('/')}` : c.status}`);
      report.samples.push(
        `${id}: answered applied at ${a.at - a.startedAt} ms, its ${last.operation} answered at ${last.at + last.durationMs - a.startedAt} ms, ` +
          `and no read after it showed the LB applied [${reads.join(' ') || 'no GetLb after it'}]`,
      );
    }
  }
  return report;
}
