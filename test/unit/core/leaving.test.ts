import { describe, expect, it } from 'vitest';
import type { MarkedServer } from '../../../shared/core/desired';
import { selectServerIps } from '../../../shared/core/desired';
import {
  admittedLeavingWarning,
  decideLeaving,
  describeLeaving,
  KOPS_NEEDS_UPDATE_TAG,
  leavingAssertions,
  leavingWhy,
} from '../../../shared/core/leaving';
import type { ObservedServer } from '../../../shared/core/model';
import type { MemberHealthView } from '../../../shared/core/rollout';
import { unusablePoolAddress } from '../../../shared/schemas/backend-address';
import { KOPS_NEEDS_UPDATE_TAG as SCHEMA_TAG, parseTargets } from '../../../shared/schemas/target';

const marked = (n: number): MarkedServer => ({
  server: `cp-${n}`,
  serverId: `id-${n}`,
  ip: `51.15.1.${10 + n}`,
  tag: KOPS_NEEDS_UPDATE_TAG,
  why: leavingWhy(KOPS_NEEDS_UPDATE_TAG),
});
const passing: MemberHealthView = { condition: 'passing', reported: 'passed' };
const unsettled: MemberHealthView = { condition: 'unsettled', reported: 'unknown' };
const health = (entries: [string, MemberHealthView][]) => new Map(entries);

describe('decideLeaving: kOps marks them all, deregisters one at a time', () => {
  const [m0, m1, m2] = [marked(0), marked(1), marked(2)];
  it('all marked and in the pool: they stay, nothing is asked of the LB', () => {
    const decision = decideLeaving({ backend: 'b', joining: [], marked: [m0, m1, m2], current: [m0.ip, m1.ip, m2.ip] });
    expect(decision).toMatchObject({ pool: [m0.ip, m1.ip, m2.ip] });
    expect(decision !== 'needs_health' && decision.leaving.map((m) => m.verdict)).toEqual(['stays', 'stays', 'stays']);
  });
  it('one deregistered while the others serve: the LB is asked, then it stays out', () => {
    const input = { backend: 'b', joining: [], marked: [m0, m1, m2], current: [m1.ip, m2.ip] };
    expect(decideLeaving(input)).toBe('needs_health');
    const decision = decideLeaving({
      ...input,
      health: health([
        [m1.ip, passing],
        [m2.ip, passing],
      ]),
    });
    expect(decision).toMatchObject({ pool: [m1.ip, m2.ip] });
    expect(decision !== 'needs_health' && decision.leaving.find((m) => m.ip === m0.ip)).toMatchObject({
      verdict: 'kept_out',
      because: `not added back: ${m1.ip}, ${m2.ip} pass their health check`,
    });
  });
  it('the successor joins while the deregistered one stays out', () => {
    const decision = decideLeaving({
      backend: 'b',
      joining: ['51.15.1.30'],
      marked: [m0, m1, m2],
      current: [m1.ip, m2.ip],
      health: health([
        [m1.ip, passing],
        [m2.ip, unsettled],
      ]),
    });
    expect(decision).toMatchObject({ pool: [m1.ip, m2.ip, '51.15.1.30'] });
  });
  it('no other member passes: the leaving ones are added (better a doomed server than none)', () => {
    const decision = decideLeaving({
      backend: 'b',
      joining: ['51.15.1.30'],
      marked: [m1, m2],
      current: ['51.15.1.30'],
      health: health([['51.15.1.30', unsettled]]),
    });
    expect(decision).toMatchObject({ pool: [m1.ip, m2.ip, '51.15.1.30'] });
    expect(decision !== 'needs_health' && decision.leaving.every((m) => m.verdict === 'admitted')).toBe(true);
  });
  it('only leaving servers could serve: added without a health read; a backend to create takes them too', () => {
    expect(decideLeaving({ backend: 'b', joining: [], marked: [m0, m1], current: [] })).toMatchObject({ pool: [m0.ip, m1.ip] });
    expect(decideLeaving({ backend: 'b', joining: [], marked: [m0, m1], current: undefined })).toMatchObject({ pool: [m0.ip, m1.ip] });
  });
  it('a backend to create, with others to serve: the leaving ones are left out, without a health read', () => {
    expect(decideLeaving({ backend: 'b', joining: ['51.15.1.30'], marked: [m0], current: undefined })).toMatchObject({
      pool: ['51.15.1.30'],
      leaving: [{ ip: m0.ip, verdict: 'kept_out' }],
    });
  });
  it('is told in one line each, and one warning for the admitted', () => {
    const decision = decideLeaving({ backend: 'lb-backend-https', joining: [], marked: [m0], current: [] });
    if (decision === 'needs_health') throw new Error('unexpected');
    expect(describeLeaving(decision.leaving)).toEqual([
      `leaving lb-backend-https: ${m0.ip} (server cp-0, marked needs-update; kOps removes it): added all the same: no other server could serve (better a doomed server than none)`,
    ]);
    expect(admittedLeavingWarning(decision.leaving)).toMatch(
      /^\[leaving_admitted\] added leaving server\(s\): 51\.15\.1\.10 of server cp-0/,
    );
    expect(admittedLeavingWarning([])).toBeUndefined();
  });
});

describe('leaving servers in discovery', () => {
  const server = (name: string, tags: string[], ip: string, state = 'running'): ObservedServer => ({
    id: `id-${name}`,
    name,
    state,
    tags,
    zone: 'fr-par-1',
    projectId: 'p',
    publicIpv4: [ip],
    publicIpv6: [],
    routedIpv4: [ip],
    ipStates: { [ip]: 'attached' },
    privateNics: [],
  });
  it('a running server with a leaving tag is marked, not a member; a stopped one is simply out', () => {
    const result = selectServerIps(
      [
        server('cp-0', [KOPS_NEEDS_UPDATE_TAG], '51.15.1.10'),
        server('cp-1', [], '51.15.1.11'),
        server('cp-2', [KOPS_NEEDS_UPDATE_TAG], '51.15.1.12', 'stopped'),
        server('cp-3', ['maintenance'], '51.15.1.13'),
      ],
      'kops',
      new Map(),
      unusablePoolAddress,
      [KOPS_NEEDS_UPDATE_TAG, 'maintenance'],
    );
    expect(result.ips).toEqual(['51.15.1.11']);
    expect(result.marked).toEqual([
      { server: 'cp-0', serverId: 'id-cp-0', ip: '51.15.1.10', tag: KOPS_NEEDS_UPDATE_TAG, why: 'marked needs-update; kOps removes it' },
      { server: 'cp-3', serverId: 'id-cp-3', ip: '51.15.1.13', tag: 'maintenance', why: 'tagged maintenance: leaving' },
    ]);
    expect(result.leaving.map((l) => l.server)).toEqual(['cp-2']);
  });
  it("an event's serverIps naming a leaving server is recognised", () => {
    expect(leavingAssertions(['51.15.1.10', '51.15.1.99'], [marked(0)]).map((m) => m.server)).toEqual(['cp-0']);
    expect(leavingAssertions(undefined, [marked(0)])).toEqual([]);
  });
  it('the kops shorthand names kOps needs-update tag; a full target names its own (none by default)', () => {
    expect(SCHEMA_TAG).toBe(KOPS_NEEDS_UPDATE_TAG);
    const [kops, full, own] = parseTargets([
      { kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1' } },
      {
        name: 'web',
        zone: 'fr-par-1',
        loadBalancer: { name: 'web' },
        backends: [{ name: 'b', forwardPort: 80 }],
        servers: { tags: ['web'] },
      },
      {
        name: 'api',
        zone: 'fr-par-1',
        loadBalancer: { name: 'api' },
        backends: [{ name: 'b', forwardPort: 80 }],
        servers: { tags: ['api'], leavingTags: ['maintenance'] },
      },
    ]);
    expect(kops?.servers.leavingTags).toEqual([KOPS_NEEDS_UPDATE_TAG]);
    expect(full?.servers.leavingTags).toEqual([]);
    expect(own?.servers.leavingTags).toEqual(['maintenance']);
  });
});
