// Target zones are the ones where Scaleway offers Load Balancers, as the LB SDK lists them; a typo gets a suggestion.
import { Lbv1 } from '@scaleway/sdk-lb';
import { Instancev1 } from '@scaleway/sdk-instance';
import { describe, expect, it } from 'vitest';
import type { LbSyncError } from '../../../shared/errors/lbsync-error';
import { LB_ZONES } from '../../../shared/schemas/primitives';
import { parseTargets } from '../../../shared/schemas/target';

function fieldErrors(value: unknown) {
  try {
    parseTargets(value);
  } catch (error) {
    return (error as LbSyncError).fieldErrors ?? [];
  }
  throw new Error('expected the targets to be refused');
}

describe('zones', () => {
  it("are exactly the LB API's zones in @scaleway/sdk-lb (update LB_ZONES with the SDK)", () => {
    const locality = Lbv1.ZonedAPI.LOCALITY as { type: string; zones: string[] };
    expect(locality.type).toBe('zone');
    expect([...LB_ZONES]).toEqual(locality.zones);
    expect(LB_ZONES).toEqual(
      expect.arrayContaining(['fr-par-1', 'fr-par-2', 'nl-ams-1', 'nl-ams-2', 'nl-ams-3', 'pl-waw-1', 'pl-waw-2', 'pl-waw-3']),
    );
  });

  it('every one of them is accepted in both target forms', () => {
    for (const zone of LB_ZONES) {
      expect(parseTargets([{ kops: { cluster: `c-${zone}.k8s.local`, zone } }])[0]?.zone).toBe(zone);
    }
  });

  it('a zone with Instances but no Load Balancers (fr-par-3) is refused, with the list', () => {
    const instanceZones = (Instancev1.API.LOCALITY as { zones: string[] }).zones;
    expect(instanceZones).toContain('fr-par-3');
    expect(LB_ZONES).not.toContain('fr-par-3');
    const [error] = fieldErrors([{ kops: { cluster: 'a.k8s.local', zone: 'fr-par-3' } }]);
    expect(error).toMatchObject({
      path: 'targets[0].kops.zone',
      message: 'must be a zone where Scaleway offers Load Balancers',
      received: '"fr-par-3"',
      allowed: [...LB_ZONES],
    });
  });

  it('a typo names the zone it is closest to', () => {
    const [error] = fieldErrors([
      { name: 'x', zone: 'fr-pra-1', loadBalancer: { name: 'lb' }, backends: [{ name: 'b', forwardPort: 443 }], servers: { tags: ['t'] } },
    ]);
    expect(error).toMatchObject({ path: 'targets[0].zone', fix: `did you mean "fr-par-1"? (one of: ${LB_ZONES.join(', ')})` });
    expect(fieldErrors([{ kops: { cluster: 'a.k8s.local', zone: 'mars-1' } }])[0]?.fix).toBe(`use one of: ${LB_ZONES.join(', ')}`);
  });
});
