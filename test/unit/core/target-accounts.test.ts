import { describe, expect, it } from 'vitest';
import { inTargetProject, keyIdOf, projectOf, trailGroups } from '../../../shared/core/target-accounts';
import { parseTargets, type Target } from '../../../shared/schemas/target';

const ORG_A = '0a0a0a0a-0000-4000-8000-00000000000a';
const ORG_B = '0b0b0b0b-0000-4000-8000-00000000000b';
const P1 = 'a1a1a1a1-0000-4000-8000-0000000000a1';
const P2 = 'a2a2a2a2-0000-4000-8000-0000000000a2';
const key = (name: string) => ({ accessKeyEnv: `${name}_ACCESS`, secretKeyEnv: `${name}_SECRET` });
const kops = (cluster: string, zone: string, extra: Record<string, unknown> = {}) => ({ kops: { cluster, zone, ...extra } });

describe('where a target lives and which key serves it', () => {
  it('a key is named by its variables, the deployment key by its place', () => {
    const [plain, own] = parseTargets([kops('a.b', 'fr-par-1'), kops('c.d', 'fr-par-1', { credentials: key('TEAM') })]);
    expect(keyIdOf(plain as Target)).toBe('deployment');
    expect(keyIdOf(own as Target)).toBe('TEAM_ACCESS/TEAM_SECRET');
  });

  it("a target's project: its own, else the deployment's; an event of another project concerns it not", () => {
    expect(projectOf({ projectId: P2 }, P1)).toBe(P2);
    expect(projectOf({}, P1)).toBe(P1);
    expect(projectOf({}, undefined)).toBeUndefined();
    const cases: [string | undefined, string | undefined, string | undefined, boolean][] = [
      // target's own, deployment's, event's, concerns it
      [undefined, P1, P1, true],
      [undefined, P1, P2, false],
      [P2, P1, P2, true],
      [P2, P1, P1, false],
      [undefined, undefined, P2, true],
      [P2, P1, undefined, true],
    ];
    for (const [own, deployment, event, expected] of cases)
      expect(inTargetProject(own ? { projectId: own } : {}, event, deployment), `${own} ${deployment} ${event}`).toBe(expected);
  });

  it('one Audit Trail read per (organization, region), keys tried with the deployment first, a project filter only when shared', () => {
    const targets = parseTargets([
      kops('one.k8s', 'fr-par-1', { projectId: P2, credentials: key('A2') }),
      kops('two.k8s', 'fr-par-2'),
      kops('three.k8s', 'fr-par-1', { organizationId: ORG_B, projectId: P1, credentials: key('B') }),
      kops('four.k8s', 'nl-ams-1', { organizationId: ORG_B, projectId: P1, credentials: key('B') }),
      kops('five.k8s', 'fr-par-2', { projectId: P2, credentials: key('A2') }),
    ]);
    const groups = trailGroups(targets, { organizationId: ORG_A, projectId: P1 });
    expect(
      groups.map((g) => ({
        at: `${g.organizationId}/${g.region}`,
        targets: g.targets.map((t) => t.name),
        keys: g.keyHolders.map(keyIdOf),
        project: g.projectId,
      })),
    ).toEqual([
      {
        at: `${ORG_A}/fr-par`,
        targets: ['one.k8s', 'two.k8s', 'five.k8s'],
        keys: ['deployment', 'A2_ACCESS/A2_SECRET'],
        project: undefined,
      },
      { at: `${ORG_B}/fr-par`, targets: ['three.k8s'], keys: ['B_ACCESS/B_SECRET'], project: P1 },
      { at: `${ORG_B}/nl-ams`, targets: ['four.k8s'], keys: ['B_ACCESS/B_SECRET'], project: P1 },
    ]);
    expect(trailGroups([], { organizationId: ORG_A })).toEqual([]);
  });
});
