// Field errors of a targets file name the key or value a typo was meant to be.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { LbSyncError } from '../../../shared/errors/lbsync-error';
import { keysAt, toFieldErrors } from '../../../shared/schemas/zod-issues';
import { fullTargetSchema, parseTargets } from '../../../shared/schemas/target';

function fieldErrors(value: unknown) {
  try {
    parseTargets(value);
  } catch (error) {
    return (error as LbSyncError).fieldErrors ?? [];
  }
  throw new Error('expected the targets to be refused');
}

const full = (extra: Record<string, unknown>) => ({
  name: 'x',
  zone: 'fr-par-1',
  loadBalancer: { name: 'lb' },
  backends: [{ name: 'b', forwardPort: 443 }],
  servers: { tags: ['t'] },
  ...extra,
});

describe('unknown keys', () => {
  it('"kop" for the kOps shorthand: that one typo, not the full form\'s missing fields', () => {
    expect(fieldErrors([{ kop: { cluster: 'a.k8s.local', zone: 'fr-par-1' } }])).toEqual([
      {
        path: 'targets[0]',
        message: 'Unrecognized key: "kop" (did you mean "kops"?)',
        fix: 'rename "kop" to "kops" (the kOps shorthand: {"kops": {"cluster": "...", "zone": "..."}})',
      },
    ]);
  });

  it('"clustr" in the shorthand -> "cluster"', () => {
    expect(fieldErrors([{ kops: { clustr: 'a.k8s.local', zone: 'fr-par-1' } }])).toContainEqual({
      path: 'targets[0].kops',
      message: 'Unrecognized key: "clustr" (did you mean "cluster"?)',
      fix: 'rename "clustr" to "cluster"',
    });
  });

  it('nested keys, by the schema at their path (arrays and optional fields looked through)', () => {
    const errors = fieldErrors([
      { ...full({}), backends: [{ name: 'b', forwardPort: 443, helthCheck: { port: 1 } }], servers: { tags: ['t'], ipsource: 'kops' } },
    ]);
    expect(errors).toContainEqual({
      path: 'targets[0].backends[0]',
      message: 'Unrecognized key: "helthCheck" (did you mean "healthCheck"?)',
      fix: 'rename "helthCheck" to "healthCheck"',
    });
    expect(errors).toContainEqual({
      path: 'targets[0].servers',
      message: 'Unrecognized key: "ipsource" (did you mean "ipSource"?)',
      fix: 'rename "ipsource" to "ipSource"',
    });
  });

  it('loadBalancer (name or id, a union): the typo is told once with both keys, not as "Invalid input"', () => {
    expect(fieldErrors([full({ loadBalancer: { nmae: 'api.x' } })])).toEqual([
      {
        path: 'targets[0].loadBalancer',
        message: 'Unrecognized key: "nmae" (did you mean "name"?)',
        fix: 'rename "nmae" to "name" (give one of: name, id)',
      },
    ]);
  });

  it('loadBalancer {} (or both keys, or none): its two forms named, and a fix that says them', () => {
    for (const loadBalancer of [{}, { name: 'api.x', id: '00000000-0000-4000-8000-000000000000' }]) {
      expect(fieldErrors([full({ loadBalancer })])).toEqual([
        expect.objectContaining({
          path: 'targets[0].loadBalancer',
          message: 'fits none of its forms: {"name": ...} or {"id": ...}',
          fix: 'give exactly one of "name" or "id" (see the configuration reference)',
        }),
      ]);
    }
    const { loadBalancer: _lb, ...without } = full({});
    expect(fieldErrors([without])).toEqual([
      expect.objectContaining({
        path: 'targets[0].loadBalancer',
        message:
          'is missing: give loadBalancer {"name": ...} or {"id": ...} (the LB in the target\'s zone), or loadBalancers [{"name" | "id", "zone"}, ...]',
      }),
    ]);
  });

  it('a key close to nothing is to be removed, as before', () => {
    expect(fieldErrors([full({ banana: 1 })])).toEqual([
      {
        path: 'targets[0]',
        message: 'Unrecognized key: "banana"',
        fix: 'remove "banana" (check the spelling against the configuration reference)',
      },
    ]);
  });

  it('an enum value gets the closest allowed value', () => {
    const [error] = fieldErrors([full({ backends: [{ name: 'b', forwardPort: 443, forwardProtocol: 'tpc' }] })]);
    expect(error).toMatchObject({
      path: 'targets[0].backends[0].forwardProtocol',
      received: '"tpc"',
      fix: 'did you mean "tcp"? (one of: tcp, http)',
    });
  });

  it('keysAt walks objects, arrays, wrappers and unions; without a schema, no suggestion', () => {
    expect(keysAt(fullTargetSchema, ['backends', 0, 'healthCheck'])).toEqual([
      'type',
      'port',
      'checkDelayMs',
      'checkTimeoutMs',
      'checkMaxRetries',
      'checkSendProxy',
      'transientCheckDelayMs',
      'http',
    ]);
    expect(keysAt(fullTargetSchema, ['backends', 0, 'healthCheck', 'http'])).toEqual(['uri', 'method', 'code', 'hostHeader', 'sni']);
    expect(keysAt(fullTargetSchema, ['loadBalancer'])).toEqual(['name', 'id']);
    expect(keysAt(fullTargetSchema, ['nope'])).toEqual([]);
    const parsed = z.object({ cluster: z.string() }).strict().safeParse({ cluster: 'a', clustr: 'b' });
    expect(parsed.success).toBe(false);
    if (!parsed.success)
      expect(toFieldErrors(parsed.error)[0]?.fix).toBe('remove "clustr" (check the spelling against the configuration reference)');
  });
});
