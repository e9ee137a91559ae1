import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../../shared/core/audit-relevance';
import { isOwn } from '../../../shared/core/audit-relevance';
import { CONTEST_THRESHOLD, contests, contestWarning, foreignWrites } from '../../../shared/core/contest';
import { ownerOf, writerOf } from '../../../shared/core/writers';
import { parseTargets } from '../../../shared/schemas/target';

const SDK_GO = 'scaleway-sdk-go/v1.0.0-beta.36 (go1.26.6; linux; amd64)';
const UA = {
  kops: `${SDK_GO} kubernetes-kops/1.37.0-alpha.1`,
  terraform: `${SDK_GO} terraform-provider/v2.60.0 terraform/1.9.8`,
  ccm: `${SDK_GO} scaleway/ccm v0.31.0 (a1b2c3d)`,
  cli: `${SDK_GO} scaleway-cli/2.40.0`,
  console: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
  ours: 'scaleway-sdk-js/1.3.2 scw-lb-sync/0.1.0 owner/prod-par event/evt-1',
  other: 'scaleway-sdk-js/1.3.2 scw-lb-sync/0.1.0 owner/staging-par event/evt-2',
  legacy: 'scaleway-sdk-js/1.3.2 scw-lb-sync/0.0.9 event/evt-3',
};
const own = { userAgentMarker: 'scw-lb-sync/', principalIds: new Set<string>(), ownerId: 'prod-par' };
const [target] = parseTargets([{ kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1' } }]);
const targets = [target as NonNullable<typeof target>];
const NOW = Date.parse('2026-12-01T12:00:00Z');

let n = 0;
const write = (ua: string, minutesAgo: number, backend = 'b-1'): AuditEvent => ({
  id: `e-${++n}`,
  recordedAt: new Date(NOW - minutesAgo * 60_000).toISOString(),
  locality: 'fr-par-1',
  userAgent: ua,
  methodName: 'SetBackendServers',
  statusCode: 200,
  resources: [{ id: backend, type: 'load_balancer_backend', name: 'lb-backend-https', lbId: 'lb-1' }],
});

describe('writerOf: who wrote, from the User-Agent Audit Trail records', () => {
  it.each([
    [UA.kops, 'kops', 'kOps 1.37.0-alpha.1'],
    [UA.terraform, 'terraform', 'Terraform (scaleway provider v2.60.0)'],
    [UA.ccm, 'ccm', 'the Scaleway cloud-controller-manager v0.31.0'],
    [UA.cli, 'cli', 'the Scaleway CLI 2.40.0'],
    [UA.console, 'console', 'the Scaleway console (a browser)'],
    [UA.other, 'lbsync', 'another scw-lb-sync deployment (owner staging-par)'],
    [SDK_GO, 'sdk', 'a client of the Scaleway go SDK'],
    ['', 'unknown', 'an unknown client (no User-Agent)'],
  ])('%s', (ua, kind, name) => {
    expect(writerOf(ua)).toMatchObject({ kind, name });
  });
  it('another deployment by its owner id; ours by ours; an older scw-lb-sync, naming none, as ours', () => {
    expect(ownerOf(UA.other)).toBe('staging-par');
    expect(isOwn({ userAgent: UA.ours }, own)).toBe(true);
    expect(isOwn({ userAgent: UA.other }, own)).toBe(false);
    expect(isOwn({ userAgent: UA.legacy }, own)).toBe(true);
    expect(isOwn({ userAgent: UA.kops }, own)).toBe(false);
  });
});

describe('foreign writes and contests', () => {
  it('every write but ours is a foreign write of the target, named', () => {
    const events = [write(UA.kops, 5), write(UA.ours, 4), write(UA.terraform, 3), write(UA.other, 2)];
    expect(foreignWrites(events, targets, { own }).map((w) => [w.target, w.method, w.writer])).toEqual([
      ['prod.k8s.local', 'SetBackendServers', 'kOps 1.37.0-alpha.1'],
      ['prod.k8s.local', 'SetBackendServers', 'Terraform (scaleway provider v2.60.0)'],
      ['prod.k8s.local', 'SetBackendServers', 'another scw-lb-sync deployment (owner staging-par)'],
    ]);
  });
  it("a target with several LBs: a write on its fallback LB (another zone than its servers') is the target's, and a flap there is contested", () => {
    const [several] = parseTargets([
      {
        name: 'fleet',
        zone: 'fr-par-1',
        loadBalancers: [
          { name: 'api-main', zone: 'fr-par-1' },
          { name: 'api-fallback', zone: 'fr-par-2' },
        ],
        backends: [{ name: 'lb-backend-https', forwardPort: 443 }],
        servers: { tags: ['app=api'] },
      },
    ]);
    const onFallback = (ua: string, minutesAgo: number): AuditEvent => ({ ...write(ua, minutesAgo, 'b-2'), locality: 'fr-par-2' });
    const fleet = [several as NonNullable<typeof several>];
    expect(foreignWrites([onFallback(UA.kops, 5)], fleet, { own }).map((w) => [w.target, w.writer])).toEqual([
      ['fleet', 'kOps 1.37.0-alpha.1'],
    ]);
    // The kops target's LB is in fr-par-1 only: a write in fr-par-2 is not its.
    expect(foreignWrites([onFallback(UA.kops, 5)], targets, { own })).toEqual([]);
    const flap = [6, 4, 2].flatMap((m) => [onFallback(UA.terraform, m), onFallback(UA.ours, m - 1)]);
    expect(contests(flap, fleet, { own }, NOW)).toEqual([
      expect.objectContaining({ target: 'fleet', writerKind: 'terraform', reverts: 3 }),
    ]);
  });
  it(`a writer reverted ${CONTEST_THRESHOLD} times in 30 minutes is contested; twice, or too long ago, is not`, () => {
    const flap = (ua: string, from: number, times: number) =>
      Array.from({ length: times }, (_, i) => [write(ua, from - i * 2), write(UA.ours, from - i * 2 - 1)]).flat();
    expect(contests(flap(UA.terraform, 20, 3), targets, { own }, NOW)).toEqual([
      expect.objectContaining({ target: 'prod.k8s.local', writerKind: 'terraform', reverts: 3, windowMinutes: 30 }),
    ]);
    expect(contests(flap(UA.terraform, 20, 2), targets, { own }, NOW)).toEqual([]);
    expect(contests(flap(UA.terraform, 50, 3), targets, { own }, NOW)).toEqual([]);
    // A foreign write nobody reverted is no flap; two foreign writes before one of ours count once.
    expect(contests([write(UA.kops, 9), write(UA.kops, 8), write(UA.ours, 7), write(UA.kops, 6)], targets, { own }, NOW)).toEqual([]);
  });
  it('the warning names the writer and what to do; two deployments by both owner ids', () => {
    const [other] = contests(
      [write(UA.other, 9), write(UA.ours, 8), write(UA.other, 7), write(UA.ours, 6), write(UA.other, 5), write(UA.ours, 4)],
      targets,
      { own },
      NOW,
    );
    expect(other).toMatchObject({ writerKind: 'lbsync', owner: 'staging-par' });
    expect(contestWarning(other as NonNullable<typeof other>, 'prod-par')).toBe(
      '[pool_contested] target prod.k8s.local: scw-lb-sync reverted another scw-lb-sync deployment (owner staging-par) (owners staging-par and ours, prod-par) 3 times in the last 30 minutes: two scw-lb-sync deployments manage this target and undo each other: keep the target in one of them (compare their LBSYNC_TARGETS and LBSYNC_OWNER_ID)',
    );
    expect(contestWarning({ target: 't', writer: 'kOps 1.37', writerKind: 'kops', reverts: 4, windowMinutes: 30 })).toMatch(
      /expected: kOps' apply .* the pool converges, those fields are rewritten after each kOps apply \(docs\/kops-parity\.md, section 3\)$/,
    );
  });
});
