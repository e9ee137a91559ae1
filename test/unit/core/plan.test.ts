import { describe, expect, it } from 'vitest';
import type { DesiredBackend, ObservedBackend } from '../../../shared/core/model';
import {
  changeReason,
  DEFAULT_HEALTH_CHECK,
  judgeAllDuplicates,
  judgeDuplicates,
  plan,
  planBackend,
  planDuplicateCleanup,
} from '../../../shared/core/plan';
import type { BackendSpec } from '../../../shared/schemas/target';

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
      port: 443,
      checkDelayMs: 3000,
      checkTimeoutMs: 1000,
      checkMaxRetries: 5,
      checkSendProxy: false,
      passthrough: { tcpConfig: {} },
    },
    pool: ['10.0.0.1', '10.0.0.2', '10.0.0.3'],
    passthrough: { timeoutServer: 300000, onMarkedDownAction: 'on_marked_down_action_none' },
    ...overrides,
  };
}

const desired = (pool: string[], s: BackendSpec = spec): DesiredBackend => ({ spec: s, pool });

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
        healthCheck: { port: 443, checkDelayMs: 60000, checkTimeoutMs: 1000, checkMaxRetries: 5, checkSendProxy: false, passthrough: {} },
      }),
      kinds: ['UpdateHealthCheck'],
    },
    {
      name: 'everything drifts: update, health check, pool in that order',
      desired: desired(['10.0.0.7']),
      observed: observed({
        proxyProtocol: 'proxy_protocol_v2',
        healthCheck: { port: 80, checkMaxRetries: 2, checkSendProxy: false, passthrough: {} },
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
    const kopsMade = observed({
      healthCheck: { port: 443, checkDelayMs: 0, checkTimeoutMs: 0, checkMaxRetries: 5, checkSendProxy: false, passthrough: {} },
    });
    expect(planBackend(desired(kopsMade.pool, partial), kopsMade)).toEqual([]);
    const noHealthCheck: BackendSpec = { ...spec, healthCheck: undefined };
    expect(planBackend(desired(kopsMade.pool, noHealthCheck), kopsMade)).toEqual([]);
  });

  it('keeps unnamed health-check fields and passthrough config when updating the check', () => {
    const obs = observed({
      healthCheck: {
        port: 443,
        checkDelayMs: 60000,
        checkTimeoutMs: 30000,
        checkMaxRetries: 2,
        checkSendProxy: true,
        passthrough: { transientCheckDelay: '0.5s', tcpConfig: {} },
      },
    });
    const partial: BackendSpec = { ...spec, healthCheck: { checkMaxRetries: 5 } };
    const [action] = planBackend(desired(obs.pool, partial), obs);
    expect(action).toMatchObject({
      kind: 'UpdateHealthCheck',
      healthCheck: {
        port: 443,
        checkDelayMs: 60000,
        checkTimeoutMs: 30000,
        checkMaxRetries: 5,
        checkSendProxy: true,
        passthrough: { transientCheckDelay: '0.5s', tcpConfig: {} },
      },
      changes: [{ field: 'healthCheck.checkMaxRetries', from: 2, to: 5 }],
    });
  });

  it('fills a duration the API did not report with its create default, since UpdateHealthCheck requires both', () => {
    const obs = observed({ healthCheck: { port: 443, checkMaxRetries: 2, checkSendProxy: false, passthrough: { tcpConfig: {} } } });
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
      passthrough: { timeoutServer: 300000 },
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
    expect(action).toMatchObject({ kind: 'CreateBackend', healthCheck: { port: 443, ...DEFAULT_HEALTH_CHECK } });
    const [bare] = planBackend(desired(['10.0.0.1'], { ...spec, forwardPort: 8443, healthCheck: undefined }), undefined);
    expect(bare).toMatchObject({ healthCheck: { port: 8443, checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 } });
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
      healthCheck: { port: 3988, checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5, checkSendProxy: false, passthrough: {} },
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
          port: 3988,
          checkDelayMs: 0,
          checkTimeoutMs: 0,
          checkMaxRetries: 5,
          checkSendProxy: false,
          passthrough: { tcpConfig: {} },
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
    ['healthCheck.port', undefined, 443, /^the target asks 443; the LB has no value$/],
  ] as const)('%s %s -> %s', (field, from, to, reason) => {
    expect(changeReason(field, from, to)).toMatch(reason);
  });

  it('every change the planner makes carries its reason', () => {
    const kopsMade = observed({
      healthCheck: {
        port: 443,
        checkDelayMs: 0,
        checkTimeoutMs: 0,
        checkMaxRetries: 5,
        checkSendProxy: false,
        passthrough: { tcpConfig: {} },
      },
    });
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
