// Shared fast-check arbitraries: valid events and targets, and the ways they go wrong.
import { isIPv4 } from 'node:net';
import fc from 'fast-check';
import { LB_ZONES } from '../../shared/schemas/primitives';

/** Fixed seed in CI (FUZZ_SEED overrides it to explore), moderate runs so the suite stays quick. */
export const FUZZ = { seed: Number(process.env.FUZZ_SEED ?? 424242), numRuns: Number(process.env.FUZZ_RUNS ?? 150) };

const alnum = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('');
const lower = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');

const chars = (alphabet: string[], min: number, max: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(''));

export const isoDate = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2199-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

export const eventId = fc.tuple(fc.constantFrom(...alnum), chars([...alnum, '.', '_', ':', '-'], 0, 60)).map(([a, b]) => a + b);
export const targetName = fc.tuple(fc.constantFrom(...alnum), chars([...alnum, '.', '_', '-'], 0, 40)).map(([a, b]) => a + b);
/** Addresses a backend may have (the refused ranges are filtered out by their own definition, below). */
export const ip = fc.oneof(fc.ipV4(), fc.ipV6()).filter((a) => !isRefusedRange(a));

/** Loopback, link-local (the metadata service), unspecified, multicast, reserved/broadcast, IPv4-mapped. */
export const refusedIp = fc.oneof(
  fc.constantFrom(
    '127.0.0.1',
    '169.254.42.42',
    '0.0.0.0',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'ff02::1',
    '::ffff:51.15.1.2',
    'fd00:42::42',
  ),
  fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
    .map(([a, b, c]) => `127.${a}.${b}.${c}`),
  fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })).map(([a, b]) => `169.254.${a}.${b}`),
  fc
    .tuple(
      fc.integer({ min: 224, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
    )
    .map((o) => o.join('.')),
  fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
    .map(([a, b, c]) => `0.${a}.${b}.${c}`),
  fc.ipV4().map((v4) => `::ffff:${v4}`),
  fc.integer({ min: 0, max: 0xffff }).map((n) => `fe80::${n.toString(16)}`),
  fc.integer({ min: 0, max: 0xffff }).map((n) => `ff0e::${n.toString(16)}`),
);

/** The refused ranges, written out independently of shared/schemas/backend-address.ts (the code under test). */
function isRefusedRange(address: string): boolean {
  if (isIPv4(address)) {
    const [a = 0, b = 0] = address.split('.').map(Number);
    return a === 0 || a === 127 || (a === 169 && b === 254) || a >= 224;
  }
  const full = new URL(`http://[${address}]`).hostname.slice(1, -1);
  return (
    full === '::' ||
    full === '::1' ||
    /^fe[89ab]/.test(full) ||
    full.startsWith('ff') ||
    full.startsWith('::ffff:') ||
    full === 'fd00:42::42'
  );
}

/** Every field of an event (the schema's keys). */
export const EVENT_FIELDS = [
  'version',
  'id',
  'source',
  'target',
  'occurredAt',
  'serverIps',
  'dryRun',
  'attempt',
  'notBefore',
  'firstAttemptAt',
  'contested',
] as const;

export const validEvent = fc.record(
  {
    version: fc.constant(1),
    id: eventId,
    source: fc.constantFrom('instance-replacement', 'manual', 'sweep'),
    target: targetName,
    occurredAt: isoDate,
    serverIps: fc.array(ip, { maxLength: 20 }),
    dryRun: fc.boolean(),
    attempt: fc.integer({ min: 0, max: 1000 }),
    notBefore: isoDate,
    firstAttemptAt: isoDate,
    contested: fc.array(
      fc.record({
        writer: fc.constantFrom('kOps 1.37.0', 'Terraform (scaleway provider v2.60.0)', 'another scw-lb-sync deployment (owner b)'),
        writerKind: fc.constantFrom('kops', 'terraform', 'lbsync'),
        reverts: fc.integer({ min: 1, max: 50 }),
        windowMinutes: fc.constant(30),
      }),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: ['version', 'id', 'source', 'target', 'occurredAt'] },
);

const dnsLabel = fc
  .tuple(fc.constantFrom(...lower), chars([...lower, '-'], 0, 10), fc.constantFrom(...lower))
  .map(([a, b, c]) => a + b + c);
export const clusterName = fc.array(dnsLabel, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));
/** A zone where Scaleway offers Load Balancers (the only ones a target may name). */
export const zone = fc.constantFrom(...LB_ZONES);
/** Shaped like a zone (xx-yyy-N) but not one of those: refused. */
export const zoneShapedButUnknown = fc
  .tuple(chars(lower.slice(0, 26), 2, 2), chars(lower.slice(0, 26), 3, 3), fc.integer({ min: 1, max: 9 }))
  .map(([a, b, n]) => `${a}-${b}-${n}`)
  .filter((z) => !(LB_ZONES as readonly string[]).includes(z));
const port = fc.integer({ min: 1, max: 65535 });
const uuid = fc.uuid();

export const validKopsTarget = fc.record({
  kops: fc.record(
    { cluster: clusterName, zone, kopsController: fc.oneof(fc.boolean(), fc.constant('auto' as const)) },
    { requiredKeys: ['cluster', 'zone'] },
  ),
});

const backend = (name: string) =>
  fc.record(
    {
      name: fc.constant(name),
      forwardProtocol: fc.constantFrom('tcp', 'http'),
      forwardPort: port,
      forwardPortAlgorithm: fc.constantFrom('roundrobin', 'leastconn', 'first'),
      stickySessions: fc.constantFrom('none', 'table'),
      proxyProtocol: fc.constantFrom(
        'proxy_protocol_none',
        'proxy_protocol_v1',
        'proxy_protocol_v2',
        'proxy_protocol_v2_ssl',
        'proxy_protocol_v2_ssl_cn',
      ),
      healthCheck: fc.record(
        {
          port,
          checkDelayMs: fc.integer({ min: 0, max: 3_600_000 }),
          checkTimeoutMs: fc.integer({ min: 0, max: 3_600_000 }),
          checkMaxRetries: fc.integer({ min: 0, max: 100 }),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['name', 'forwardPort'] },
  );

export const validFullTarget = fc
  .uniqueArray(fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme' }), { minLength: 1, maxLength: 5 })
  .chain((names) =>
    fc.record(
      {
        name: targetName,
        zone,
        loadBalancer: fc.oneof(fc.record({ name: fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' }) }), fc.record({ id: uuid })),
        backends: fc.tuple(...names.map(backend)),
        servers: fc.record(
          {
            tags: fc.array(fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' }), { minLength: 1, maxLength: 20 }),
            ipSource: fc.constantFrom('public', 'ipam-private'),
          },
          { requiredKeys: ['tags'] },
        ),
        allowEmptyPool: fc.boolean(),
      },
      { requiredKeys: ['name', 'zone', 'loadBalancer', 'backends', 'servers'] },
    ),
  )
  // A backend name longer than 255 UTF-16 units is (rightly) refused; graphemes can be long.
  .filter(
    (t) =>
      t.backends.every((b) => b.name.length <= 255) &&
      t.servers.tags.every((tag) => tag.length <= 255) &&
      ('id' in t.loadBalancer || t.loadBalancer.name.length <= 255),
  );

/** Values that are wrong for any field of an event or a target. */
export const wrongValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.integer(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u202e',
    '😀',
    'fr-par',
    'FR-PAR-1',
    'fr-par-0',
    'fr-paris-1',
    '999.1.1.1',
    '1.2.3',
    '::g',
    '1.2.3.4/24',
    ' 1.2.3.4',
  ),
  fc.integer({ min: 65536, max: 2 ** 31 }),
  fc.integer({ min: -(2 ** 31), max: 0 }),
  fc.array(fc.anything(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
);

/** Own keys that must never reach Object.prototype (JSON.parse makes them own properties). */
export const pollutingKeys = ['__proto__', 'constructor', 'prototype'] as const;

/** A JSON text whose object (at the root or nested) has a polluting own key. */
export const pollutingJson = fc
  .tuple(validEvent, fc.constantFrom(...pollutingKeys), fc.constantFrom('root', 'serverIps', 'nested'))
  .map(([event, key, where]) => {
    const payload = `{"polluted":"yes","toString":"x","constructor":{"prototype":{"polluted":"yes"}}}`;
    const base = JSON.stringify(event).slice(1, -1);
    if (where === 'root') return `{"${key}":${payload},${base}}`;
    // A repeated key: JSON.parse keeps the last one.
    if (where === 'serverIps') return `{${base},"serverIps":[{"${key}":${payload}}]}`;
    return `{${base},"extra":{"${key}":${payload}}}`;
  });

export function prototypeIsClean(): boolean {
  const probe = {} as Record<string, unknown>;
  return (
    probe.polluted === undefined &&
    (Object.prototype as Record<string, unknown>).polluted === undefined &&
    Object.keys(Object.prototype).length === 0
  );
}
