import { describe, expect, it } from 'vitest';
import type { AuditEvent, IgnoreReason, RelevanceOptions } from '../../../shared/core/audit-relevance';
import { relevantTargets } from '../../../shared/core/audit-relevance';
import { LBSYNC_USER_AGENT, LBSYNC_USER_AGENT_MARKER } from '../../../shared/outbound/user-agent';
import { parseTargets } from '../../../shared/schemas/target';

const PROJECT = '23b8c1e9-3924-46de-beb1-3b9046685257';
const OUR_PRINCIPAL = '7d3c1a90-5b2e-4f1c-8a6d-2e9f0b4c1d11';
const KOPS = 'scaleway-sdk-go/v1.0.0-beta.7 (go1.25.3; linux; amd64) kops/1.33';
const tagsOf = (cluster: string) => [`noprefix=kops.k8s.io/cluster=${cluster}`, 'noprefix=kops.k8s.io/role=ControlPlane'];

const targets = parseTargets([
  { kops: { cluster: 'a.k8s.local', zone: 'fr-par-1' } },
  { kops: { cluster: 'b.k8s.local', zone: 'fr-par-1' } },
  { kops: { cluster: 'c.k8s.local', zone: 'nl-ams-1' } },
  {
    name: 'd',
    zone: 'fr-par-2',
    loadBalancer: { id: 'dddddddd-0000-4000-8000-000000000001' },
    backends: [{ name: 'web', forwardPort: 80 }],
    servers: { tags: ['app=web'] },
  },
]);
const options: RelevanceOptions = {
  own: { userAgentMarker: LBSYNC_USER_AGENT_MARKER, principalIds: new Set([OUR_PRINCIPAL]) },
  projectId: PROJECT,
};

let clock = 0;
const at = () => new Date(Date.UTC(2026, 10, 29, 10, 0, clock++)).toISOString();

interface ServerEventSpec {
  id?: string;
  name?: string;
  zone?: string;
  body?: Record<string, unknown>;
  project?: string;
  status?: number;
  ua?: string;
  principal?: string;
}

function server(method: string, spec: ServerEventSpec = {}): AuditEvent {
  const id = spec.id ?? 'server-1';
  return {
    id: `evt-${clock}`,
    recordedAt: at(),
    locality: spec.zone ?? 'fr-par-1',
    principalId: spec.principal ?? 'kops-principal',
    projectId: spec.project ?? PROJECT,
    userAgent: spec.ua ?? KOPS,
    methodName: method,
    statusCode: spec.status ?? 200,
    resources: [{ id, type: 'instance_server', name: spec.name ?? `cp-${id}` }],
    ...(spec.body && { requestBody: spec.body }),
  };
}

function backend(method: string, spec: { lbId?: string; name?: string; zone?: string; ua?: string; principal?: string } = {}): AuditEvent {
  return {
    id: `evt-${clock}`,
    recordedAt: at(),
    locality: spec.zone ?? 'fr-par-1',
    principalId: spec.principal ?? 'someone-else',
    projectId: PROJECT,
    userAgent: spec.ua ?? 'scaleway-cli/2.40',
    methodName: method,
    statusCode: 200,
    resources: [
      {
        id: 'backend-1',
        type: 'load_balancer_backend',
        lbId: spec.lbId ?? 'aaaaaaaa-0000-4000-8000-000000000001',
        ...(spec.name !== undefined && { name: spec.name }),
      },
    ],
    ...(method === 'SetBackendServers' && { requestBody: { server_ip: ['51.15.1.1'] } }),
  };
}

type Row = [string, AuditEvent[], string[], Partial<Record<IgnoreReason, number>>?];

const rows: Row[] = [
  // Servers: tied to a target by the tags the event shows, else every target of the zone.
  [
    "a server created with a target's tags -> that target",
    [server('CreateServer', { body: { name: 'cp', tags: tagsOf('a.k8s.local') } })],
    ['a.k8s.local'],
  ],
  [
    "a server created with extra tags (instance group) still carries the target's",
    [server('CreateServer', { body: { tags: [...tagsOf('b.k8s.local'), 'noprefix=kops.k8s.io/instance-group=cp'] } })],
    ['b.k8s.local'],
  ],
  [
    'a worker created (cluster tag only, no role tag) -> no target',
    [server('CreateServer', { body: { tags: ['noprefix=kops.k8s.io/cluster=a.k8s.local'] } })],
    [],
    { no_target: 1 },
  ],
  [
    'a server created without a request body: tags unknown -> every target of the zone',
    [server('CreateServer')],
    ['a.k8s.local', 'b.k8s.local'],
  ],
  [
    'kOps deletes a server with ServerAction terminate: its tags are unknown -> every target of the zone',
    [server('ServerAction', { body: { action: 'terminate' } })],
    ['a.k8s.local', 'b.k8s.local'],
  ],
  [
    'a server created then terminated in the window: tags known -> that target',
    [server('CreateServer', { body: { tags: tagsOf('a.k8s.local') } }), server('ServerAction', { body: { action: 'terminate' } })],
    ['a.k8s.local'],
  ],
  [
    'a stopped server deleted (DeleteServer): its tags are unknown -> every target of the zone',
    [server('DeleteServer')],
    ['a.k8s.local', 'b.k8s.local'],
  ],
  [
    'a server created then deleted in the window: tags known -> that target',
    [server('CreateServer', { body: { tags: tagsOf('a.k8s.local') } }), server('DeleteServer')],
    ['a.k8s.local'],
  ],
  [
    "kOps' create + poweron: both tied to the target by the create's tags",
    [server('CreateServer', { body: { tags: tagsOf('b.k8s.local') } }), server('ServerAction', { body: { action: 'poweron' } })],
    ['b.k8s.local'],
  ],
  [
    'a power-off of an unknown server -> every target of the zone',
    [server('ServerAction', { body: { action: 'poweroff' } })],
    ['a.k8s.local', 'b.k8s.local'],
  ],
  [
    'stop_in_place and terminate count',
    [
      server('ServerAction', { id: 's1', body: { action: 'stop_in_place' } }),
      server('ServerAction', { id: 's2', zone: 'nl-ams-1', body: { action: 'terminate' } }),
    ],
    ['a.k8s.local', 'b.k8s.local', 'c.k8s.local'],
  ],
  [
    'reboot and backup do not change a pool',
    [server('ServerAction', { body: { action: 'reboot' } }), server('ServerAction', { body: { action: 'backup' } })],
    [],
    { change_not_watched: 2 },
  ],
  [
    'a re-tag of an unknown server: it may have left any target -> every target of the zone',
    [server('UpdateServer', { body: { tags: tagsOf('b.k8s.local') } })],
    ['a.k8s.local', 'b.k8s.local'],
  ],
  [
    'a re-tag moving a known server from a to b -> both',
    [server('CreateServer', { body: { tags: tagsOf('a.k8s.local') } }), server('UpdateServer', { body: { tags: tagsOf('b.k8s.local') } })],
    ['a.k8s.local', 'b.k8s.local'],
  ],
  [
    'kOps adding needs-update to a known server -> only its target',
    [
      server('CreateServer', { body: { tags: tagsOf('a.k8s.local') } }),
      server('UpdateServer', { body: { tags: [...tagsOf('a.k8s.local'), 'noprefix=kops.k8s.io/needs-update'] } }),
    ],
    ['a.k8s.local'],
  ],
  [
    'a rename (no tag or address field) changes no pool',
    [server('UpdateServer', { body: { name: 'renamed' } })],
    [],
    { change_not_watched: 1 },
  ],
  [
    'user data and other methods are not watched',
    [server('SetServerUserData', { body: { key: 'cloud-init' } })],
    [],
    { change_not_watched: 1 },
  ],
  ['a server in another zone of no target', [server('DeleteServer', { zone: 'fr-par-3' })], [], { other_zone: 1 }],
  ['a server in the zone of the nl-ams target', [server('DeleteServer', { zone: 'nl-ams-1' })], ['c.k8s.local']],
  [
    'a regional locality names every target of the region',
    [server('DeleteServer', { zone: 'fr-par' })],
    ['a.k8s.local', 'b.k8s.local', 'd'],
  ],
  ['a server of another project', [server('DeleteServer', { project: '00000000-0000-4000-8000-000000000099' })], [], { other_project: 1 }],
  ['a refused call (403) changed nothing', [server('DeleteServer', { status: 403 })], [], { failed_call: 1 }],
  [
    'server events are never "our own", even with our user agent and principal (a key shared with kOps)',
    [
      server('CreateServer', {
        ua: `scaleway-sdk-js/1.3.3 ${LBSYNC_USER_AGENT}`,
        principal: OUR_PRINCIPAL,
        body: { tags: tagsOf('a.k8s.local') },
      }),
    ],
    ['a.k8s.local'],
  ],
  [
    'other resource types are not watched',
    [{ ...server('CreateVolume'), resources: [{ id: 'v', type: 'instance_volume' }] }],
    [],
    { resource_not_watched: 1 },
  ],
  // LB backends: someone else's write to a managed backend.
  [
    'someone else sets the servers of lb-backend-https in fr-par-1 -> the targets named by LB name that manage it',
    [backend('SetBackendServers', { name: 'lb-backend-https' })],
    ['a.k8s.local', 'b.k8s.local'],
  ],
  [
    'our own write, recognised by our user agent',
    [backend('SetBackendServers', { name: 'lb-backend-https', ua: `scaleway-sdk-js/1.3.3 ${LBSYNC_USER_AGENT}` })],
    [],
    { own_write: 1 },
  ],
  [
    'our own write, recognised by our principal',
    [backend('SetBackendServers', { name: 'lb-backend-https', principal: OUR_PRINCIPAL })],
    [],
    { own_write: 1 },
  ],
  [
    'a backend of a target named by LB id -> that target',
    [backend('UpdateHealthCheck', { zone: 'fr-par-2', lbId: 'dddddddd-0000-4000-8000-000000000001', name: 'web' })],
    ['d'],
  ],
  [
    'another LB in that zone -> no target',
    [backend('DeleteBackend', { zone: 'fr-par-2', lbId: 'eeeeeeee-0000-4000-8000-000000000001', name: 'web' })],
    [],
    { no_target: 1 },
  ],
  [
    "another backend of the target's LB -> no target",
    [backend('CreateBackend', { zone: 'fr-par-2', lbId: 'dddddddd-0000-4000-8000-000000000001', name: 'admin' })],
    [],
    { no_target: 1 },
  ],
  [
    'a backend write whose name is not recorded -> every target of the zone that could own it',
    [backend('RemoveBackendServers', { zone: 'fr-par-2', lbId: 'dddddddd-0000-4000-8000-000000000001' })],
    ['d'],
  ],
  ['reads and other LB methods are not watched', [backend('GetBackend', { name: 'lb-backend-https' })], [], { change_not_watched: 1 }],
];

describe('a target with several LBs: a backend write on any of them concerns it', () => {
  const MAIN = 'abababab-0000-4000-8000-000000000001';
  const [several] = parseTargets([
    {
      name: 'e',
      zone: 'fr-par-1',
      loadBalancers: [
        { id: MAIN, zone: 'fr-par-1' },
        { name: 'api-e-fallback', zone: 'fr-par-2' },
      ],
      backends: [{ name: 'api', forwardPort: 6443 }],
      servers: { tags: ['app=e'] },
    },
  ]);
  const fleet = [...targets, several as NonNullable<typeof several>];
  const concerned = (events: AuditEvent[]) => relevantTargets(events, fleet, options);

  it("a write on the fallback, in its own zone (not the servers'), names the target; one on the main LB by its id", () => {
    const onFallback = concerned([
      backend('SetBackendServers', { zone: 'fr-par-2', lbId: 'fafafafa-0000-4000-8000-000000000002', name: 'api' }),
    ]);
    expect(onFallback.matches.map((m) => m.target)).toEqual(['e']);
    expect(onFallback.matches[0]?.reasons[0]).toContain('(fr-par-2) by someone else');
    expect(concerned([backend('UpdateBackend', { zone: 'fr-par-1', lbId: MAIN, name: 'api' })]).matches.map((m) => m.target)).toEqual([
      'e',
    ]);
  });

  it("another LB of the servers' zone is none of its LBs (its main LB is named by id); a server event in the fallback's zone is not its servers'", () => {
    expect(
      concerned([backend('SetBackendServers', { zone: 'fr-par-1', lbId: 'cdcdcdcd-0000-4000-8000-000000000003', name: 'api' })]),
    ).toMatchObject({
      matches: [],
      ignored: { no_target: 1 },
    });
    expect(concerned([server('CreateServer', { zone: 'fr-par-2', body: { tags: ['app=e'] } })]).matches.map((m) => m.target)).toEqual([]);
    expect(concerned([server('CreateServer', { zone: 'fr-par-1', body: { tags: ['app=e'] } })]).matches.map((m) => m.target)).toEqual([
      'e',
    ]);
  });
});

describe('relevantTargets: which targets an Audit Trail event concerns', () => {
  it.each(rows)('%s', (_label, events, expected, ignored = {}) => {
    const relevance = relevantTargets(events, targets, options);
    expect(relevance.matches.map((m) => m.target)).toEqual(expected);
    expect(relevance.ignored).toEqual(ignored);
    expect(relevance.relevant + Object.values(relevance.ignored).reduce((a, b) => a + b, 0)).toBe(events.length);
    for (const match of relevance.matches) expect(match.reasons.length).toBeGreaterThan(0);
  });

  it('names each target once however many events concern it, keeping every reason and the latest time', () => {
    const events = [
      server('DeleteServer', { id: 'old-1' }),
      server('CreateServer', { id: 'new-1', body: { tags: tagsOf('a.k8s.local') } }),
      server('ServerAction', { id: 'new-1', body: { action: 'poweron' } }),
      backend('SetBackendServers', { name: 'lb-backend-https' }),
    ];
    const relevance = relevantTargets(events, targets, options);
    expect(relevance.relevant).toBe(4);
    expect(relevance.matches.map((m) => [m.target, m.reasons.length])).toEqual([
      ['a.k8s.local', 4],
      ['b.k8s.local', 2],
    ]);
    expect(relevance.matches[0]?.lastRecordedAt).toBe(events[3]?.recordedAt);
  });

  it("kOps' rolling update as Audit Trail records it (terminate, create, poweron): each event names its targets, the terminate says why", () => {
    const events = [
      server('ServerAction', { id: 'old', name: 'control-plane-fr-par-1-0', body: { action: 'terminate' } }),
      server('CreateServer', { id: 'new', body: { tags: tagsOf('b.k8s.local') } }),
      server('ServerAction', { id: 'new', body: { action: 'poweron' } }),
    ];
    const relevance = relevantTargets(events, targets, options);
    expect(relevance.relevant).toBe(3);
    expect(relevance.matches.map((m) => [m.target, m.reasons.length])).toEqual([
      ['a.k8s.local', 1],
      ['b.k8s.local', 3],
    ]);
    expect(relevance.matches[0]?.reasons).toEqual([
      'ServerAction control-plane-fr-par-1-0 (fr-par-1): terminated, server tags unknown, every target of the zone',
    ]);
  });

  it('reads events in time order whatever order they come in', () => {
    const create = server('CreateServer', { id: 'x', body: { tags: tagsOf('a.k8s.local') } });
    const remove = server('DeleteServer', { id: 'x' });
    expect(relevantTargets([remove, create], targets, options).matches.map((m) => m.target)).toEqual(['a.k8s.local']);
  });

  it('without a project, events of any project count', () => {
    const event = server('DeleteServer', { project: '00000000-0000-4000-8000-000000000099' });
    expect(relevantTargets([event], targets, { own: options.own }).matches.map((m) => m.target)).toEqual(['a.k8s.local', 'b.k8s.local']);
  });
});
