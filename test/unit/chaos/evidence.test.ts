// The chaos run's judges, as pure functions: answers matched to their evidence and early `applied` answers
// (chaos/evidence.ts), pool writes judged for unsafe shrinks and needless writes (chaos/invariants.ts).
import { describe, expect, it } from 'vitest';
import type { RecordedAnswer } from '../../../chaos/answer-recorder';
import { checkAppliedWaits, checkEvidence, eventOfCall, type ExhaustedEvidence } from '../../../chaos/evidence';
import { checkNeedlessWrites, checkShrinks, judgeShrink } from '../../../chaos/invariants';
import type { CallRecord, ShownLb } from '../../../emulator';
import type { PoolWrite } from '../../../emulator';
import type { DeadLetterRecord } from '../../../shared/handlers/dead-letter';

let seq = 0;
function call(event: string, operation: string, at: number, status = 200): CallRecord {
  const write = !['ListLbs', 'GetLb', 'ListBackends', 'ListServers', 'ListBackendStats'].includes(operation);
  return {
    seq: ++seq,
    at,
    operation,
    method: write ? 'PUT' : 'GET',
    path: '/',
    query: '',
    status,
    write,
    durationMs: 1,
    userAgent: `scaleway-sdk-js/1.3.3 scw-lb-sync/0.1.0 event/${event}`,
  };
}
const reads = (event: string, at: number) => [
  call(event, 'ListLbs', at),
  call(event, 'ListBackends', at + 1),
  call(event, 'ListServers', at + 1),
];
function answer(event: string, outcome: string, startedAt: number, at: number, extra: Record<string, unknown> = {}): RecordedAnswer {
  return { request: JSON.stringify({ id: event }), status: 200, answer: { outcome, eventId: event, ...extra }, startedAt, at };
}
const record = (recordId: string) => ({ kind: 'lbsync.dead-letter', recordId }) as DeadLetterRecord;
const judge = (
  answers: RecordedAnswer[],
  calls: CallRecord[],
  deadLetters: DeadLetterRecord[] = [],
  deletionWindows: [number, number][] = [],
) => checkEvidence({ answers, calls, deadLetters, deletionWindows });

describe('checkEvidence', () => {
  it('reads the event id from the User-Agent suffix', () => {
    expect(eventOfCall({ userAgent: 'scaleway-sdk-js/1.3.3 scw-lb-sync/0.1.0 event/evt-1' })).toBe('evt-1');
    expect(eventOfCall({ userAgent: 'scaleway-sdk-js/1.3.3 scw-lb-sync/0.1.0' })).toBeUndefined();
  });

  it.each([
    [
      'applied with a 2xx write for it while it ran',
      [answer('e', 'applied', 100, 200)],
      [...reads('e', 110), call('e', 'SetBackendServers', 150)],
      1,
      0,
    ],
    ['applied with its write refused (409)', [answer('e', 'applied', 100, 200)], [call('e', 'SetBackendServers', 150, 409)], 0, 1],
    [
      "applied with a duplicate's deletion found gone (404)",
      [answer('e', 'applied', 100, 200)],
      [call('e', 'DeleteBackend', 150, 404)],
      1,
      0,
    ],
    [
      'applied with the write made before the delivery (an earlier attempt)',
      [answer('e', 'applied', 100, 200)],
      [call('e', 'SetBackendServers', 50)],
      0,
      1,
    ],
    ["applied with another event's write", [answer('e', 'applied', 100, 200)], [call('f', 'SetBackendServers', 150)], 0, 1],
    ['noop with the three reads', [answer('e', 'noop', 100, 200)], reads('e', 120), 1, 0],
    ['noop without ListServers', [answer('e', 'noop', 100, 200)], reads('e', 120).filter((c) => c.operation !== 'ListServers'), 0, 1],
    ['noop without any call (a lie)', [answer('e', 'noop', 100, 200)], [], 0, 1],
    ['a dry run with the three reads', [answer('e', 'dry_run', 100, 200)], reads('e', 120), 1, 0],
    ['a dry run without any call (a lie)', [answer('e', 'dry_run', 100, 200)], [], 0, 1],
    [
      'two deliveries of one event, overlapping: each needs its own reads',
      [answer('e', 'noop', 100, 300), answer('e', 'noop', 150, 250)],
      reads('e', 160),
      1,
      1,
    ],
    [
      '... and with two sets, both are backed',
      [answer('e', 'noop', 100, 300), answer('e', 'noop', 150, 250)],
      [...reads('e', 160), ...reads('e', 260)],
      2,
      0,
    ],
  ] as const)('%s', (_, answers, calls, backed, unbacked) => {
    const report = judge([...answers], [...calls]);
    expect([report.backed, report.unbacked]).toEqual([backed, unbacked]);
  });

  it('dead_lettered needs its record (one per answer); one sent while the driver had deleted the queue is not held against it', () => {
    const a = answer('e', 'dead_lettered', 100, 200, { recordId: 'dl-1', reason: 'permanent_error' });
    expect(judge([a], [], [record('dl-1')])).toMatchObject({ backed: 1, unbacked: 0 });
    expect(judge([a, { ...a, startedAt: 300, at: 400 }], [], [record('dl-1')])).toMatchObject({ backed: 1, unbacked: 1 });
    expect(judge([a], [], [])).toMatchObject({ backed: 0, unbacked: 1 });
    expect(judge([a], [], [], [[150, 250]])).toMatchObject({ backed: 0, unbacked: 0, destroyedByDriver: 1 });
  });

  describe('retries_exhausted: each attempt shows the cause it failed for, for a whole retry horizon', () => {
    type Windows = ReadonlyMap<string, readonly (readonly [number, number])[]>;
    const busy: Windows = new Map([['lb-1', [[0, 5_000]]]]);
    const exhausted = (busyWindows: Windows = busy, horizonMs = 1_000): ExhaustedEvidence => ({
      mustShow: (id: string): boolean => id === 'e',
      busyWindows,
      lbOfTarget: (target: string) => (target === 'c0.k8s.local' ? 'lb-1' : undefined),
      horizonMs,
    });
    const attempt = (startedAt: number, n: number) =>
      answer('e', 'retry_scheduled', startedAt, startedAt + 50, {
        target: 'c0.k8s.local',
        attempt: n,
        error: { code: 'lb_transient_state' },
      });
    const dead = answer('e', 'dead_lettered', 1_200, 1_250, {
      target: 'c0.k8s.local',
      attempt: 2,
      recordId: 'dl-1',
      reason: 'retries_exhausted',
    });
    const lbRead = (at: number, operation = 'ListLbs', status = 200) => call('e', operation, at, status);
    const run = (calls: CallRecord[], evidence = exhausted(), answers = [attempt(0, 0), attempt(600, 1), dead]) =>
      checkEvidence({ answers, calls, deadLetters: [record('dl-1')], deletionWindows: [], exhausted: evidence });

    it('each attempt read the LB while it was busy, and the horizon passed: backed', () => {
      expect(run([lbRead(10), lbRead(610, 'GetLb'), lbRead(1_210)])).toMatchObject({ backed: 1, unbacked: 0 });
      // A 409 from the API is the LB busy too.
      expect(run([lbRead(10), call('e', 'SetBackendServers', 620, 409), lbRead(1_210)])).toMatchObject({ backed: 1, unbacked: 0 });
    });

    it('an attempt that met a ready LB: unbacked, naming the attempt', () => {
      const report = run(
        [lbRead(10), lbRead(610), lbRead(1_210)],
        exhausted(
          new Map([
            [
              'lb-1',
              [
                [0, 500],
                [1_000, 2_000],
              ],
            ],
          ]),
        ),
      );
      expect(report).toMatchObject({ backed: 0, unbacked: 1 });
      expect(report.unbackedSamples[0]).toMatch(
        /\(retries_exhausted\) though its attempt 1 shows no cause for its failure \(\+600 ms: lb_transient_state/,
      );
    });

    it('each cause by its own evidence: a 429 for rate_limited, a 5xx for api_unavailable, no answer for network_error, the health read for a held removal', () => {
      const failedWith = (startedAt: number, n: number, code: string) =>
        answer('e', 'retry_scheduled', startedAt, startedAt + 50, { target: 'c0.k8s.local', attempt: n, error: { code } });
      const notBusy: Windows = new Map();
      const answers = (codes: [string, string]) => [failedWith(0, 0, codes[0]), failedWith(600, 1, codes[1]), dead];
      const backed = (calls: CallRecord[], codes: [string, string]) => run(calls, exhausted(notBusy), answers(codes));
      expect(
        backed(
          [call('e', 'ListBackends', 10, 429), call('e', 'ListLbs', 620, 503), call('e', 'ListLbs', 1_210, 0)],
          ['rate_limited', 'api_unavailable'],
        ),
      ).toMatchObject({ backed: 1, unbacked: 0 });
      expect(
        backed(
          [call('e', 'ListBackendStats', 10), call('e', 'ListServers', 620), lbRead(1_210, 'ListLbs', 502)],
          ['removal_deferred', 'discovery_suspect'],
        ),
      ).toMatchObject({ backed: 1, unbacked: 0 });
      // The cause must be the one answered: a 5xx does not back a rate limit, nor a ready LB's read a held removal.
      const wrongCause = backed(
        [call('e', 'ListBackends', 10, 503), lbRead(620), lbRead(1_210, 'ListLbs', 502)],
        ['rate_limited', 'removal_deferred'],
      );
      expect(wrongCause).toMatchObject({ backed: 0, unbacked: 1 });
      expect(wrongCause.unbackedSamples[0]).toMatch(
        /its attempt 0 shows no cause for its failure \(\+0 ms: rate_limited; calls ListBackends:503\)/,
      );
    });

    it('dead-lettered before the horizon had passed since the first attempt: unbacked', () => {
      const report = run([lbRead(10), lbRead(610), lbRead(1_210)], exhausted(busy, 5_000));
      expect(report.unbackedSamples[0]).toMatch(/came 1250 ms after its first attempt, before the 5000 ms retry horizon/);
    });

    it('an event that need not show it (a hostile one): its record suffices', () => {
      expect(run([], { ...exhausted(), mustShow: () => false })).toMatchObject({ backed: 1, unbacked: 0 });
    });
  });

  it('retry_scheduled and undelivered answers need no evidence', () => {
    expect(
      judge([answer('e', 'retry_scheduled', 100, 200), { request: '{}', status: 502, startedAt: 0, at: 1, crashed: true }], []),
    ).toMatchObject({ backed: 0, unbacked: 0 });
  });
});

describe('judgeShrink', () => {
  const write = (poolBefore: string[], pool: string[], health: Record<string, string>, serverStates: Record<string, string> = {}) => ({
    poolBefore,
    pool,
    health,
    serverStates,
  });
  it.each([
    [
      'one passing member removed, others passing',
      write(['a', 'b', 'c'], ['b', 'c'], { a: 'passed', b: 'passed', c: 'passed' }),
      undefined,
    ],
    ['two passing members removed', write(['a', 'b', 'c'], ['c'], { a: 'passed', b: 'passed', c: 'passed' }), /removed 2 serving members/],
    [
      'two unknown members removed (counted as serving)',
      write(['a', 'b', 'c'], ['c'], { a: 'unknown', b: 'unknown', c: 'passed' }),
      /removed 2 serving/,
    ],
    ['two failing members removed', write(['a', 'b', 'c'], ['c'], { a: 'failed', b: 'failed', c: 'passed' }), undefined],
    [
      "a stopped server's member and a passing one",
      write(['a', 'b', 'c'], ['c'], { a: 'passed', b: 'passed', c: 'passed' }, { a: 'stopped' }),
      undefined,
    ],
    ['the last passing member removed', write(['a', 'b'], ['b'], { a: 'passed', b: 'unknown' }), /left no passing member/],
  ] as const)('%s', (_, w, expected) => {
    const verdict = judgeShrink(w, 1);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatch(expected);
  });
});

describe('checkShrinks: each write judged against the pool as it stood when it was sent', () => {
  const passing = (...ips: string[]) => Object.fromEntries(ips.map((ip) => [ip, 'passed']));
  const poolWrite = (seq: number, at: number, poolBefore: string[], pool: string[], health: Record<string, string>): PoolWrite => ({
    seq,
    at,
    operation: 'SetBackendServers',
    backendId: 'b',
    backendName: 'lb-backend-https',
    lbId: 'l',
    poolBefore,
    pool,
    changed: ['pool'],
    health,
    serverStates: {},
  });
  const sent = (seq: number, at: number, status = 200) => ({ seq, at, status });

  it('a write the API committed after its client gave up, over a newer pool: judged as sent, counted as a late commit', () => {
    // #1 sent at 100 with the pool [a, b, c]; #2 (sent at 150) commits at 160; #1 commits at 700, its client gone.
    // At its commit it removes d and e (two serving members); as sent, only a.
    const history = [
      poolWrite(2, 160, ['a', 'b', 'c'], ['a', 'b', 'c', 'd', 'e'], { ...passing('a', 'b', 'c'), d: 'unknown', e: 'unknown' }),
      poolWrite(1, 700, ['a', 'b', 'c', 'd', 'e'], ['b', 'c'], passing('a', 'b', 'c', 'd', 'e')),
    ];
    expect(checkShrinks(history, [sent(1, 100, 0), sent(2, 150)], 1)).toMatchObject({ unsafeShrinks: 0, lateCommits: 1 });
  });

  it('the same write sent after the newer pool was in place is unsafe', () => {
    const history = [
      poolWrite(2, 160, ['a', 'b', 'c'], ['a', 'b', 'c', 'd', 'e'], { ...passing('a', 'b', 'c'), d: 'unknown', e: 'unknown' }),
      poolWrite(1, 700, ['a', 'b', 'c', 'd', 'e'], ['b', 'c'], passing('a', 'b', 'c', 'd', 'e')),
    ];
    expect(checkShrinks(history, [sent(1, 300), sent(2, 150)], 1)).toMatchObject({ unsafeShrinks: 1, lateCommits: 0 });
  });
});

describe('checkAppliedWaits: applied only once a read after the write showed the LB applied', () => {
  const lbOfTarget = (target: string) => (target === 'c0' ? 'lb-1' : undefined);
  const applied = (event: string, startedAt: number, at: number) => answer(event, 'applied', startedAt, at, { target: 'c0' });
  const getLb = (event: string, at: number, lb: ShownLb) => ({ ...call(event, 'GetLb', at), lb });
  const ready: ShownLb = { id: 'lb-1', status: 'ready', instances: ['ready'] };
  const pending: ShownLb = { id: 'lb-1', status: 'ready', instances: ['pending'] };
  const early = (answers: RecordedAnswer[], calls: CallRecord[]) => checkAppliedWaits(answers, calls, lbOfTarget).early;

  it.each([
    ['the write, then a read showing the LB and its instance ready', [call('e', 'SetBackendServers', 150), getLb('e', 170, ready)], 0],
    ['the write and no read after it', [getLb('e', 120, ready), call('e', 'SetBackendServers', 150)], 1],
    ['a read after the write, its instance still pending', [call('e', 'SetBackendServers', 150), getLb('e', 170, pending)], 1],
    [
      'the LB itself not ready',
      [call('e', 'SetBackendServers', 150), getLb('e', 170, { id: 'lb-1', status: 'pending', instances: ['ready'] })],
      1,
    ],
    ["another LB's answer", [call('e', 'SetBackendServers', 150), getLb('e', 170, { ...ready, id: 'lb-2' })], 1],
    [
      'ready after the first write, not after the last',
      [call('e', 'AddBackendServers', 130), getLb('e', 140, ready), call('e', 'RemoveBackendServers', 150)],
      1,
    ],
    ['a read sent before the write was answered', [{ ...call('e', 'SetBackendServers', 150), durationMs: 30 }, getLb('e', 170, ready)], 1],
    ["another event's read", [call('e', 'SetBackendServers', 150), getLb('f', 170, ready)], 1],
    ['no write (unbacked, judged there)', [getLb('e', 170, ready)], 0],
  ] as const)('%s: early %i', (_, calls, expected) => {
    expect(early([applied('e', 100, 200)], [...calls])).toBe(expected);
  });

  it('two deliveries of one event overlapping: one write followed by a ready read suffices', () => {
    const calls = [call('e', 'SetBackendServers', 150), getLb('e', 170, ready), call('e', 'SetBackendServers', 180)];
    expect(early([applied('e', 100, 200), answer('e', 'retry_scheduled', 140, 260)], calls)).toBe(0);
    expect(early([applied('e', 100, 200)], calls)).toBe(1);
  });

  it('names the answer, its write and what the reads after it showed', () => {
    const report = checkAppliedWaits([applied('e', 100, 200)], [call('e', 'SetBackendServers', 150), getLb('e', 170, pending)], lbOfTarget);
    expect(report.samples).toEqual([
      'e: answered applied at 100 ms, its SetBackendServers answered at 51 ms, and no read after it showed the LB applied [GetLb@70ms:ready/pending]',
    ]);
  });
});

describe('checkNeedlessWrites: a write that changed nothing, nobody having changed the backend since its writer read it', () => {
  const history = (...writes: [seq: number, at: number, changed: string[], backendId?: string][]): PoolWrite[] =>
    writes.map(([seqOf, at, changed, backendId = 'b']) => ({
      seq: seqOf,
      at,
      operation: 'SetBackendServers',
      backendId,
      backendName: 'lb-backend-https',
      lbId: 'l',
      poolBefore: ['a'],
      pool: ['a'],
      changed,
      health: {},
      serverStates: {},
      userAgent: 'scaleway-sdk-js/1.3.3 scw-lb-sync/0.1.0 event/e',
    }));
  const writeCall = (event: string, at: number) => call(event, 'SetBackendServers', at);
  const needless = (writes: PoolWrite[], calls: CallRecord[], answers: RecordedAnswer[] = [answer('e', 'applied', 100, 300)]) =>
    checkNeedlessWrites(writes, calls, answers, () => true).needless;

  it('a write of what was there, nothing written in between: needless', () => {
    const c = writeCall('e', 200);
    expect(needless(history([c.seq, 201, []]), [c])).toBe(1);
  });

  it('a write that changed the backend is not', () => {
    const c = writeCall('e', 200);
    expect(needless(history([c.seq, 201, ['pool']]), [c])).toBe(0);
  });

  it("another writer's write committed after the delivery began (between its read and its write) excuses it", () => {
    const other = writeCall('kops', 150);
    const c = writeCall('e', 200);
    expect(needless(history([other.seq, 151, ['pool']], [c.seq, 201, []]), [other, c])).toBe(0);
  });

  it('... one committed before the delivery began does not, nor one on another backend', () => {
    const before = writeCall('kops', 50);
    const elsewhere = writeCall('kops', 150);
    const c = writeCall('e', 200);
    const writes = history([before.seq, 51, ['pool']], [elsewhere.seq, 151, ['pool'], 'b2'], [c.seq, 201, []]);
    expect(needless(writes, [before, elsewhere, c])).toBe(1);
  });

  it('an earlier attempt of its own committing after its client gave up excuses it', () => {
    const late = { ...writeCall('e', 20), status: 0 };
    const c = writeCall('e', 200);
    expect(needless(history([late.seq, 150, ['pool']], [c.seq, 201, []]), [late, c])).toBe(0);
  });

  it('with no delivery found, the backend is judged from the first call made for the event', () => {
    const read = call('e', 'ListBackends', 120);
    const other = writeCall('kops', 150);
    const c = writeCall('e', 200);
    expect(needless(history([other.seq, 151, ['pool']], [c.seq, 201, []]), [read, other, c], [])).toBe(0);
    expect(needless(history([c.seq, 201, []]), [read, c], [])).toBe(1);
  });
});
