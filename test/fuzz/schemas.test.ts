// Property-based: the schemas accept every valid input, and refuse every other one the same way —
// an LbSyncError (invalid_event / invalid_config) naming each bad field with a path and a fix —
// without throwing anything else and without touching Object.prototype.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LbSyncError } from '../../shared/errors/lbsync-error';
import { decodeEvent, eventSchema, MAX_EVENT_BYTES, parseEvent } from '../../shared/schemas/event';
import { parseTargets } from '../../shared/schemas/target';
import {
  FUZZ,
  pollutingJson,
  pollutingKeys,
  prototypeIsClean,
  refusedIp,
  validEvent,
  validFullTarget,
  validKopsTarget,
  wrongValue,
  zoneShapedButUnknown,
  EVENT_FIELDS,
} from './arbitraries';

type Outcome = { ok: true; value: unknown } | { ok: false };

/** Runs fn; if it throws, the error must be a well-formed validation error of the given code. */
function refusedProperly(code: 'invalid_event' | 'invalid_config', fn: () => unknown): Outcome {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    expect(error).toBeInstanceOf(LbSyncError);
    const e = error as LbSyncError;
    expect(e.code).toBe(code);
    expect(e.fieldErrors?.length ?? 0).toBeGreaterThanOrEqual(1);
    for (const field of e.fieldErrors ?? []) {
      expect(typeof field.path).toBe('string');
      expect(field.path.length).toBeGreaterThan(0);
      expect(typeof field.fix).toBe('string');
      expect(field.fix.length).toBeGreaterThan(0);
      expect(typeof field.message).toBe('string');
    }
    return { ok: false };
  } finally {
    expect(prototypeIsClean()).toBe(true);
  }
}

describe('events', () => {
  it('the fields the fuzzers spoil are every field of the event schema', () => {
    expect([...EVENT_FIELDS].sort()).toEqual(Object.keys(eventSchema.shape).sort());
  });

  it('every valid event parses, decodes from JSON, and round-trips', () => {
    fc.assert(
      fc.property(validEvent, (event) => {
        const parsed = parseEvent(event);
        expect(parsed).toMatchObject(event);
        expect(decodeEvent(JSON.stringify(event))).toEqual(parsed);
      }),
      FUZZ,
    );
  });

  it('an event with one field given a wrong value is refused with that field named', () => {
    fc.assert(
      fc.property(validEvent, fc.constantFrom(...EVENT_FIELDS), wrongValue, (event, field, value) => {
        const broken = { ...event, [field]: value };
        const outcome = refusedProperly('invalid_event', () => parseEvent(broken));
        // Some "wrong" values are right for some fields (a boolean for dryRun, a small integer for attempt...).
        if (outcome.ok) return;
        expect(outcome.ok).toBe(false);
      }),
      FUZZ,
    );
  });

  it('wrong values that are wrong for every field are always refused, naming the field', () => {
    const alwaysWrong = fc.oneof(
      fc.constant(null),
      fc.double({ noInteger: true }),
      fc.array(fc.constant('999.1.1.1'), { minLength: 1, maxLength: 3 }),
      fc.constant({ __proto__: 1 }),
    );
    fc.assert(
      fc.property(validEvent, fc.constantFrom(...EVENT_FIELDS), alwaysWrong, (event, field, value) => {
        try {
          parseEvent({ ...event, [field]: value });
          expect.unreachable(`${field}=${JSON.stringify(value)} was accepted`);
        } catch (error) {
          expect((error as LbSyncError).fieldErrors?.some((f) => f.path.startsWith(`event.${field}`))).toBe(true);
        }
      }),
      FUZZ,
    );
  });

  it('random text, random JSON and unicode never throw anything but invalid_event', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.json(),
      validEvent.map((e) => JSON.stringify(e).slice(0, -1)), // truncated
    );
    fc.assert(
      fc.property(text, (body) => {
        refusedProperly('invalid_event', () => decodeEvent(body));
      }),
      FUZZ,
    );
  });

  it('prototype-pollution keys as own keys are refused and pollute nothing', () => {
    fc.assert(
      fc.property(pollutingJson, (body) => {
        const outcome = refusedProperly('invalid_event', () => decodeEvent(body));
        expect(outcome.ok).toBe(false);
      }),
      FUZZ,
    );
    for (const key of pollutingKeys) {
      expect(refusedProperly('invalid_event', () => parseEvent(JSON.parse(`{"${key}":{"polluted":true}}`))).ok).toBe(false);
    }
  });

  it('serverIps naming loopback, link-local, unspecified, multicast, reserved or IPv4-mapped addresses are refused, the field named', () => {
    fc.assert(
      fc.property(validEvent, refusedIp, fc.nat({ max: 5 }), (event, refused, at) => {
        const ips = [...(event.serverIps ?? [])];
        const index = Math.min(at, ips.length);
        ips.splice(index, 0, refused);
        try {
          parseEvent({ ...event, serverIps: ips });
          expect.unreachable(`${refused} was accepted`);
        } catch (error) {
          expect((error as LbSyncError).code).toBe('invalid_event');
          expect((error as LbSyncError).fieldErrors?.map((e) => e.path)).toContain(`event.serverIps[${index}]`);
        }
      }),
      FUZZ,
    );
  });

  it('huge arrays and huge bodies are refused without blowing up', () => {
    fc.assert(
      fc.property(validEvent, fc.integer({ min: 257, max: 3_000 }), (event, n) => {
        const outcome = refusedProperly('invalid_event', () =>
          parseEvent({ ...event, serverIps: Array.from({ length: n }, (_, i) => `10.0.${(i >> 8) & 255}.${i & 255}`) }),
        );
        expect(outcome.ok).toBe(false);
      }),
      { ...FUZZ, numRuns: 20 },
    );
    const big = JSON.stringify({
      version: 1,
      id: 'x',
      source: 'manual',
      target: 't',
      occurredAt: '2026-11-29T10:00:00Z',
      pad: 'x'.repeat(MAX_EVENT_BYTES),
    });
    expect(refusedProperly('invalid_event', () => decodeEvent(big)).ok).toBe(false);
    // Multi-byte characters count in bytes, not in UTF-16 units.
    const wide = JSON.stringify({
      version: 1,
      id: 'x',
      source: 'manual',
      target: 't',
      occurredAt: '2026-11-29T10:00:00Z',
      pad: '😀'.repeat(MAX_EVENT_BYTES / 4 + 1),
    });
    expect(refusedProperly('invalid_event', () => decodeEvent(wide)).ok).toBe(false);
  });
});

describe('targets', () => {
  it('every valid target (kOps shorthand or full form) parses', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(validKopsTarget, validFullTarget), { minLength: 1, maxLength: 4 }), (targets) => {
        // Names must be unique across the list; make them so.
        const unique = targets.map((t, i) =>
          'kops' in t
            ? { kops: { ...t.kops, cluster: `c${i}.${t.kops.cluster}`.slice(0, 253) } }
            : { ...t, name: `t${i}-${t.name}`.slice(0, 128) },
        );
        const parsed = parseTargets(unique);
        expect(parsed).toHaveLength(unique.length);
      }),
      { ...FUZZ, numRuns: 100 },
    );
  });

  const TARGET_PATHS: ((t: Record<string, unknown>, v: unknown) => Record<string, unknown>)[] = [
    (t, v) => ({ ...t, zone: v }),
    (t, v) => ({ ...t, name: v }),
    (t, v) => ({ ...t, loadBalancer: v }),
    (t, v) => ({ ...t, servers: v }),
    (t, v) => ({ ...t, backends: v }),
    (t, v) => ({ ...t, backends: [{ ...(t.backends as Record<string, unknown>[])[0], forwardPort: v }] }),
    (t, v) => ({ ...t, backends: [{ ...(t.backends as Record<string, unknown>[])[0], healthCheck: { port: v } }] }),
    (t, v) => ({ ...t, servers: { tags: ['a'], ipSource: v } }),
    (_t, v) => ({ kops: { cluster: v, zone: 'fr-par-1' } }),
    (_t, v) => ({ kops: { cluster: 'prod.k8s.local', zone: v } }),
  ];

  it('random and broken target lists never throw anything but invalid_config', () => {
    const broken = fc
      .tuple(validFullTarget, fc.integer({ min: 0, max: TARGET_PATHS.length - 1 }), wrongValue)
      .map(([t, i, v]) => (TARGET_PATHS[i] as (typeof TARGET_PATHS)[number])(t as Record<string, unknown>, v));
    const anyList = fc.oneof(
      fc.array(broken, { minLength: 1, maxLength: 3 }),
      fc.jsonValue(),
      fc.anything(),
      fc.array(fc.jsonValue(), { maxLength: 5 }),
    );
    fc.assert(
      fc.property(anyList, (value) => {
        refusedProperly('invalid_config', () => parseTargets(value));
      }),
      FUZZ,
    );
  });

  it('out-of-range ports, bad zones and polluting keys are refused', () => {
    const badPort = fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 65_536 }), fc.double({ noInteger: true }), fc.constant('443'));
    const badZone = fc.oneof(
      fc.constantFrom('fr-par', 'FR-PAR-1', 'fr-par-0', 'fr-paris-1', '', 'fr_par_1', 'fr-par-1 ', '🇫🇷-par-1', 'fr-par-3'),
      zoneShapedButUnknown,
    );
    fc.assert(
      fc.property(validFullTarget, badPort, badZone, fc.constantFrom(...pollutingKeys), (t, p, z, key) => {
        const withPort = { ...t, backends: [{ ...t.backends[0], forwardPort: p }] };
        expect(refusedProperly('invalid_config', () => parseTargets([withPort])).ok).toBe(false);
        expect(refusedProperly('invalid_config', () => parseTargets([{ ...t, zone: z }])).ok).toBe(false);
        expect(refusedProperly('invalid_config', () => parseTargets([{ kops: { cluster: 'prod.k8s.local', zone: z } }])).ok).toBe(false);
        const polluted = JSON.parse(`[{"${key}":{"polluted":"yes"},"kops":{"cluster":"prod.k8s.local","zone":"fr-par-1"}}]`) as unknown;
        expect(refusedProperly('invalid_config', () => parseTargets(polluted)).ok).toBe(false);
      }),
      { ...FUZZ, numRuns: 100 },
    );
  });

  it('huge target lists and backend lists are handled', () => {
    const many = Array.from({ length: 2_000 }, (_, i) => ({ kops: { cluster: `c${i}.k8s.local`, zone: 'fr-par-1' } }));
    expect(parseTargets(many)).toHaveLength(2_000);
    const tooManyBackends = {
      name: 't',
      zone: 'fr-par-1',
      loadBalancer: { name: 'lb' },
      servers: { tags: ['a'] },
      backends: Array.from({ length: 500 }, (_, i) => ({ name: `b${i}`, forwardPort: 443 })),
    };
    expect(refusedProperly('invalid_config', () => parseTargets([tooManyBackends])).ok).toBe(false);
  });
});
