// The rolling-update policy (shared/core/rollout.ts), table-tested: which members leave in this write, which wait and
// why, and the stages still to come.
import { describe, expect, it } from 'vitest';
import type { MemberHealthView, RolloutInput } from '../../../shared/core/rollout';
import { memberHealth, planRollout } from '../../../shared/core/rollout';

const A = '51.0.0.1';
const B = '51.0.0.2';
const C = '51.0.0.3';
const D = '51.0.0.4';
const E = '51.0.0.5';

// A dual-stack server is two members: its IPv4 and its IPv6 (docs/reconcile.md, "IPv6 and dual-stack pools").
const A6 = '2001:db8::1';
const B6 = '2001:db8::2';
const D6 = '2001:db8::4';

const view = (reported: string): MemberHealthView => ({
  condition: reported === 'passed' ? 'passing' : reported === 'failed' ? 'failing' : 'unsettled',
  reported,
});

function input(current: string[], desired: string[], health: Record<string, string>, extra: Partial<RolloutInput> = {}): RolloutInput {
  return {
    current,
    desired,
    health: new Map(Object.entries(health).map(([ip, status]) => [ip, view(status)])),
    leaving: new Map(),
    maxUnavailable: 1,
    trustPartialDiscovery: false,
    ...extra,
  };
}

const allPass = (...ips: string[]) => Object.fromEntries(ips.map((ip) => [ip, 'passed']));

interface Row {
  name: string;
  given: RolloutInput;
  pool: string[];
  removed: string[];
  deferred: string[];
  deferral?: 'removal_deferred' | 'discovery_suspect';
}

const rows: Row[] = [
  {
    name: 'kOps replacement, the old member fails its check: one write, added and removed together',
    given: input([A, B, C], [B, C, D], { ...allPass(B, C), [A]: 'failed' }),
    pool: [B, C, D],
    removed: [A],
    deferred: [],
  },
  {
    name: 'kOps replacement, the old member still passes: current ∪ new first, the removal waits for the new one',
    given: input([A, B, C], [B, C, D], allPass(A, B, C)),
    pool: [A, B, C, D],
    removed: [],
    deferred: [A],
    deferral: 'removal_deferred',
  },
  {
    name: '... the next reconcile, the new member not passing yet (unknown): still waiting, nothing written',
    given: input([A, B, C, D], [B, C, D], { ...allPass(A, B, C), [D]: 'unknown' }),
    pool: [A, B, C, D],
    removed: [],
    deferred: [A],
    deferral: 'removal_deferred',
  },
  {
    name: '... the new member passes: the old one leaves',
    given: input([A, B, C, D], [B, C, D], allPass(A, B, C, D)),
    pool: [B, C, D],
    removed: [A],
    deferred: [],
  },
  {
    name: '2 of 3 healthy members lose their tag: discovery is suspect, nothing removed',
    given: input([A, B, C], [C], allPass(A, B, C)),
    pool: [A, B, C],
    removed: [],
    deferred: [A, B],
    deferral: 'discovery_suspect',
  },
  {
    name: '... with trustPartialDiscovery: one per write (maxUnavailable 1), 2 of the 3 stay',
    given: input([A, B, C], [C], allPass(A, B, C), { trustPartialDiscovery: true }),
    pool: [B, C],
    removed: [A],
    deferred: [B],
    deferral: 'removal_deferred',
  },
  {
    name: '... with trustPartialDiscovery and maxUnavailable 2: both in one write',
    given: input([A, B, C], [C], allPass(A, B, C), { trustPartialDiscovery: true, maxUnavailable: 2 }),
    pool: [C],
    removed: [A, B],
    deferred: [],
  },
  {
    name: '1 of 3 untagged: half or more still found, not suspect: it leaves',
    given: input([A, B, C], [B, C], allPass(A, B, C)),
    pool: [B, C],
    removed: [A],
    deferred: [],
  },
  {
    name: 'two members deleted at once and failing, two new ones: one write',
    given: input([A, B, C], [C, D, E], { [A]: 'failed', [B]: 'failed', [C]: 'passed' }),
    pool: [C, D, E],
    removed: [A, B],
    deferred: [],
  },
  {
    name: 'two members deleted at once, still passing: suspect; the new ones are added, the old stay',
    given: input([A, B, C], [C, D, E], allPass(A, B, C)),
    pool: [A, B, C, D, E],
    removed: [],
    deferred: [A, B],
    deferral: 'discovery_suspect',
  },
  {
    name: "a stopping server's address leaves at once, whatever its check says",
    given: input([A, B, C], [B, C], allPass(A, B, C), { leaving: new Map([[A, 'server cp-0 is stopping']]) }),
    pool: [B, C],
    removed: [A],
    deferred: [],
  },
  {
    name: 'unknown and neutral count as passing for the limit: one of them per write',
    given: input([A, B, C], [C], { [A]: 'unknown', [B]: 'neutral', [C]: 'passed' }, { trustPartialDiscovery: true }),
    pool: [B, C],
    removed: [A],
    deferred: [B],
    deferral: 'removal_deferred',
  },
  {
    name: 'a desired member that is condpass is not ready: no passing member leaves',
    given: input([A, B, C], [B, C], { ...allPass(A, B), [C]: 'condpass' }),
    pool: [A, B, C],
    removed: [],
    deferred: [A],
    deferral: 'removal_deferred',
  },
  {
    name: 'LB instances that disagree (passed/failed): not ready, and not failing either',
    given: input([A, B], [B], { [A]: 'passed/failed', [B]: 'passed' }),
    pool: [B],
    removed: [A],
    deferred: [],
  },
  {
    name: 'a member the LB does not report counts as serving: its removal needs every desired member passing',
    given: input([A, B, C], [B, C, D], allPass(B, C)),
    pool: [A, B, C, D],
    removed: [],
    deferred: [A],
    deferral: 'removal_deferred',
  },
  {
    name: 'the last passing member is never removed (an empty desired pool)',
    given: input([A], [], allPass(A), { trustPartialDiscovery: true }),
    pool: [A],
    removed: [],
    deferred: [A],
    deferral: 'removal_deferred',
  },
  {
    name: '... but a failing one is',
    given: input([A], [], { [A]: 'failed' }),
    pool: [],
    removed: [A],
    deferred: [],
  },
  {
    name: 'maxUnavailable 0: serving members stay, failing ones leave',
    given: input([A, B, C, D], [C, D], { ...allPass(A, C, D), [B]: 'failed' }, { maxUnavailable: 0 }),
    pool: [A, C, D],
    removed: [B],
    deferred: [A],
    deferral: 'removal_deferred',
  },
  {
    name: 'dual-stack, a replaced server still serving: its two addresses are two serving members, one leaves per write (maxUnavailable 1)',
    given: input([A, B, A6, B6], [B, D, B6, D6], allPass(A, B, D, A6, B6, D6)),
    pool: [B, D, A6, B6, D6],
    removed: [A],
    deferred: [A6],
    deferral: 'removal_deferred',
  },
  {
    name: '... the same server stopped (or failing on both): both addresses leave at once',
    given: input([A, B, A6, B6], [B, D, B6, D6], { ...allPass(B, D, B6, D6), [A]: 'failed', [A6]: 'failed' }),
    pool: [B, D, B6, D6],
    removed: [A, A6],
    deferred: [],
  },
  {
    name: 'dual-stack, the last passing member is an address: an IPv4 passing while every IPv6 fails stays',
    given: input([A, A6], [], { [A]: 'passed', [A6]: 'failed' }, { trustPartialDiscovery: true }),
    pool: [A],
    removed: [A6],
    deferred: [A],
    deferral: 'removal_deferred',
  },
  {
    name: 'adds only: no removal, nothing deferred',
    given: input([A, B], [A, B, C], {}),
    pool: [A, B, C],
    removed: [],
    deferred: [],
  },
];

describe('planRollout', () => {
  it.each(rows)('$name', ({ given, pool, removed, deferred, deferral }) => {
    const r = planRollout(given);
    expect(r.pool).toEqual(pool);
    expect(r.removed.map((v) => v.ip)).toEqual(removed);
    expect(r.deferred.map((v) => v.ip)).toEqual(deferred);
    expect(r.deferral?.code).toBe(deferral);
    // Never written: more serving members removed than allowed, or the pool left without a passing member.
    const servingRemoved = r.removed.filter((v) => !given.leaving.has(v.ip) && given.health.get(v.ip)?.condition !== 'failing');
    expect(servingRemoved.length).toBeLessThanOrEqual(given.maxUnavailable);
    const passingBefore = given.current.filter((ip) => given.health.get(ip)?.condition === 'passing');
    if (passingBefore.length > 0 && servingRemoved.length > 0)
      expect(r.pool.some((ip) => given.health.get(ip)?.condition === 'passing')).toBe(true);
  });

  it('says why each member leaves or stays', () => {
    const r = planRollout(input([A, B, C], [B, C, D], { ...allPass(B, C), [A]: 'passed' }));
    expect(r.deferred).toEqual([
      { ip: A, why: `passes its health check; make-before-break: waiting until ${D} passes the LB's health check` },
    ]);
    const suspect = planRollout(input([A, B, C], [C], allPass(A, B, C)));
    expect(suspect.deferral?.reason).toMatch(
      /^discovery found 1 of the 3 members still serving \(fewer than half\).*trustPartialDiscovery: true allows it/,
    );
    const unsettled = planRollout(input([A, B], [B], { [A]: 'neutral', [B]: 'passed' }));
    expect(unsettled.removed[0]?.why).toMatch(/^health check neutral, counted as passing; every desired member passes, 1 of at most 1/);
  });

  it('stages: this write, then the removals to come and what each waits for', () => {
    expect(planRollout(input([A, B, C], [B, C, D], allPass(A, B, C))).stages).toEqual([
      { when: 'now', pool: [A, B, C, D], added: [D], removed: [] },
      { when: `once ${D} passes the LB's health check`, pool: [B, C, D], added: [], removed: [A] },
    ]);
    expect(planRollout(input([A, B, C, D], [D], allPass(A, B, C, D), { trustPartialDiscovery: true })).stages).toEqual([
      { when: 'now', pool: [B, C, D], added: [], removed: [A] },
      { when: 'on the next reconcile', pool: [C, D], added: [], removed: [B] },
      { when: 'on the next reconcile (maxUnavailable 1)', pool: [D], added: [], removed: [C] },
    ]);
    expect(planRollout(input([A, B, C], [C], allPass(A, B, C))).stages).toEqual([
      {
        when: 'once discovery finds at least half of the serving members again (or with trustPartialDiscovery: true)',
        pool: [B, C],
        added: [],
        removed: [A],
      },
      { when: 'on the next reconcile (maxUnavailable 1)', pool: [C], added: [], removed: [B] },
    ]);
    expect(planRollout(input([A], [], allPass(A), { trustPartialDiscovery: true })).stages).toEqual([
      { when: 'not by this tool: the last passing member is never removed (remove it by hand)', pool: [], added: [], removed: [A] },
    ]);
  });
});

describe('memberHealth: the LB instances’ reports of one address, folded', () => {
  const report = (ip: string, status: string, instanceId = 'i1') => ({ ip, status, serverState: 'running', instanceId });
  it.each([
    [['passed', 'passed'], 'passing', 'passed'],
    [['failed', 'failed'], 'failing', 'failed'],
    [['passed', 'failed'], 'unsettled', 'failed/passed'],
    [['condpass'], 'unsettled', 'condpass'],
    [['unknown'], 'unsettled', 'unknown'],
    [['neutral'], 'unsettled', 'neutral'],
  ])('%j -> %s', (statuses, condition, reported) => {
    const folded = memberHealth(statuses.map((s, i) => report(A, s, `i${i}`)));
    expect(folded.get(A)).toEqual({ condition, reported });
  });
  it("an IPv6 member is read under the pool's spelling, whatever the LB's (two instances, two spellings: one member)", () => {
    const folded = memberHealth([report('2001:DB8:0::1', 'passed', 'i1'), report('2001:db8::1', 'failed', 'i2')]);
    expect([...folded.keys()]).toEqual(['2001:db8::1']);
    expect(folded.get('2001:db8::1')).toEqual({ condition: 'unsettled', reported: 'failed/passed' });
  });
});
