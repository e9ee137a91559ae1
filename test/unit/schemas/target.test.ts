import { describe, expect, it } from 'vitest';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import { problemCount } from '../../../shared/errors/field-errors';
import type { LbPlace } from '../../../shared/core/lb-identity';
import { atLb, hasSeveralLbs, targetLbs } from '../../../shared/core/lb-identity';
import type { Target } from '../../../shared/schemas/target';
import { parseTargets } from '../../../shared/schemas/target';

function configError(fn: () => unknown): LbSyncError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(LbSyncError);
    return error as LbSyncError;
  }
  throw new Error('expected a validation error');
}

const fullTarget = {
  name: 'prod',
  zone: 'fr-par-1',
  loadBalancer: { name: 'api.prod.k8s.local' },
  backends: [
    {
      name: 'lb-backend-https',
      forwardPort: 443,
      healthCheck: { port: 443, checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 },
    },
  ],
  servers: { tags: ['noprefix=kops.k8s.io/cluster=prod.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'] },
};

describe('targets', () => {
  it('fills omitted backend fields with kOps values', () => {
    const [target] = parseTargets([fullTarget]);
    expect(target).toMatchObject({
      backends: [
        { forwardProtocol: 'tcp', forwardPortAlgorithm: 'roundrobin', stickySessions: 'none', proxyProtocol: 'proxy_protocol_none' },
      ],
      servers: { ipSource: 'public' },
      allowEmptyPool: false,
    });
  });

  it('expands the kops shorthand to kOps own names and a positive ControlPlane selection', () => {
    const [target] = parseTargets([{ kops: { cluster: 'prod.k8s.local', zone: 'nl-ams-1', kopsController: true } }]);
    expect(target).toEqual({
      name: 'prod.k8s.local',
      zone: 'nl-ams-1',
      loadBalancer: { name: 'api.prod.k8s.local' },
      backends: [
        expect.objectContaining({
          name: 'lb-backend-https',
          forwardPort: 443,
          forwardProtocol: 'tcp',
          healthCheck: { port: 443, checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 },
        }),
        expect.objectContaining({
          name: 'lb-backend-kops-controller',
          forwardPort: 3988,
          healthCheck: { port: 3988, checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 },
        }),
      ],
      servers: {
        tags: ['noprefix=kops.k8s.io/cluster=prod.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
        ipSource: 'kops',
        leavingTags: ['noprefix=kops.k8s.io/needs-update'],
      },
      allowEmptyPool: false,
      maxUnavailable: 1,
      trustPartialDiscovery: false,
    });
  });

  it.each([
    [
      'auto (the default)',
      undefined,
      [
        ['lb-backend-https', true],
        ['lb-backend-kops-controller', false],
      ],
    ],
    [
      '"auto"',
      'auto',
      [
        ['lb-backend-https', true],
        ['lb-backend-kops-controller', false],
      ],
    ],
    [
      'true: create and sync',
      true,
      [
        ['lb-backend-https', true],
        ['lb-backend-kops-controller', true],
      ],
    ],
    ['false: leave it alone', false, [['lb-backend-https', true]]],
  ] as const)('kopsController %s', (_, kopsController, backends) => {
    const [target] = parseTargets([
      { kops: { cluster: 'a.k8s.local', zone: 'fr-par-2', ...(kopsController !== undefined && { kopsController }) } },
    ]);
    expect(target?.backends.map((b) => [b.name, b.createIfMissing])).toEqual(backends);
  });

  it('rolling-update settings: maxUnavailable 1 and trustPartialDiscovery false unless set, in both forms', () => {
    expect(parseTargets([fullTarget])[0]).toMatchObject({ maxUnavailable: 1, trustPartialDiscovery: false });
    expect(
      parseTargets([{ kops: { cluster: 'a.k8s.local', zone: 'fr-par-2', maxUnavailable: 0, trustPartialDiscovery: true } }])[0],
    ).toMatchObject({ maxUnavailable: 0, trustPartialDiscovery: true });
  });

  it('refuses any other kopsController value, naming the allowed ones', () => {
    const error = configError(() => parseTargets([{ kops: { cluster: 'a.k8s.local', zone: 'fr-par-2', kopsController: 'yes' } }]));
    expect(error.fieldErrors?.[0]?.path).toBe('targets[0].kops.kopsController');
  });

  const PROJECT = '2a7b1f0c-4d3e-4c5b-9a8f-1e2d3c4b5a69';
  const ORGANIZATION = '8f3e2d1c-0b9a-4f8e-8d7c-6b5a49382716';
  const credentials = { accessKeyEnv: 'TEAM_B_ACCESS_KEY', secretKeyEnv: 'TEAM_B_SECRET_KEY' };

  it('a fleet target names its project, organization and key variables, in both forms (the shorthand inside "kops")', () => {
    const account = { projectId: PROJECT, organizationId: ORGANIZATION, credentials };
    expect(parseTargets([{ ...fullTarget, ...account }])[0]).toMatchObject(account);
    expect(parseTargets([{ kops: { cluster: 'b.k8s.local', zone: 'fr-par-1', ...account } }])[0]).toMatchObject({
      name: 'b.k8s.local',
      ...account,
    });
    // Left out, they stay out: the deployment's project, organization and key apply.
    const [plain] = parseTargets([{ kops: { cluster: 'a.k8s.local', zone: 'fr-par-1' } }]);
    expect(plain).not.toHaveProperty('projectId');
    expect(plain).not.toHaveProperty('organizationId');
    expect(plain).not.toHaveProperty('credentials');
  });

  it('credentials never echo what they were given: a key pasted in place of a variable name is refused unquoted', () => {
    const accessKey = 'SCWK3YP4ST3D1NST34D0';
    const secretKey = '5ec2e75e-c2e7-4242-8242-5ec2e75ec2e7';
    for (const input of [
      [{ ...fullTarget, credentials: { accessKeyEnv: accessKey, secretKeyEnv: secretKey } }],
      [{ kops: { cluster: 'a.k8s.local', zone: 'fr-par-1', credentials: { accessKeyEnv: accessKey, secretKeyEnv: secretKey } } }],
    ]) {
      const error = configError(() => parseTargets(input));
      expect(error.fieldErrors?.map((e) => e.message)).toEqual([
        expect.stringMatching(/looks like an API key itself/),
        expect.stringMatching(/looks like an API key itself/),
      ]);
      const told = JSON.stringify({ message: error.message, fieldErrors: error.fieldErrors });
      expect(told).not.toContain(accessKey);
      expect(told).not.toContain(secretKey);
    }
  });

  it('accepts an LB named by id', () => {
    const [target] = parseTargets([{ ...fullTarget, loadBalancer: { id: '722a7d63-7c98-4a4a-ae7c-b9479dae5d7f' } }]);
    expect(target?.loadBalancer).toEqual({ id: '722a7d63-7c98-4a4a-ae7c-b9479dae5d7f' });
  });

  describe('loadBalancers: several LBs sharing one pool, each in its own zone', () => {
    const MAIN_ID = '722a7d63-7c98-4a4a-ae7c-b9479dae5d7f';
    const { loadBalancer: _one, ...withoutLb } = fullTarget;
    const several = (loadBalancers: unknown, extra: Record<string, unknown> = {}) => [{ ...withoutLb, loadBalancers, ...extra }];
    const errorsOf = (input: unknown) => configError(() => parseTargets(input)).fieldErrors ?? [];

    it('each by name or id with its zone; targetLbs lists them in order, a one-LB target its LB in its zone', () => {
      const [target] = parseTargets(
        several([
          { id: MAIN_ID, zone: 'fr-par-1' },
          { name: 'api-fallback', zone: 'fr-par-2' },
        ]),
      );
      expect(target?.loadBalancer).toBeUndefined();
      expect(targetLbs(target as Target)).toEqual([
        { id: MAIN_ID, zone: 'fr-par-1' },
        { name: 'api-fallback', zone: 'fr-par-2' },
      ]);
      expect(hasSeveralLbs(target as Target)).toBe(true);
      const [one] = parseTargets([fullTarget]);
      expect(targetLbs(one as Target)).toEqual([{ name: 'api.prod.k8s.local', zone: 'fr-par-1' }]);
      expect(hasSeveralLbs(one as Target)).toBe(false);
      // One entry is a one-LB target whose LB is in another zone than its servers.
      const [elsewhere] = parseTargets(several([{ name: 'api-b', zone: 'fr-par-2' }]));
      expect(hasSeveralLbs(elsewhere as Target)).toBe(false);
      expect(atLb(elsewhere as Target, targetLbs(elsewhere as Target)[0] as LbPlace)).toMatchObject({
        zone: 'fr-par-2',
        loadBalancer: { name: 'api-b' },
      });
    });

    it('neither loadBalancer nor loadBalancers, or both: one error naming both forms, with its fix', () => {
      expect(errorsOf([withoutLb])).toEqual([
        {
          path: 'targets[0].loadBalancer',
          message: expect.stringContaining('is missing: give loadBalancer'),
          fix: expect.stringContaining('or loadBalancers [{"name" | "id", "zone"}, ...]'),
        },
      ]);
      expect(errorsOf(several([{ name: 'a', zone: 'fr-par-2' }], { loadBalancer: { name: 'b' } }))).toEqual([
        {
          path: 'targets[0].loadBalancers',
          message: 'loadBalancer and loadBalancers are both given',
          fix: expect.stringContaining('keep one'),
        },
      ]);
    });

    it("an LB outside the region of the target's zone, or one entry naming another's LB, is refused by its path", () => {
      expect(
        errorsOf(
          several([
            { name: 'a', zone: 'fr-par-1' },
            { name: 'b', zone: 'nl-ams-1' },
          ]),
        ),
      ).toEqual([
        {
          path: 'targets[0].loadBalancers[1].zone',
          message: "nl-ams-1 is not in fr-par, the region of the target's zone fr-par-1",
          received: '"nl-ams-1"',
          fix: "give a zone of fr-par: the target's LBs and servers live in one region",
        },
      ]);
      expect(
        errorsOf(
          several([
            { id: MAIN_ID, zone: 'fr-par-1' },
            { id: MAIN_ID, zone: 'fr-par-2' },
          ]),
        ),
      ).toEqual([
        {
          path: 'targets[0].loadBalancers[1]',
          message: `names the LB loadBalancers[0] names (id ${MAIN_ID})`,
          fix: 'remove loadBalancers[1]',
        },
      ]);
      // The same name in two zones is two LBs.
      expect(
        parseTargets(
          several([
            { name: 'api', zone: 'fr-par-1' },
            { name: 'api', zone: 'fr-par-2' },
          ]),
        ),
      ).toHaveLength(1);
    });

    it('an entry without its zone is told with its two forms; the kops shorthand takes no loadBalancers', () => {
      expect(errorsOf(several([{ name: 'a' }]))).toEqual([
        expect.objectContaining({
          path: 'targets[0].loadBalancers[0]',
          message: 'fits none of its forms: {"name": ..., "zone": ...} or {"id": ..., "zone": ...}',
        }),
      ]);
      expect(errorsOf(several([]))[0]).toMatchObject({ path: 'targets[0].loadBalancers' });
      expect(errorsOf([{ kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1', loadBalancers: [] } }])[0]).toMatchObject({
        path: 'targets[0].kops',
        message: expect.stringContaining('loadBalancers'),
      });
    });
  });

  it('a backend names its health check type (http, https with its request) and the backend fields, all in ms', () => {
    const backend = {
      name: 'api',
      forwardPort: 6443,
      onMarkedDownAction: 'shutdown_sessions',
      timeoutServerMs: 60_000,
      timeoutConnectMs: 2_500,
      timeoutTunnelMs: 900_000,
      maxRetries: 3,
      redispatchAttemptCount: 1,
      maxConnections: 0,
      timeoutQueueMs: 4_000,
      healthCheck: {
        type: 'https',
        checkSendProxy: false,
        transientCheckDelayMs: 500,
        http: { uri: '/readyz', method: 'GET', code: 200, hostHeader: 'api.internal', sni: 'api.internal' },
      },
    };
    const [target] = parseTargets([{ ...fullTarget, backends: [backend] }]);
    expect(target?.backends[0]).toMatchObject(backend);
  });

  it("the kops shorthand sets kops.backend's fields on each backend it keeps in sync, and kOps' health check stays", () => {
    const [target] = parseTargets([
      { kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1', kopsController: true, backend: { onMarkedDownAction: 'shutdown_sessions' } } },
    ]);
    expect(target?.backends.map((b) => [b.name, b.onMarkedDownAction, b.healthCheck])).toEqual([
      ['lb-backend-https', 'shutdown_sessions', { port: 443, checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 }],
      ['lb-backend-kops-controller', 'shutdown_sessions', { port: 3988, checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 }],
    ]);
    expect(parseTargets([{ kops: { cluster: 'a.b', zone: 'fr-par-1' } }])[0]?.backends[0]).not.toHaveProperty('onMarkedDownAction');
  });

  it('null is no value: an optional field is told to be left out, a required one to be given', () => {
    const nulls = configError(() =>
      parseTargets([{ ...fullTarget, backends: [{ name: 'b', forwardPort: null, timeoutQueueMs: null, healthCheck: { type: null } }] }]),
    );
    const fixes = Object.fromEntries((nulls.fieldErrors ?? []).map((e) => [e.path, e.fix]));
    expect(fixes['targets[0].backends[0].forwardPort']).toBe('give a number');
    expect(fixes['targets[0].backends[0].timeoutQueueMs']).toMatch(/^give a number, or leave the field out/);
    expect(fixes['targets[0].backends[0].healthCheck.type']).toMatch(/leave the field out/);
  });

  const bad: { name: string; input: unknown; path: string; text: RegExp }[] = [
    {
      name: 'wrong algorithm',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 443, forwardPortAlgorithm: 'round-robin' }] }],
      path: 'targets[0].backends[0].forwardPortAlgorithm',
      text: /roundrobin, leastconn, first/,
    },
    {
      name: 'port out of range',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 70000 }] }],
      path: 'targets[0].backends[0].forwardPort',
      text: /65535/,
    },
    { name: 'bad zone', input: [{ ...fullTarget, zone: 'paris' }], path: 'targets[0].zone', text: /fr-par-1/ },
    { name: 'unknown field', input: [{ ...fullTarget, alowEmptyPool: true }], path: 'targets[0]', text: /alowEmptyPool/ },
    {
      name: 'bad proxy protocol',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 1, proxyProtocol: 'v2' }] }],
      path: 'targets[0].backends[0].proxyProtocol',
      text: /proxy_protocol_v2_ssl_cn/,
    },
    {
      name: 'bad sticky',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 1, stickySessions: 'ip' }] }],
      path: 'targets[0].backends[0].stickySessions',
      text: /none, cookie, table/,
    },
    {
      name: 'bad protocol',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 1, forwardProtocol: 'udp' }] }],
      path: 'targets[0].backends[0].forwardProtocol',
      text: /tcp, http/,
    },
    { name: 'no tags', input: [{ ...fullTarget, servers: { tags: [] } }], path: 'targets[0].servers.tags', text: /fix/ },
    {
      name: 'kops typo',
      input: [{ kops: { cluster: 'Prod_Cluster', zone: 'fr-par-1' } }],
      path: 'targets[0].kops.cluster',
      text: /DNS name/,
    },
    { name: 'duplicate names', input: [fullTarget, fullTarget], path: 'targets', text: /used twice/ },
    { name: 'not an array', input: { name: 'x' }, path: 'targets', text: /JSON array/ },
    {
      name: 'a negative maxUnavailable',
      input: [{ ...fullTarget, maxUnavailable: -1 }],
      path: 'targets[0].maxUnavailable',
      text: /fix: give a value of at least 0/,
    },
    {
      name: 'a fractional maxUnavailable',
      input: [{ ...fullTarget, maxUnavailable: 1.5 }],
      path: 'targets[0].maxUnavailable',
      text: /whole number of pool members/,
    },
    {
      name: 'maxUnavailable as text',
      input: [{ kops: { cluster: 'a.b', zone: 'fr-par-1', maxUnavailable: '2' } }],
      path: 'targets[0].kops.maxUnavailable',
      text: /must be a number of pool members \(got "2"\); fix: give a number/,
    },
    {
      name: 'trustPartialDiscovery as text',
      input: [{ ...fullTarget, trustPartialDiscovery: 'yes' }],
      path: 'targets[0].trustPartialDiscovery',
      text: /must be true or false/,
    },
    {
      name: 'a projectId that is no UUID',
      input: [{ ...fullTarget, projectId: 'prod' }],
      path: 'targets[0].projectId',
      text: /must be a UUID/,
    },
    {
      name: 'an organizationId that is no UUID',
      input: [{ kops: { cluster: 'a.b', zone: 'fr-par-1', organizationId: 'acme' } }],
      path: 'targets[0].kops.organizationId',
      text: /must be a UUID/,
    },
    {
      name: 'credentials naming a reserved SCW_ variable',
      input: [{ ...fullTarget, credentials: { accessKeyEnv: 'SCW_ACCESS_KEY', secretKeyEnv: 'TEAM_SECRET' } }],
      path: 'targets[0].credentials.accessKeyEnv',
      text: /reserved inside Scaleway Functions/,
    },
    {
      name: 'credentials naming one variable twice',
      input: [{ ...fullTarget, credentials: { accessKeyEnv: 'TEAM_KEY', secretKeyEnv: 'TEAM_KEY' } }],
      path: 'targets[0].credentials.secretKeyEnv',
      text: /name the same variable/,
    },
    {
      name: 'credentials without the secret key variable',
      input: [{ kops: { cluster: 'a.b', zone: 'fr-par-1', credentials: { accessKeyEnv: 'TEAM_KEY' } } }],
      path: 'targets[0].kops.credentials.secretKeyEnv',
      text: /required string is missing/,
    },
    {
      name: 'a credentials variable that is no variable name',
      input: [{ ...fullTarget, credentials: { accessKeyEnv: 'team key', secretKeyEnv: 'TEAM_SECRET' } }],
      path: 'targets[0].credentials.accessKeyEnv',
      text: /environment variable name/,
    },
    {
      name: 'a key given inline in credentials',
      input: [{ ...fullTarget, credentials: { accessKey: 'x', secretKeyEnv: 'TEAM_SECRET', accessKeyEnv: 'TEAM_KEY' } }],
      path: 'targets[0].credentials',
      text: /Unrecognized key: "accessKey"/,
    },
    {
      name: 'an http request without type http or https',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 1, healthCheck: { http: { uri: '/healthz' } } }] }],
      path: 'targets[0].backends[0].healthCheck.type',
      text: /http is read only with type "http" or "https": add "type": "http"/,
    },
    {
      name: 'type http without its request',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 1, healthCheck: { type: 'http' } }] }],
      path: 'targets[0].backends[0].healthCheck.http',
      text: /need http\.uri/,
    },
    {
      name: 'an http request without its uri',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 1, healthCheck: { type: 'http', http: { code: 200 } } }] }],
      path: 'targets[0].backends[0].healthCheck.http.uri',
      text: /uri/,
    },
    {
      name: 'an SNI on an http check',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 1, healthCheck: { type: 'http', http: { uri: '/', sni: 'x' } } }] }],
      path: 'targets[0].backends[0].healthCheck.http.sni',
      text: /sni is sent by an https check only/,
    },
    {
      name: 'a health check type the target cannot name',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 1, healthCheck: { type: 'mysql' } }] }],
      path: 'targets[0].backends[0].healthCheck.type',
      text: /tcp, http, https/,
    },
    {
      name: 'a lower-case HTTP method (the API answers upper case: it would be rewritten for ever)',
      input: [
        { ...fullTarget, backends: [{ name: 'b', forwardPort: 1, healthCheck: { type: 'http', http: { uri: '/', method: 'get' } } }] },
      ],
      path: 'targets[0].backends[0].healthCheck.http.method',
      text: /GET/,
    },
    {
      name: 'a timeout given as a duration string',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 1, timeoutServerMs: '60s' }] }],
      path: 'targets[0].backends[0].timeoutServerMs',
      text: /milliseconds/,
    },
    {
      name: 'null for "unset" (a field left out is not compared; there is no unset)',
      input: [{ ...fullTarget, backends: [{ name: 'b', forwardPort: 1, maxConnections: null }] }],
      path: 'targets[0].backends[0].maxConnections',
      text: /fix: give a number, or leave the field out: null is no value here \(a field left out takes its default, or is not compared\)/,
    },
    {
      name: 'an unknown onMarkedDownAction',
      input: [{ kops: { cluster: 'a.b', zone: 'fr-par-1', backend: { onMarkedDownAction: 'shutdown' } } }],
      path: 'targets[0].kops.backend.onMarkedDownAction',
      text: /shutdown_sessions/,
    },
    {
      name: "a kops.backend field that is kOps' own model",
      input: [{ kops: { cluster: 'a.b', zone: 'fr-par-1', backend: { forwardPort: 8443 } } }],
      path: 'targets[0].kops.backend',
      text: /forwardPort/,
    },
    {
      name: 'prototype pollution key',
      input: JSON.parse('[{"kops":{"cluster":"a.b","zone":"fr-par-1"},"__proto__":{"x":1}}]'),
      path: 'targets[0]',
      text: /__proto__/,
    },
  ];
  for (const c of bad) {
    it(`rejects ${c.name}, naming the field and the fix`, () => {
      const error = configError(() => parseTargets(c.input));
      expect(error.code).toBe('invalid_config');
      expect(error.fieldErrors?.map((e) => e.path)).toContain(c.path);
      expect(error.message).toMatch(c.text);
      expect(error.message).toMatch(/fix: /);
      expect(error.message).not.toMatch(/at .*\.ts:\d+/);
    });
  }
});

describe('names and tags are printable', () => {
  const withLb = (name: string) => ({ ...fullTarget, loadBalancer: { name } });
  const withBackend = (name: string) => ({ ...fullTarget, backends: [{ ...fullTarget.backends[0], name }] });
  const withTags = (tags: string[]) => ({ ...fullTarget, servers: { tags } });
  const withLeaving = (leavingTags: string[]) => ({ ...fullTarget, servers: { ...fullTarget.servers, leavingTags } });

  it.each([
    ['an LB name with CR/LF', withLb('api.prod\r\nINFO forged line'), 'targets[0].loadBalancer.name', /printable/],
    ['a backend name with LF', withBackend('lb-backend-https\n'), 'targets[0].backends[0].name', /printable/],
    ['a tag with NUL', withTags(['noprefix=kops.k8s.io/cluster=prod\u0000']), 'targets[0].servers.tags[0]', /printable/],
    ['a tag with a direction override', withTags(['cluster=\u202eprod']), 'targets[0].servers.tags[0]', /printable/],
    ['a tag with a C1 control', withTags(['cluster=\u0085prod']), 'targets[0].servers.tags[0]', /printable/],
    ['a tag of blanks only', withTags(['   ']), 'targets[0].servers.tags[0]', /only blanks/],
    ['a leaving tag of blanks only', withLeaving(['\u00a0 ']), 'targets[0].servers.leavingTags[0]', /only blanks/],
    ['an LB name of blanks only', withLb(' '), 'targets[0].loadBalancer.name', /only blanks/],
  ])('%s is refused, named, with its fix', (_what, target, path, message) => {
    const error = configError(() => parseTargets([target]));
    expect(error.fieldErrors).toEqual([
      expect.objectContaining({ path, message: expect.stringMatching(message), fix: expect.not.stringContaining('as the message says') }),
    ]);
  });

  it('printable names and tags of any script pass, spaces inside them too', () => {
    expect(() => parseTargets([{ ...withLb('api.prod équipe'), servers: { tags: ['équipe=prod', 'role=control plane'] } }])).not.toThrow();
  });
});

describe('a huge configuration error', () => {
  it('10,000 bad targets: the first 10 problems and a count, a short message, the field error shape kept', () => {
    const bad = Array.from({ length: 10_000 }, (_, i) => ({ ...fullTarget, name: `t${i}`, zone: 'fr-pra-1' }));
    const error = configError(() => parseTargets(bad, 'LBSYNC_TARGETS'));
    expect(error.message.length).toBeLessThan(4_000);
    expect(error.fieldErrors).toHaveLength(11);
    expect(error.fieldErrors?.slice(0, 10).map((e) => e.path)).toEqual(Array.from({ length: 10 }, (_, i) => `LBSYNC_TARGETS[${i}].zone`));
    expect(error.fieldErrors?.[10]).toEqual({
      path: 'LBSYNC_TARGETS',
      message: 'and 9990 more problems (10000 in all)',
      fix: expect.stringContaining('check again'),
    });
    expect(problemCount(error.fieldErrors ?? [])).toBe(10_000);
    expect(error.message).toContain('and 9990 more problems (10000 in all)');
  });

  it('ten problems or fewer: listed as they are, no count', () => {
    const bad = Array.from({ length: 10 }, (_, i) => ({ ...fullTarget, name: `t${i}`, zone: 'fr-pra-1' }));
    const error = configError(() => parseTargets(bad));
    expect(error.fieldErrors).toHaveLength(10);
    expect(problemCount(error.fieldErrors ?? [])).toBe(10);
  });
});
