// A doctor run's exchanges as they may leave the machine: no secret anywhere; unless --keep-ids, no real id, name,
// tag or address anywhere either, and the stand-ins agree across the recording (a ListServers?tags= filter and the
// tags in its answer and Link header, an LB id in a path and in an answer, a pool member and a server's address).
import { describe, expect, it } from 'vitest';
import { goVcrCassette } from '../../../cli/cassette/go-vcr';
import { scrubExchanges } from '../../../cli/cassette/scrub-exchanges';
import type { RecordedExchange } from '../../../cli/adapters/http-recorder';
import { createScrubber } from '../../../shared/outbound/scrub';
import { reveals } from '../../support/secret-oracle';

const SECRET_KEY = '7d4c2a1e-93b0-4f5e-8a61-0c2f9e8b7a55';
const ACCESS_KEY = 'SCWQ1W2E3R4T5Y6U7I8O';
const API = 'https://api.scaleway.com';
const LB_ID = 'b7e0f1c2-3d4e-4f50-8a61-72b83c94d5e6';
const OLD_LB_ID = 'c8f1a2b3-4c5d-4e6f-8071-829304a5b6c7';
const SERVER_ID = 'd9a2b3c4-5d6e-4f70-8182-93a4b5c6d7e8';
const BACKEND_ID = 'e0b3c4d5-6e7f-4081-9293-a4b5c6d7e8f9';
const PROJECT_ID = 'f1c4d5e6-7f80-4192-a3a4-b5c6d7e8f9a0';
const ORGANIZATION_ID = 'a2d5e6f7-8091-42a3-b4b5-c6d7e8f9a0b1';
const CLUSTER = 'payments.acme-corp.internal';
const LB_NAME = `api.${CLUSTER}`;
const TAGS = [`noprefix=kops.k8s.io/cluster=${CLUSTER}`, 'noprefix=kops.k8s.io/role=ControlPlane'];
const SERVER_NAME = 'control-plane-nl-ams-1-7c5e.masters.payments.acme-corp.internal';
const SERVER_IP = '51.158.77.12';
const SERVER_IPV6 = '2001:bc8:1640:3e1a::1';
const LB_IP = '163.172.9.40';
const MAC = '02:00:00:1f:2e:3d';
const EMAIL = 'oncall@acme-corp.example';

const query = (params: [string, string][]) => new URLSearchParams(params).toString();

function exchange(method: string, url: string, status: number, body: unknown, headers: [string, string][] = []): RecordedExchange {
  return {
    method,
    url,
    requestHeaders: [
      ['accept', 'application/json'],
      ['x-auth-token', SECRET_KEY],
      ['user-agent', 'scaleway-sdk-js/1.3.2 scw-lb-sync/0.1.0'],
    ],
    requestBody: '',
    status,
    statusText: status === 200 ? 'OK' : 'Unauthorized',
    responseHeaders: [['content-type', 'application/json'], ['content-length', '1'], ...headers],
    responseBody: typeof body === 'string' ? body : JSON.stringify(body),
    durationMs: 12.5,
  };
}

const lb = (id: string, name: string) => ({
  id,
  name,
  description: `kOps API load balancer of ${CLUSTER}, owner ${EMAIL}`,
  status: 'ready',
  organization_id: ORGANIZATION_ID,
  project_id: PROJECT_ID,
  tags: TAGS,
  ip: [{ ip_address: LB_IP, reverse: `${LB_IP.replaceAll('.', '-')}.lb.nl-ams.scw.cloud`, lb_id: id }],
  zone: 'nl-ams-1',
});

const serversQuery = query([
  ['per_page', '100'],
  ['tags', TAGS.join(',')],
]);

function doctorRun(): RecordedExchange[] {
  return [
    exchange('GET', `${API}/lb/v1/zones/nl-ams-1/lbs?${query([['name', LB_NAME]])}&page_size=100`, 200, {
      lbs: [lb(LB_ID, LB_NAME), lb(OLD_LB_ID, `${LB_NAME}-old`)],
      total_count: 2,
    }),
    exchange(
      'GET',
      `${API}/instance/v1/zones/nl-ams-1/servers?${serversQuery}`,
      200,
      {
        servers: [
          {
            id: SERVER_ID,
            name: SERVER_NAME,
            hostname: SERVER_NAME,
            organization: ORGANIZATION_ID,
            project: PROJECT_ID,
            tags: [...TAGS, 'noprefix=kops.k8s.io/instance-group=control-plane-nl-ams-1'],
            public_ips: [
              { id: SERVER_ID.replace('d9', 'aa'), address: SERVER_IP, gateway: '62.210.0.1', netmask: '32', family: 'inet' },
              { address: SERVER_IPV6, gateway: 'fe80::', netmask: '64', family: 'inet6' },
            ],
            private_nics: [{ mac_address: MAC, server_id: SERVER_ID }],
            dns: `${SERVER_ID}.pub.instances.scw.cloud`,
          },
        ],
      },
      [
        ['x-total-count', '1'],
        [
          'link',
          `</servers?${query([
            ['page', '1'],
            ['per_page', '100'],
            ['tags', TAGS.join(',')],
          ])}>; rel="last"`,
        ],
      ],
    ),
    exchange('GET', `${API}/ipam/v1/regions/nl-ams/ips?resource_ids=${SERVER_ID}&zonal=nl-ams-1`, 200, {
      ips: [{ address: `${SERVER_IP}/32`, resource: { id: SERVER_ID, name: SERVER_NAME, type: 'instance_server' }, tags: [] }],
    }),
    exchange('GET', `${API}/lb/v1/zones/nl-ams-1/lbs/${LB_ID}/backends?page_size=100`, 200, {
      backends: [{ id: BACKEND_ID, name: 'lb-backend-https', pool: [SERVER_IP], lb: lb(LB_ID, LB_NAME) }],
    }),
    // An error body that echoes what it was sent, and a URL with credentials in it.
    exchange('GET', `https://${ACCESS_KEY}:${SECRET_KEY}@api.scaleway.com/lb/v1/zones/nl-ams-1/lbs?token=${SECRET_KEY}`, 401, {
      message: `authentication is denied for ${SECRET_KEY}`,
      type: 'denied_authentication',
      secret_key: SECRET_KEY,
    }),
    // Free text that echoes a name the recording holds.
    exchange('GET', `${API}/lb/v1/zones/nl-ams-1/lbs/${LB_ID}/backends?page_size=100`, 404, {
      message: `backend of load balancer ${LB_NAME} not found (server ${SERVER_NAME})`,
      type: 'not_found',
    }),
  ];
}

const scrubber = createScrubber([SECRET_KEY, ACCESS_KEY]);
const REAL_VALUES = [
  LB_ID,
  OLD_LB_ID,
  SERVER_ID,
  BACKEND_ID,
  PROJECT_ID,
  ORGANIZATION_ID,
  'payments',
  'acme',
  SERVER_IP,
  SERVER_IPV6,
  LB_IP,
  LB_IP.replaceAll('.', '-'),
  MAC,
  'oncall',
  'kops',
  'ControlPlane',
  '7c5e',
];

const everything = (exchanges: RecordedExchange[]) => JSON.stringify(exchanges);
const body = (e: RecordedExchange | undefined) => JSON.parse(e?.responseBody ?? 'null');

describe('scrubExchanges', () => {
  it('leaves no secret anywhere: headers, URLs (userinfo, query), bodies (text and credential-named fields)', () => {
    for (const keepIds of [false, true]) {
      const out = scrubExchanges(doctorRun(), { keepIds, scrubber });
      const text = everything(out);
      for (const secret of [SECRET_KEY, ACCESS_KEY]) expect(reveals(text, secret), secret).toBe(false);
      expect(out.every((e) => e.requestHeaders.every(([name]) => name.toLowerCase() !== 'x-auth-token'))).toBe(true);
      expect(body(out[4]).secret_key).toBe('[redacted]');
    }
  });

  it('without --keep-ids: no real id, name, tag, address, MAC or e-mail address anywhere', () => {
    const text = everything(scrubExchanges(doctorRun(), { keepIds: false, scrubber }));
    for (const real of REAL_VALUES) expect(text, real).not.toContain(real);
    expect(text.toLowerCase()).not.toContain('acme');
  });

  it('keeps the recording coherent: the same real value is the same stand-in in paths, queries, Link headers and bodies', () => {
    const [lbs, servers, ipam, backends] = scrubExchanges(doctorRun(), { keepIds: false, scrubber });
    // The LB: found by its name filter, with the other LB whose name holds it; its id is the one in the next path.
    const nameFilter = new URL(lbs?.url ?? '').searchParams.get('name') ?? '';
    const answered = body(lbs).lbs as { id: string; name: string; project_id: string; organization_id: string }[];
    expect(answered[0]?.name).toBe(nameFilter);
    expect(answered[1]?.name).toMatch(new RegExp(`^${nameFilter.replaceAll('.', '\\.')}-x[a-wyz]{3}$`));
    const lbId = answered[0]?.id ?? '';
    expect(new URL(backends?.url ?? '').pathname).toBe(`/lb/v1/zones/nl-ams-1/lbs/${lbId}/backends`);
    expect(body(backends).backends[0].lb.id).toBe(lbId);
    // The servers: the tags asked for are tags the answer carries, in the URL and in the Link header alike.
    const asked = (new URL(servers?.url ?? '').searchParams.get('tags') ?? '').split(',');
    const server = body(servers).servers[0];
    expect(asked).toHaveLength(2);
    for (const tag of asked) expect(server.tags).toContain(tag);
    const link = servers?.responseHeaders.find(([name]) => name === 'link')?.[1] ?? '';
    expect(link).toBe(
      `</servers?${query([
        ['page', '1'],
        ['per_page', '100'],
        ['tags', asked.join(',')],
      ])}>; rel="last"`,
    );
    // The pool member is the server's address, in Instance, IPAM and LB answers; the id in the IPAM filter is the server's.
    const address = server.public_ips[0].address;
    expect(body(backends).backends[0].pool).toEqual([address]);
    expect(body(ipam).ips[0].address).toBe(`${address}/32`);
    expect(new URL(ipam?.url ?? '').searchParams.get('resource_ids')).toBe(server.id);
    expect(body(ipam).ips[0].resource.name).toBe(server.name);
    expect(server.hostname).toBe(server.name);
    expect(server.dns).toBe(`${server.id}.pub.instances.scw.cloud`);
    expect(body(lbs).lbs[0].ip[0].reverse).toBe(`${body(lbs).lbs[0].ip[0].ip_address.replaceAll('.', '-')}.lb.nl-ams.scw.cloud`);
    // The same organization and project wherever they appear.
    expect(answered[1]?.project_id).toBe(answered[0]?.project_id);
    expect(server.project).toBe(answered[0]?.project_id);
    expect(server.organization).toBe(answered[0]?.organization_id);
    // A name echoed in an error message is the same stand-in as in the answers.
    const echoed = scrubExchanges(doctorRun(), { keepIds: false, scrubber })[5];
    expect(body(echoed).message).toBe(`backend of load balancer ${nameFilter} not found (server ${server.name})`);
  });

  it('stand-ins are valid for their kind; what names no one is kept (the Instance gateway, fe80::, enum values)', () => {
    const [lbs, servers] = scrubExchanges(doctorRun(), { keepIds: false, scrubber });
    const server = body(servers).servers[0];
    expect(server.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(server.public_ips[0].address).toMatch(/^(192\.0\.2|198\.51\.100|203\.0\.113)\.\d+$/);
    expect(server.public_ips[1].address).toMatch(/^2001:db8::[0-9a-f]+$/);
    expect(server.public_ips.map((ip: { gateway: string }) => ip.gateway)).toEqual(['62.210.0.1', 'fe80::']);
    expect(server.private_nics[0].mac_address).toMatch(/^02:00:00(:[0-9a-f]{2}){3}$/);
    expect(body(lbs).lbs[0].status).toBe('ready');
    expect(body(lbs).lbs[0].zone).toBe('nl-ams-1');
    expect(body(lbs).lbs[0].description).toMatch(/user-1@mail\.test$/);
  });

  it('each Content-Length header tells the length of the body as re-written', () => {
    for (const e of scrubExchanges(doctorRun(), { keepIds: false, scrubber })) {
      expect(e.responseHeaders.find(([name]) => name === 'content-length')?.[1]).toBe(String(Buffer.byteLength(e.responseBody)));
    }
  });

  it('with --keep-ids: ids, names, tags and addresses stay, spelt as they came; only the secrets go', () => {
    const run = doctorRun();
    const out = scrubExchanges(run, { keepIds: true, scrubber });
    for (const i of [0, 1, 2, 3]) {
      expect(out[i]?.url).toBe(run[i]?.url);
      expect(out[i]?.responseBody).toBe(run[i]?.responseBody);
    }
    for (const real of REAL_VALUES) expect(everything(out), real).toContain(real);
  });
});

describe('scrubExchanges: an answer that echoes the keys in another form', () => {
  const escaped = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  const half = (text: string) => [...text].map((c, i) => (i % 2 ? `\\u00${c.charCodeAt(0).toString(16)}` : c)).join('');
  // ListServers as a hostile or broken API may answer it: the keys as JSON \u escapes (whole, or one character in
  // two), in another case, and inside a longer base64 string at each alignment.
  const echoing = (): RecordedExchange[] => [
    exchange(
      'GET',
      `${API}/instance/v1/zones/nl-ams-1/servers?${serversQuery}`,
      200,
      `{"servers":[{"id":"${SERVER_ID}","name":"${escaped(ACCESS_KEY)}","tags":["${half(SECRET_KEY)}","${ACCESS_KEY.toLowerCase()}","${SECRET_KEY.toUpperCase()}"],` +
        `"description":"${['', 'x', 'xy'].map((pad) => Buffer.from(`${pad}note: key=${ACCESS_KEY};secret=${SECRET_KEY} end`).toString('base64')).join(' ')}"}],"total_count":1}`,
    ),
  ];

  it.each([false, true])('keepIds %s: no form of either key is in the cassette', (keepIds) => {
    const text = goVcrCassette(scrubExchanges(echoing(), { keepIds, scrubber }));
    for (const secret of [ACCESS_KEY, SECRET_KEY]) expect(reveals(text, secret), secret).toBe(false);
  });
});
