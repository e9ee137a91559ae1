import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Action, BackendOptions, DesiredBackend, ObservedBackend, ObservedHealthCheck } from '../../../shared/core/model';
import { DEFAULT_HEALTH_CHECK } from '../../../shared/schemas/api-defaults';
import {
  changeReason,
  comparedFields,
  judgeAllDuplicates,
  judgeDuplicates,
  plan,
  planBackend,
  planDuplicateCleanup,
} from '../../../shared/core/plan';
import type { BackendSpec, HealthCheckSpec } from '../../../shared/schemas/target';

const spec: BackendSpec = {
  name: 'lb-backend-https',
  forwardProtocol: 'tcp',
  forwardPort: 443,
  forwardPortAlgorithm: 'roundrobin',
  stickySessions: 'none',
  proxyProtocol: 'proxy_protocol_none',
  healthCheck: { port: 443, checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 },
  createIfMissing: true,
};

function observed(overrides: Partial<ObservedBackend> = {}): ObservedBackend {
  return {
    id: 'b-1',
    name: 'lb-backend-https',
    forwardProtocol: 'tcp',
    forwardPort: 443,
    forwardPortAlgorithm: 'roundrobin',
    stickySessions: 'none',
    stickySessionsCookieName: '',
    proxyProtocol: 'proxy_protocol_none',
    healthCheck: {
      type: 'tcp',
      port: 443,
      checkDelayMs: 3000,
      checkTimeoutMs: 1000,
      checkMaxRetries: 5,
      checkSendProxy: false,
      passthrough: {},
    },
    pool: ['10.0.0.1', '10.0.0.2', '10.0.0.3'],
    onMarkedDownAction: 'on_marked_down_action_none',
    timeoutServerMs: 300000,
    passthrough: { sslBridging: false },
    ...overrides,
  };
}

const desired = (pool: string[], s: BackendSpec = spec): DesiredBackend => ({ spec: s, pool });

/** The health check kOps creates: 0 ms delay and timeout (its nanoseconds). */
const KOPS_MADE_CHECK: ObservedHealthCheck = {
  type: 'tcp',
  port: 443,
  checkDelayMs: 0,
  checkTimeoutMs: 0,
  checkMaxRetries: 5,
  checkSendProxy: false,
  passthrough: {},
};

describe('planBackend', () => {
  const cases: { name: string; desired: DesiredBackend; observed: ObservedBackend | undefined; kinds: string[] }[] = [
    { name: 'in sync', desired: desired(['10.0.0.1', '10.0.0.2', '10.0.0.3']), observed: observed(), kinds: [] },
    {
      name: 'pool order and duplicates do not matter',
      desired: desired(['10.0.0.3', '10.0.0.1', '10.0.0.2', '10.0.0.1']),
      observed: observed(),
      kinds: [],
    },
    { name: 'missing backend is created', desired: desired(['10.0.0.1']), observed: undefined, kinds: ['CreateBackend'] },
    {
      name: 'one server replaced: one SetBackendServers',
      desired: desired(['10.0.0.1', '10.0.0.2', '10.0.0.9']),
      observed: observed(),
      kinds: ['SetBackendServers'],
    },
    {
      name: 'algorithm drift: UpdateBackend only',
      desired: desired(['10.0.0.1', '10.0.0.2', '10.0.0.3']),
      observed: observed({ forwardPortAlgorithm: 'leastconn' }),
      kinds: ['UpdateBackend'],
    },
    {
      name: 'port drift: UpdateBackend',
      desired: desired(['10.0.0.1', '10.0.0.2', '10.0.0.3']),
      observed: observed({ forwardPort: 6443 }),
      kinds: ['UpdateBackend'],
    },
    {
      name: 'health-check delay drift: UpdateHealthCheck only',
      desired: desired(['10.0.0.1', '10.0.0.2', '10.0.0.3']),
      observed: observed({
        healthCheck: {
          type: 'tcp',
          port: 443,
          checkDelayMs: 60000,
          checkTimeoutMs: 1000,
          checkMaxRetries: 5,
          checkSendProxy: false,
          passthrough: {},
        },
      }),
      kinds: ['UpdateHealthCheck'],
    },
    {
      name: 'everything drifts: update, health check, pool in that order',
      desired: desired(['10.0.0.7']),
      observed: observed({
        proxyProtocol: 'proxy_protocol_v2',
        healthCheck: { type: 'tcp', port: 80, checkMaxRetries: 2, checkSendProxy: false, passthrough: {} },
      }),
      kinds: ['UpdateBackend', 'UpdateHealthCheck', 'SetBackendServers'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(planBackend(c.desired, c.observed).map((a) => a.kind)).toEqual(c.kinds);
    });
  }

  it('does not compare health-check fields the target does not name', () => {
    const partial: BackendSpec = { ...spec, healthCheck: { checkMaxRetries: 5 } };
    const kopsMade = observed({ healthCheck: KOPS_MADE_CHECK });
    expect(planBackend(desired(kopsMade.pool, partial), kopsMade)).toEqual([]);
    const noHealthCheck: BackendSpec = { ...spec, healthCheck: undefined };
    expect(planBackend(desired(kopsMade.pool, noHealthCheck), kopsMade)).toEqual([]);
  });

  it('keeps unnamed health-check fields and passthrough config when updating the check', () => {
    const obs = observed({
      healthCheck: {
        type: 'tcp',
        port: 443,
        checkDelayMs: 60000,
        checkTimeoutMs: 30000,
        checkMaxRetries: 2,
        checkSendProxy: true,
        transientCheckDelayMs: 500,
        passthrough: {},
      },
    });
    const partial: BackendSpec = { ...spec, healthCheck: { checkMaxRetries: 5 } };
    const [action] = planBackend(desired(obs.pool, partial), obs);
    expect(action).toMatchObject({
      kind: 'UpdateHealthCheck',
      healthCheck: {
        type: 'tcp',
        port: 443,
        checkDelayMs: 60000,
        checkTimeoutMs: 30000,
        checkMaxRetries: 5,
        checkSendProxy: true,
        transientCheckDelayMs: 500,
        passthrough: {},
      },
      changes: [{ field: 'healthCheck.checkMaxRetries', from: 2, to: 5 }],
    });
  });

  it('fills a duration the API did not report with its create default, since UpdateHealthCheck requires both', () => {
    const obs = observed({ healthCheck: { type: 'tcp', port: 443, checkMaxRetries: 2, checkSendProxy: false, passthrough: {} } });
    const [action] = planBackend(desired(obs.pool, { ...spec, healthCheck: { checkMaxRetries: 5 } }), obs);
    expect(action).toMatchObject({
      kind: 'UpdateHealthCheck',
      healthCheck: { checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 },
    });
  });

  it('sends the observed unmanaged fields back on the full PUT', () => {
    const [action] = planBackend(desired(observed().pool), observed({ stickySessions: 'table' }));
    expect(action).toMatchObject({
      kind: 'UpdateBackend',
      options: { onMarkedDownAction: 'on_marked_down_action_none', timeoutServerMs: 300000 },
      passthrough: { sslBridging: false },
      changes: [{ field: 'stickySessions', from: 'table', to: 'none' }],
    });
  });

  it('reports the pool difference and writes the sorted, de-duplicated set', () => {
    const [action] = planBackend(desired(['10.0.0.10', '10.0.0.2', '10.0.0.1', '10.0.0.2']), observed());
    expect(action).toMatchObject({
      kind: 'SetBackendServers',
      pool: ['10.0.0.1', '10.0.0.2', '10.0.0.10'],
      added: ['10.0.0.10'],
      removed: ['10.0.0.3'],
    });
  });

  it('creates with the API default health check on the forward port when none is named', () => {
    const [action] = planBackend(desired(['10.0.0.1']), undefined);
    expect(action).toMatchObject({ kind: 'CreateBackend', healthCheck: { type: 'tcp', port: 443, ...DEFAULT_HEALTH_CHECK } });
    const [bare] = planBackend(desired(['10.0.0.1'], { ...spec, forwardPort: 8443, healthCheck: undefined }), undefined);
    expect(bare).toMatchObject({ healthCheck: { type: 'tcp', port: 8443, checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 } });
  });
});

describe('backends kept in sync only while the LB has them (createIfMissing: false, kopsController "auto")', () => {
  const controller: BackendSpec = {
    ...spec,
    name: 'lb-backend-kops-controller',
    forwardPort: 3988,
    healthCheck: { port: 3988, checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 },
  };
  const present = (patch: Partial<ObservedBackend> = {}) =>
    observed({
      name: 'lb-backend-kops-controller',
      forwardPort: 3988,
      healthCheck: {
        type: 'tcp',
        port: 3988,
        checkDelayMs: 3000,
        checkTimeoutMs: 1000,
        checkMaxRetries: 5,
        checkSendProxy: false,
        passthrough: {},
      },
      ...patch,
    });
  const pool = ['10.0.0.1', '10.0.0.2', '10.0.0.3'];
  const cases: { name: string; createIfMissing: boolean; observed: ObservedBackend | undefined; kinds: string[] }[] = [
    { name: 'absent, sync only if present: nothing, never created', createIfMissing: false, observed: undefined, kinds: [] },
    { name: 'absent, create and sync: created', createIfMissing: true, observed: undefined, kinds: ['CreateBackend'] },
    { name: 'present and in sync: nothing', createIfMissing: false, observed: present(), kinds: [] },
    {
      name: 'present with a stale pool: the pool is synced',
      createIfMissing: false,
      observed: present({ pool: ['10.0.0.1', '10.0.0.9'] }),
      kinds: ['SetBackendServers'],
    },
    {
      name: 'present as kOps made it (0 ms health check): the check is fixed',
      createIfMissing: false,
      observed: present({
        healthCheck: {
          type: 'tcp',
          port: 3988,
          checkDelayMs: 0,
          checkTimeoutMs: 0,
          checkMaxRetries: 5,
          checkSendProxy: false,
          passthrough: {},
        },
      }),
      kinds: ['UpdateHealthCheck'],
    },
    {
      name: 'present with other settings: updated like any managed backend',
      createIfMissing: false,
      observed: present({ forwardPortAlgorithm: 'first' }),
      kinds: ['UpdateBackend'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(planBackend(desired(pool, { ...controller, createIfMissing: c.createIfMissing }), c.observed).map((a) => a.kind)).toEqual(
        c.kinds,
      );
    });
  }
});

describe('why each field is written', () => {
  it.each([
    [
      'healthCheck.checkDelayMs',
      0,
      3000,
      /the target asks 3000; 0 ms is what kOps creates: it passes 3000 and 1001 as Go durations \(nanoseconds\)/,
    ],
    ['healthCheck.checkTimeoutMs', 0, 1000, /0 ms is what kOps creates/],
    ['healthCheck.checkDelayMs', 60000, 3000, /^the target asks 3000, the LB has 60000$/],
    ['forwardPortAlgorithm', 'leastconn', 'roundrobin', /^the target asks "roundrobin", the LB has "leastconn"$/],
    ['healthCheck.port', undefined, 443, /^the target asks 443; the LB has none set$/],
    ['maxConnections', undefined, 0, /^the target asks 0; the LB has none set$/],
  ] as const)('%s %s -> %s', (field, from, to, reason) => {
    expect(changeReason(field, from, to)).toMatch(reason);
  });

  it('every change the planner makes carries its reason', () => {
    const kopsMade = observed({ healthCheck: KOPS_MADE_CHECK });
    const [action] = planBackend(desired(kopsMade.pool), kopsMade);
    expect(action).toMatchObject({
      kind: 'UpdateHealthCheck',
      changes: [
        { field: 'healthCheck.checkDelayMs', from: 0, to: 3000, reason: expect.stringContaining('kOps') },
        { field: 'healthCheck.checkTimeoutMs', from: 0, to: 1000, reason: expect.stringContaining('kOps') },
      ],
    });
  });
});

describe('plan', () => {
  it('plans every backend of a target in order, each against its own observation', () => {
    const controller: BackendSpec = { ...spec, name: 'lb-backend-kops-controller', forwardPort: 3988, healthCheck: { port: 3988 } };
    const actions = plan(
      [desired(['10.0.0.1', '10.0.0.2', '10.0.0.3']), desired(['10.0.0.1', '10.0.0.2', '10.0.0.3'], controller)],
      new Map([['lb-backend-https', observed()]]),
    );
    expect(actions.map((a) => [a.kind, a.backend])).toEqual([['CreateBackend', 'lb-backend-kops-controller']]);
  });
});

describe('duplicates of a managed backend name', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  const kept = observed({ id: 'keep', createdAt: '2026-11-29T10:00:00Z' });
  const dup = (id: string, patch: Partial<ObservedBackend> = {}) => observed({ id, createdAt: '2026-11-29T11:00:00Z', ...patch });

  it('removes an unused duplicate with our settings past the grace period, and nothing else', () => {
    const duplicates = {
      name: 'lb-backend-https',
      kept,
      others: [dup('ours'), dup('used'), dup('theirs', { forwardPort: 8443 }), dup('fresh', { createdAt: '2026-11-29T11:59:50Z' })],
      inUse: new Set(['used']),
    };
    expect(judgeDuplicates(spec, duplicates, now, 30_000).map((v) => [v.backend.id, v.remove, v.reason])).toEqual([
      ['ours', true, "unused duplicate with the target's own settings"],
      ['used', false, 'a frontend uses it'],
      ['theirs', false, 'its settings differ from the target (not made by this tool)'],
      ['fresh', false, 'it is younger than the 30000 ms grace period'],
    ]);
    expect(planDuplicateCleanup(judgeAllDuplicates([desired(kept.pool)], [duplicates], now, 30_000))).toEqual([
      { kind: 'DeleteDuplicateBackend', backend: 'lb-backend-https', backendId: 'ours', keptId: 'keep' },
    ]);
  });

  it('leaves duplicates of names the target does not manage alone', () => {
    const duplicates = { name: 'someone-elses', kept, others: [dup('x', { name: 'someone-elses' })], inUse: new Set<string>() };
    expect(planDuplicateCleanup(judgeAllDuplicates([desired(kept.pool)], [duplicates], now, 0))).toEqual([]);
  });
});

describe('backend fields a target may name: compared and written only then', () => {
  const pool = ['10.0.0.1', '10.0.0.2', '10.0.0.3'];
  // Each field, a value the target names, and the LB's answers: another value, and null (read as absent).
  const fields: [keyof BackendOptions, BackendOptions[keyof BackendOptions], BackendOptions[keyof BackendOptions]][] = [
    ['onMarkedDownAction', 'shutdown_sessions', 'on_marked_down_action_none'],
    ['timeoutServerMs', 60_000, 300_000],
    ['timeoutConnectMs', 2_500, 5_000],
    ['timeoutTunnelMs', 3_000, 900_000],
    ['maxRetries', 6, 3],
    ['redispatchAttemptCount', 1, 0],
    ['maxConnections', 42, 0],
    ['timeoutQueueMs', 4_000, 0],
  ];

  it.each(fields)('%s: named and different -> one UpdateBackend sending it; equal -> nothing', (field, wanted, other) => {
    const named: BackendSpec = { ...spec, [field]: wanted };
    const [action, ...rest] = planBackend(desired(pool, named), observed({ [field]: other }));
    expect(rest).toEqual([]);
    expect(action).toMatchObject({ kind: 'UpdateBackend', changes: [{ field, from: other, to: wanted }] });
    expect(action?.kind === 'UpdateBackend' && action.options[field]).toBe(wanted);
    expect(planBackend(desired(pool, named), observed({ [field]: wanted }))).toEqual([]);
  });

  it.each(fields)('%s: a null answer (not set) is written once with the named value', (field, wanted) => {
    const unset = observed();
    delete unset[field];
    const [action] = planBackend(desired(pool, { ...spec, [field]: wanted }), unset);
    expect(action).toMatchObject({ kind: 'UpdateBackend', changes: [{ field, from: undefined, to: wanted }] });
    expect(comparedFields({ ...spec, [field]: wanted })).toContain(field);
  });

  it.each(fields)('%s: not named -> never compared, and sent back as the LB holds it on a full PUT', (field, _wanted, other) => {
    expect(planBackend(desired(pool), observed({ [field]: other }))).toEqual([]);
    expect(comparedFields(spec)).not.toContain(field);
    const [action] = planBackend(desired(pool), observed({ [field]: other, stickySessions: 'table' }));
    expect(action?.kind === 'UpdateBackend' && action.options[field]).toBe(other);
  });

  it('a create sends only the fields the target names', () => {
    const [action] = planBackend(desired(pool, { ...spec, maxConnections: 0, timeoutQueueMs: 4000 }), undefined);
    expect(action).toMatchObject({ kind: 'CreateBackend', options: { maxConnections: 0, timeoutQueueMs: 4000 } });
    expect(Object.keys(action?.kind === 'CreateBackend' ? action.options : {})).toEqual(['maxConnections', 'timeoutQueueMs']);
  });
});

describe('health checks a target may name: tcp, http, https, and their fields', () => {
  const pool = ['10.0.0.1', '10.0.0.2', '10.0.0.3'];
  const tcp = observed().healthCheck as ObservedHealthCheck;
  const httpCheck: ObservedHealthCheck = {
    ...tcp,
    type: 'http',
    http: { uri: '/healthz', method: 'GET', code: 200, hostHeader: 'api.internal' },
  };
  const withCheck = (healthCheck: BackendSpec['healthCheck']): BackendSpec => ({ ...spec, healthCheck });
  const checkOf = (s: BackendSpec, o: ObservedHealthCheck | undefined) => {
    const [action, ...rest] = planBackend(desired(pool, s), observed({ healthCheck: o }));
    expect(rest).toEqual([]);
    return action?.kind === 'UpdateHealthCheck' ? action : undefined;
  };

  it('tcp -> http: the type and the named http fields change; the config sent is http alone, GET unless named', () => {
    const action = checkOf(withCheck({ type: 'http', http: { uri: '/readyz', code: 200 } }), tcp);
    expect(action?.changes.map((c) => [c.field, c.from, c.to])).toEqual([
      ['healthCheck.type', 'tcp', 'http'],
      ['healthCheck.http.uri', undefined, '/readyz'],
      ['healthCheck.http.code', undefined, 200],
    ]);
    expect(action?.healthCheck).toEqual({ ...tcp, type: 'http', http: { uri: '/readyz', method: 'GET', code: 200 }, passthrough: {} });
  });

  it('http -> tcp: the http config is cleared', () => {
    const action = checkOf(withCheck({ type: 'tcp' }), httpCheck);
    expect(action?.changes.map((c) => c.field)).toEqual(['healthCheck.type']);
    expect(action?.healthCheck.http).toBeUndefined();
    expect(action?.healthCheck.type).toBe('tcp');
  });

  it('http -> https keeps what the LB had of the request and adds the SNI; https -> http drops it', () => {
    const toHttps = checkOf(withCheck({ type: 'https', http: { uri: '/healthz', sni: 'api.internal' } }), httpCheck);
    expect(toHttps?.changes.map((c) => c.field)).toEqual(['healthCheck.type', 'healthCheck.http.sni']);
    expect(toHttps?.healthCheck.http).toEqual({ ...httpCheck.http, sni: 'api.internal' });
    const httpsCheck = { ...httpCheck, type: 'https', http: { ...httpCheck.http, sni: 'api.internal' } } as ObservedHealthCheck;
    const toHttp = checkOf(withCheck({ type: 'http', http: { uri: '/healthz' } }), httpsCheck);
    expect(toHttp?.healthCheck.http).toEqual(httpCheck.http);
  });

  it('an http field not named is not compared, and sent back as the LB holds it', () => {
    expect(checkOf(withCheck({ type: 'http', http: { uri: '/healthz' } }), httpCheck)).toBeUndefined();
    const action = checkOf(withCheck({ type: 'http', http: { uri: '/healthz', method: 'HEAD' } }), httpCheck);
    expect(action?.changes.map((c) => [c.field, c.from, c.to])).toEqual([['healthCheck.http.method', 'GET', 'HEAD']]);
    expect(action?.healthCheck.http).toEqual({ ...httpCheck.http, method: 'HEAD' });
  });

  it('checkSendProxy and transientCheckDelayMs are compared when named, kept otherwise', () => {
    const action = checkOf(withCheck({ checkSendProxy: true, transientCheckDelayMs: 200 }), { ...tcp, transientCheckDelayMs: 500 });
    expect(action?.changes.map((c) => [c.field, c.from, c.to])).toEqual([
      ['healthCheck.checkSendProxy', false, true],
      ['healthCheck.transientCheckDelayMs', 500, 200],
    ]);
    expect(checkOf(withCheck({ checkMaxRetries: 5 }), { ...tcp, checkSendProxy: true, transientCheckDelayMs: 500 })).toBeUndefined();
    expect(
      checkOf(withCheck({ checkMaxRetries: 3 }), { ...tcp, checkSendProxy: true, transientCheckDelayMs: 500 })?.healthCheck,
    ).toMatchObject({
      checkSendProxy: true,
      transientCheckDelayMs: 500,
    });
  });

  it("another kind's config (mysql) is kept while the type is not named, and replaced when it is", () => {
    const mysql: ObservedHealthCheck = { ...tcp, type: 'mysql', passthrough: { mysqlConfig: { user: 'probe' } } };
    expect(checkOf(withCheck({ checkMaxRetries: 3 }), mysql)?.healthCheck).toMatchObject({
      type: 'mysql',
      passthrough: { mysqlConfig: { user: 'probe' } },
    });
    const toTcp = checkOf(withCheck({ type: 'tcp' }), mysql)?.healthCheck;
    expect(toTcp?.type).toBe('tcp');
    expect(toTcp?.passthrough).toEqual({});
  });

  it('a create sends the type and http config named, TCP otherwise', () => {
    const [created] = planBackend(desired(pool, withCheck({ type: 'https', http: { uri: '/livez', sni: 'k8s' } })), undefined);
    expect(created).toMatchObject({
      kind: 'CreateBackend',
      healthCheck: { type: 'https', port: 443, http: { uri: '/livez', method: 'GET', sni: 'k8s' }, passthrough: {} },
    });
  });
});

/**
 * The API as the recordings show it keeps what a write sends (lb-backend-basic #30, #31; lb-backend-health-check #26,
 * #45): the observed backend after the actions is what they sent. For any backend the LB may hold and any set of
 * fields a target may name, the plan after its own writes is empty: no rewrite loop.
 */
describe('one write, then in sync: for any backend and any fields named', () => {
  const pool = ['10.0.0.1', '10.0.0.2', '10.0.0.3'];
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  const defined = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
  const ms = fc.integer({ min: 0, max: 3_600_000 });
  const count = fc.integer({ min: 0, max: 100 });
  const action = fc.constantFrom('on_marked_down_action_none', 'shutdown_sessions');
  const options = fc.record({
    onMarkedDownAction: maybe(action),
    timeoutServerMs: maybe(ms),
    timeoutConnectMs: maybe(ms),
    timeoutTunnelMs: maybe(ms),
    maxRetries: maybe(count),
    redispatchAttemptCount: maybe(count),
    maxConnections: maybe(fc.integer({ min: 0, max: 1_000_000 })),
    timeoutQueueMs: maybe(ms),
  });
  const http = fc.record({
    uri: fc.constantFrom('/', '/healthz', 'http://test.com/health'),
    method: maybe(fc.constantFrom('GET', 'HEAD', 'POST')),
    code: maybe(fc.constantFrom(200, 204, 404)),
    hostHeader: maybe(fc.constantFrom('', 'api.internal')),
    sni: maybe(fc.constantFrom('', 'sni.test.com')),
  });
  const observedCheck = fc
    .record({
      type: fc.constantFrom('tcp', 'http', 'https', 'mysql'),
      port: fc.constantFrom(443, 6443),
      checkDelayMs: maybe(ms),
      checkTimeoutMs: maybe(ms),
      checkMaxRetries: count,
      checkSendProxy: fc.boolean(),
      transientCheckDelayMs: maybe(ms),
      http,
    })
    .map(({ http: h, ...hc }): ObservedHealthCheck => {
      const fields = defined(hc) as Omit<ObservedHealthCheck, 'passthrough'>;
      if (hc.type === 'mysql') return { ...fields, passthrough: { mysqlConfig: { user: 'probe' } } };
      if (hc.type === 'tcp') return { ...fields, passthrough: {} };
      const { sni, ...plain } = defined(h);
      return { ...fields, http: hc.type === 'https' && sni !== undefined ? { ...plain, sni } : plain, passthrough: {} };
    });
  const wantedCheck = fc
    .record({
      type: maybe(fc.constantFrom('tcp', 'http', 'https') as fc.Arbitrary<'tcp' | 'http' | 'https'>),
      port: maybe(fc.constantFrom(443, 6443)),
      checkDelayMs: maybe(ms),
      checkTimeoutMs: maybe(ms),
      checkMaxRetries: maybe(count),
      checkSendProxy: maybe(fc.boolean()),
      transientCheckDelayMs: maybe(ms),
      http,
    })
    .map(({ http: h, ...hc }) => {
      const fields = defined(hc) as HealthCheckSpec;
      if (hc.type !== 'http' && hc.type !== 'https') return fields;
      const { sni, ...plain } = defined(h);
      return { ...fields, http: hc.type === 'https' && sni !== undefined ? { ...plain, sni } : plain } as HealthCheckSpec;
    });
  /** The LB after the actions: what each write sent is what it holds (a field a PUT leaves out: as it was, null or not). */
  function afterWrites(before: ObservedBackend | undefined, actions: Action[]): ObservedBackend | undefined {
    let lb = before;
    for (const a of actions) {
      if (a.kind === 'CreateBackend') lb = { ...observed(), ...a.spec, ...a.options, id: 'new', healthCheck: a.healthCheck, pool: a.pool };
      if (a.kind === 'UpdateBackend' && lb) {
        const { name, forwardProtocol, forwardPort, forwardPortAlgorithm, stickySessions, proxyProtocol } = a.spec;
        lb = { ...lb, name, forwardProtocol, forwardPort, forwardPortAlgorithm, stickySessions, proxyProtocol, ...a.options };
      }
      if (a.kind === 'UpdateHealthCheck' && lb) lb = { ...lb, healthCheck: a.healthCheck };
      if (a.kind === 'SetBackendServers' && lb) lb = { ...lb, pool: a.pool };
    }
    return lb;
  }

  it('plan(desired, LB after plan(desired, LB)) is empty', () => {
    fc.assert(
      fc.property(options, options, observedCheck, maybe(wantedCheck), fc.boolean(), (held, named, check, wanted, exists) => {
        const lb = exists ? observed({ ...defined(held), healthCheck: check }) : undefined;
        const target = desired(pool, { ...spec, ...defined(named), healthCheck: wanted });
        const after = afterWrites(lb, planBackend(target, lb));
        expect(planBackend(target, after)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('fields a target does not name never appear in a change', () => {
    fc.assert(
      fc.property(options, options, observedCheck, (held, named, check) => {
        const target = { ...spec, ...defined(named), healthCheck: undefined };
        const changed = planBackend(desired(pool, target), observed({ ...defined(held), healthCheck: check })).flatMap((a) =>
          a.kind === 'UpdateBackend' || a.kind === 'UpdateHealthCheck' ? a.changes.map((c) => c.field) : [],
        );
        for (const field of changed) expect(comparedFields(target)).toContain(field);
      }),
    );
  });
});
