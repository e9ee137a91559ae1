import { describe, expect, it } from 'vitest';
import { apiOfPath, parseDenial, PermissionRules } from '../../../emulator/permissions';

describe('emulator: an API denied to one key', () => {
  const rules = new PermissionRules([{ secretKey: 'key-without-ipam', api: 'ipam' }]);

  it('answers that key 403 permissions_denied on that API only', () => {
    const refusal = rules.refusal('key-without-ipam', 'GET', '/ipam/v1/regions/fr-par/ips');
    expect(refusal?.status).toBe(403);
    expect(refusal?.body).toMatchObject({ type: 'permissions_denied', details: [{ resource: 'ipam_ips', action: 'read' }] });
    expect(rules.refusal('key-without-ipam', 'GET', '/lb/v1/zones/fr-par-1/lbs')).toBeUndefined();
    expect(rules.refusal('another-key', 'GET', '/ipam/v1/regions/fr-par/ips')).toBeUndefined();
    expect(rules.refusal(undefined, 'GET', '/ipam/v1/regions/fr-par/ips')).toBeUndefined();
    expect(new PermissionRules().refusal('key-without-ipam', 'GET', '/ipam/v1/regions/fr-par/ips')).toBeUndefined();
  });

  it('names the API of a path', () => {
    expect(['/lb/v1/zones/x/lbs', '/instance/v1/zones/x/servers', '/ipam/v1/regions/x/ips', '/_emulator/state'].map(apiOfPath)).toEqual([
      'lb',
      'instance',
      'ipam',
      undefined,
    ]);
  });

  it('reads --deny <api>:<secret key>, and refuses anything else', () => {
    expect(parseDenial('lb:abc:def')).toEqual({ api: 'lb', secretKey: 'abc:def' });
    for (const bad of ['ipam', 'dns:key', ':key', 'ipam:']) expect(() => parseDenial(bad)).toThrow(/<api>:<secret key>/);
  });
});
