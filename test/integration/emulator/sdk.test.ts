/** The emulator driven by the real Scaleway SDK: shapes, filters, pagination, errors and faults. */
import { readFileSync } from 'node:fs';
import { createAdvancedClient, createClient, Errors, withHTTPClient, withProfile } from '@scaleway/sdk-client';
import { Instancev1 } from '@scaleway/sdk-instance';
import { Ipamv1 } from '@scaleway/sdk-ipam';
import { Lbv1 } from '@scaleway/sdk-lb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { faultBodies, startEmulator, type EmulatorHandle, type EmulatorSeed } from '../../../emulator';

const PENDING_MS = 250;
const demoSeed = JSON.parse(readFileSync(new URL('../../../emulator/seeds/demo.json', import.meta.url), 'utf8')) as EmulatorSeed;
const CLUSTER_TAG = 'noprefix=kops.k8s.io/cluster=demo.k8s.local';
const ROLE_TAG = 'noprefix=kops.k8s.io/role=ControlPlane';
const profile = {
  accessKey: 'SCWXXXXXXXXXXXXXXXXX',
  secretKey: '11111111-2222-4333-8444-555555555555',
  defaultProjectId: demoSeed.projectId,
  defaultZone: 'fr-par-1',
  defaultRegion: 'fr-par',
} as const;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let emulator: EmulatorHandle;
let lbApi: Lbv1.ZonedAPI;
let instanceApi: Instancev1.API;
let ipamApi: Ipamv1.API;

function demoLbId(): string {
  const id = demoSeed.lbs?.[0]?.id;
  if (!id) throw new Error('demo seed has no LB id');
  return id;
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

function kopsBackend(lbId: string, serverIp: string[]): Lbv1.ZonedApiCreateBackendRequest {
  return {
    lbId,
    name: 'lb-backend-https',
    forwardProtocol: 'tcp',
    forwardPort: 443,
    forwardPortAlgorithm: 'roundrobin',
    stickySessions: 'none',
    stickySessionsCookieName: '',
    proxyProtocol: 'proxy_protocol_none',
    healthCheck: { port: 443, checkMaxRetries: 5, checkSendProxy: false, tcpConfig: {} },
    serverIp,
  };
}

beforeAll(async () => {
  emulator = await startEmulator({ instancePendingMs: PENDING_MS, seed: demoSeed });
  const client = createClient({ ...profile, apiURL: emulator.url });
  lbApi = new Lbv1.ZonedAPI(client);
  instanceApi = new Instancev1.API(client);
  ipamApi = new Ipamv1.API(client);
});

afterAll(async () => {
  await emulator.stop();
});

beforeEach(() => {
  emulator.loadSeed(demoSeed);
  emulator.clearFaults();
  emulator.resetCalls();
  emulator.resetHistory();
});

describe('load balancers', () => {
  it('pages through 25 LBs with the SDK and filters by name substring', async () => {
    const lbs = Array.from({ length: 25 }, (_, i) => ({ name: `lb-${String(i).padStart(2, '0')}`, zone: 'fr-par-1' }));
    emulator.loadSeed({ lbs });

    const all = await lbApi.listLbs({ pageSize: 10 }).all();
    expect(all.map((lb) => lb.name)).toEqual(lbs.map((lb) => lb.name));
    expect(emulator.calls().filter((c) => c.operation === 'ListLbs')).toHaveLength(3);

    const firstPage = await lbApi.listLbs({ pageSize: 10, orderBy: 'name_desc' });
    expect(firstPage.totalCount).toBe(25);
    expect(firstPage.lbs[0]?.name).toBe('lb-24');

    const named = await lbApi.listLbs({ name: 'lb-1' }).all();
    expect(named.map((lb) => lb.name)).toEqual(['lb-10', 'lb-11', 'lb-12', 'lb-13', 'lb-14', 'lb-15', 'lb-16', 'lb-17', 'lb-18', 'lb-19']);
  });

  it('gets the demo LB with its instance, IP and tags', async () => {
    const [found] = await lbApi.listLbs({ name: 'api.demo.k8s.local', tags: [ROLE_TAG] }).all();
    expect(found?.id).toBe(demoLbId());
    const lb = await lbApi.getLb({ lbId: demoLbId() });
    expect(lb.status).toBe('ready');
    expect(lb.tags).toEqual([CLUSTER_TAG, ROLE_TAG]);
    expect(lb.instances.map((i) => i.status)).toEqual(['ready']);
    expect(lb.ip[0]?.ipAddress).toBe('51.159.10.20');
    expect(lb.backendCount).toBe(0);
  });

  it('answers a missing LB with the untyped 404 the real API sends', async () => {
    const error = await caught(lbApi.getLb({ lbId: '00000000-0000-4000-8000-000000000000' }));
    expect(error).toBeInstanceOf(Errors.ScalewayError);
    expect(error).toMatchObject({ status: 404, rawMessage: 'lbs not Found' });
  });
});

describe('backends', () => {
  it('creates, reads, updates, re-pools, re-checks and deletes a backend', async () => {
    const lbId = demoLbId();
    const created = await lbApi.createBackend(kopsBackend(lbId, ['51.15.100.11']));
    expect(created).toMatchObject({
      name: 'lb-backend-https',
      forwardPort: 443,
      pool: ['51.15.100.11'],
      onMarkedDownAction: 'on_marked_down_action_none',
      proxyProtocol: 'proxy_protocol_none',
      timeoutServer: 300000,
      // Left out of the request: null, as the API answers (cli-lb-test-add-backend-servers-with-instance-id-public-ip #13).
      timeoutQueue: null,
      maxRetries: null,
      healthCheck: { port: 443, checkDelay: 3000, checkTimeout: 1000, checkMaxRetries: 5, transientCheckDelay: '0.500s', tcpConfig: {} },
    });
    expect(created.lb?.status).toBe('ready');
    expect(created.lb?.instances[0]?.status).toBe('pending');

    await sleep(PENDING_MS + 50);
    const fetched = await lbApi.getBackend({ backendId: created.id });
    expect(fetched.lb?.instances[0]?.status).toBe('ready');
    expect(fetched.createdAt).toEqual(created.createdAt);

    const updated = await lbApi.updateBackend({
      backendId: created.id,
      name: 'lb-backend-https',
      forwardProtocol: 'tcp',
      forwardPort: 443,
      forwardPortAlgorithm: 'leastconn',
      stickySessions: 'none',
      stickySessionsCookieName: '',
      timeoutQueue: '4.000000000s',
    });
    expect(updated.forwardPortAlgorithm).toBe('leastconn');
    expect(updated.timeoutQueue).toBe('4s');
    expect(updated.pool).toEqual(['51.15.100.11']);

    const repooled = await lbApi.setBackendServers({ backendId: created.id, serverIp: ['51.15.100.12', '51.15.100.13'] });
    expect(repooled.pool).toEqual(['51.15.100.12', '51.15.100.13']);
    expect(repooled.lb?.instances[0]?.status).toBe('pending');

    const added = await lbApi.addBackendServers({ backendId: created.id, serverIp: ['51.15.100.11'] });
    expect(added.pool).toEqual(['51.15.100.12', '51.15.100.13', '51.15.100.11']);
    const removed = await lbApi.removeBackendServers({ backendId: created.id, serverIp: ['51.15.100.12'] });
    expect(removed.pool).toEqual(['51.15.100.13', '51.15.100.11']);

    // The SDK types durations as strings, the API takes JSON integers of milliseconds only.
    const ms = (value: number) => value as unknown as string;
    const healthCheck = await lbApi.updateHealthCheck({
      backendId: created.id,
      port: 443,
      checkMaxRetries: 3,
      checkSendProxy: false,
      checkDelay: ms(10_000),
      checkTimeout: ms(1500),
      transientCheckDelay: '0.200000000s',
      httpsConfig: { uri: '/healthz', method: 'GET', hostHeader: '', sni: '' },
    });
    expect(healthCheck).toMatchObject({ checkDelay: 10000, checkTimeout: 1500, transientCheckDelay: '0.200s' });
    expect(healthCheck.httpsConfig).toMatchObject({ uri: '/healthz' });
    expect(healthCheck.tcpConfig).toBeUndefined();

    const listed = await lbApi.listBackends({ lbId, name: 'https' });
    expect(listed.totalCount).toBe(1);
    expect(listed.backends[0]?.healthCheck?.checkDelay).toBe(10000);

    await lbApi.deleteBackend({ backendId: created.id });
    const error = await caught(lbApi.getBackend({ backendId: created.id }));
    expect(error).toMatchObject({ status: 404, rawMessage: 'backend not Found' });
    expect((await lbApi.getLb({ lbId })).backendCount).toBe(0);
  });

  it('records every pool write in the history and flags writes in the call log', async () => {
    const lbId = demoLbId();
    const backend = await lbApi.createBackend(kopsBackend(lbId, ['51.15.100.11']));
    await lbApi.setBackendServers({ backendId: backend.id, serverIp: ['51.15.100.12'] });
    await lbApi.getBackend({ backendId: backend.id });
    await lbApi.setBackendServers({ backendId: backend.id, serverIp: [] });

    expect(emulator.history().map((w) => [w.operation, w.pool])).toEqual([
      ['CreateBackend', ['51.15.100.11']],
      ['SetBackendServers', ['51.15.100.12']],
      ['SetBackendServers', []],
    ]);
    expect(emulator.history().every((w) => w.lbId === lbId && w.backendName === 'lb-backend-https')).toBe(true);
    const calls = emulator.calls();
    expect(calls.map((c) => [c.operation, c.write, c.status])).toEqual([
      ['CreateBackend', true, 200],
      ['SetBackendServers', true, 200],
      ['GetBackend', false, 200],
      ['SetBackendServers', true, 200],
    ]);
    expect(calls.map((c) => c.seq)).toEqual([...calls.map((c) => c.seq)].sort((a, b) => a - b));
  });

  it('records what each write changed (nothing, for a write of what was there) and what each GetLb showed', async () => {
    const lbId = demoLbId();
    await lbApi.getLb({ lbId });
    // A window longer than the test: the read after the create shows it, whatever the machine's pace.
    emulator.setBehaviours({ instancePendingMs: 600_000 });
    const backend = await lbApi.createBackend(kopsBackend(lbId, ['51.15.100.11', '51.15.100.12']));
    emulator.setBehaviours({ instancePendingMs: PENDING_MS });
    await lbApi.getLb({ lbId });
    await lbApi.setBackendServers({ backendId: backend.id, serverIp: ['51.15.100.12', '51.15.100.11'] });
    await lbApi.addBackendServers({ backendId: backend.id, serverIp: ['51.15.100.11'] });
    await lbApi.removeBackendServers({ backendId: backend.id, serverIp: ['51.15.100.11'] });
    const settings = { backendId: backend.id, name: 'lb-backend-https', forwardProtocol: 'tcp', forwardPort: 443 } as const;
    const same = { ...settings, forwardPortAlgorithm: 'roundrobin', stickySessions: 'none', stickySessionsCookieName: '' } as const;
    await lbApi.updateBackend({ ...same, proxyProtocol: 'proxy_protocol_none' });
    await lbApi.updateBackend({ ...same, forwardPortAlgorithm: 'leastconn', proxyProtocol: 'proxy_protocol_none' });
    const check = { backendId: backend.id, port: 443, checkMaxRetries: 5, checkSendProxy: false, tcpConfig: {} };
    const ms = (value: number) => value as unknown as string;
    await lbApi.updateHealthCheck({ ...check, checkDelay: ms(3000), checkTimeout: ms(1000), transientCheckDelay: '0.5s' });
    await lbApi.updateHealthCheck({ ...check, checkDelay: ms(5000), checkTimeout: ms(1000), transientCheckDelay: '0.5s' });
    await lbApi.deleteBackend({ backendId: backend.id });

    expect(emulator.history().map((w) => [w.operation, w.changed])).toEqual([
      ['CreateBackend', ['created']],
      ['SetBackendServers', []],
      ['AddBackendServers', []],
      ['RemoveBackendServers', ['pool']],
      ['UpdateBackend', []],
      ['UpdateBackend', ['forward_port_algorithm']],
      ['UpdateHealthCheck', []],
      ['UpdateHealthCheck', ['health_check.check_delay']],
      ['DeleteBackend', ['deleted']],
    ]);
    const shown = emulator
      .calls()
      .filter((c) => c.operation === 'GetLb')
      .map((c) => c.lb);
    expect(shown).toEqual([
      { id: lbId, status: 'ready', instances: ['ready'] },
      { id: lbId, status: 'ready', instances: ['pending'] },
    ]);
    expect(emulator.calls().filter((c) => c.operation !== 'GetLb' && c.lb !== undefined)).toEqual([]);
  });

  it('takes "" for an enum as the Go SDK sends one left unset (kOps, the CLI): its zero value', async () => {
    const lbId = demoLbId();
    const post = (method: string, path: string, body: unknown) =>
      fetch(`${emulator.url}/lb/v1/zones/fr-par-1${path}`, {
        method,
        headers: { 'X-Auth-Token': profile.secretKey, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const unset = { forward_protocol: '', forward_port_algorithm: '', sticky_sessions: '', on_marked_down_action: '', proxy_protocol: '' };
    const created = await post('POST', `/lbs/${lbId}/backends`, {
      name: 'lb-backend-go',
      forward_port: 443,
      sticky_sessions_cookie_name: '',
      health_check: { port: 443, check_max_retries: 5, check_delay: null, check_timeout: null, transient_check_delay: null },
      server_ip: [],
      ...unset,
    });
    expect(created.status).toBe(200);
    const zeroes = {
      forward_protocol: 'tcp',
      forward_port_algorithm: 'roundrobin',
      sticky_sessions: 'none',
      on_marked_down_action: 'on_marked_down_action_none',
      proxy_protocol: 'proxy_protocol_unknown',
    };
    const backend = (await created.json()) as Record<string, unknown>;
    expect(backend).toMatchObject(zeroes);
    await lbApi.updateBackend({
      backendId: String(backend.id),
      name: 'lb-backend-go',
      forwardProtocol: 'http',
      forwardPort: 443,
      forwardPortAlgorithm: 'leastconn',
      stickySessions: 'table',
      stickySessionsCookieName: '',
      onMarkedDownAction: 'shutdown_sessions',
      proxyProtocol: 'proxy_protocol_v2',
    });
    const updated = await post('PUT', `/backends/${String(backend.id)}`, { name: 'lb-backend-go', forward_port: 443, ...unset });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject(zeroes);
  });

  it('rejects invalid backend bodies with invalid_arguments', async () => {
    const bad = { ...kopsBackend(demoLbId(), ['not-an-ip']), forwardProtocol: 'udp' as never, forwardPort: 70000 };
    const error = await caught(lbApi.createBackend(bad));
    expect(error).toBeInstanceOf(Errors.InvalidArgumentsError);
    const names = (error as Errors.InvalidArgumentsError).details.map((d) => d.argumentName).sort();
    expect(names).toEqual(['forward_port', 'forward_protocol', 'server_ip.0']);
    expect(emulator.history()).toEqual([]);
  });

  it('refuses writes while the LB is transient or locked, and accepts them once it is ready again', async () => {
    const lbId = demoLbId();
    const backend = await lbApi.createBackend(kopsBackend(lbId, []));

    emulator.setLbStatus(lbId, 'migrating', 200);
    const transient = await caught(lbApi.setBackendServers({ backendId: backend.id, serverIp: ['51.15.100.11'] }));
    expect(transient).toBeInstanceOf(Errors.TransientStateError);
    expect(transient).toMatchObject({ status: 409, resource: 'lb', resourceId: lbId, currentState: 'migrating' });
    expect((await lbApi.getLb({ lbId })).status).toBe('migrating');

    await sleep(250);
    expect((await lbApi.getLb({ lbId })).status).toBe('ready');
    await lbApi.setBackendServers({ backendId: backend.id, serverIp: ['51.15.100.11'] });

    emulator.setLbStatus(lbId, 'locked');
    const locked = await caught(lbApi.deleteBackend({ backendId: backend.id }));
    expect(locked).toBeInstanceOf(Errors.ResourceLockedError);
    expect(locked).toMatchObject({ status: 423, resourceId: lbId });
  });
});

describe('instance and IPAM', () => {
  it('lists servers by exact tags (AND) with the total from X-Total-Count', async () => {
    const controlPlanes = await instanceApi.listServers({ tags: [CLUSTER_TAG, ROLE_TAG] });
    expect(controlPlanes.totalCount).toBe(3);
    expect(controlPlanes.servers.every((s) => s.tags.includes(ROLE_TAG))).toBe(true);

    const everyone = await instanceApi.listServers({ tags: [CLUSTER_TAG], perPage: 2 }).all();
    expect(everyone).toHaveLength(5);
    expect(new Set(everyone.map((s) => s.id)).size).toBe(5);

    expect((await instanceApi.listServers({ tags: ['noprefix=kops.k8s.io/cluster=demo'] })).totalCount).toBe(0);

    const first = controlPlanes.servers.find((s) => s.name === 'control-plane-fr-par-1-0');
    expect(first?.publicIps.map((ip) => [ip.address, ip.family])).toEqual([['51.15.100.11', 'inet']]);
    expect(first?.publicIp?.address).toBe('51.15.100.11');
    expect(first?.privateNics[0]?.state).toBe('available');

    const one = await instanceApi.getServer({ serverId: first?.id ?? '' });
    expect(one.server?.name).toBe('control-plane-fr-par-1-0');
    const missing = await caught(instanceApi.getServer({ serverId: '00000000-0000-4000-8000-000000000000' }));
    expect(missing).toBeInstanceOf(Errors.ResourceNotFoundError);
  });

  it('lists IPAM addresses by NIC or server resource ids, in CIDR form', async () => {
    const servers = await instanceApi.listServers({ tags: [CLUSTER_TAG, ROLE_TAG] }).all();
    const nicIds = servers.flatMap((s) => s.privateNics.map((nic) => nic.id));
    const privateIps = await ipamApi.listIPs({ resourceIds: nicIds, isIpv6: false }).all();
    expect(privateIps.map((ip) => ip.address).sort()).toEqual(['10.0.0.11/22', '10.0.0.12/22', '10.0.0.13/22']);
    expect(privateIps.every((ip) => ip.resource?.type === 'instance_private_nic')).toBe(true);

    const serverId = servers[0]?.id ?? '';
    const byServer = await ipamApi.listIPs({ resourceId: serverId });
    expect(byServer.totalCount).toBe(1);
    expect(byServer.ips[0]?.address).toMatch(/^51\.15\.100\.\d+\/32$/);
  });
});

describe('faults', () => {
  it('maps a 429 fault to TooManyRequestsError with its reset time, once', async () => {
    emulator.addFault({ operation: 'ListLbs', ...faultBodies.tooManyRequests(3) });
    const error = await caught(lbApi.listLbs({}));
    expect(error).toBeInstanceOf(Errors.TooManyRequestsError);
    expect((error as Errors.TooManyRequestsError).resetSeconds).toBe(3);
    await expect(lbApi.listLbs({})).resolves.toMatchObject({ totalCount: 1 });
    expect(emulator.calls().map((c) => c.status)).toEqual([429, 200]);
  });

  it('maps a transient_state fault to TransientStateError', async () => {
    emulator.addFault({ pathIncludes: '/lbs/', ...faultBodies.transientState(demoLbId()) });
    const error = await caught(lbApi.getLb({ lbId: demoLbId() }));
    expect(error).toBeInstanceOf(Errors.TransientStateError);
  });

  it('delays answers with a latency fault', async () => {
    emulator.addFault({ operation: 'GetLb', latencyMs: 200, count: 2 });
    const started = Date.now();
    await lbApi.getLb({ lbId: demoLbId() });
    await lbApi.getLb({ lbId: demoLbId() });
    await lbApi.getLb({ lbId: demoLbId() });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(emulator.calls().map((c) => c.durationMs >= 190)).toEqual([true, true, false]);
  });

  it('hangs until the client gives up, and resets connections', async () => {
    const impatient = createAdvancedClient(
      withProfile({ ...profile, apiURL: emulator.url }),
      withHTTPClient((input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(150) })),
    );
    const impatientLb = new Lbv1.ZonedAPI(impatient);
    emulator.addFault({ operation: 'GetLb', hang: true });
    await expect(impatientLb.getLb({ lbId: demoLbId() })).rejects.toThrow();

    emulator.addFault({ operation: 'ListLbs', reset: true });
    await expect(lbApi.listLbs({})).rejects.toThrow();

    await sleep(20);
    expect(emulator.calls().map((c) => [c.operation, c.status])).toEqual([
      ['GetLb', 0],
      ['ListLbs', 0],
    ]);
    await expect(lbApi.getLb({ lbId: demoLbId() })).resolves.toMatchObject({ id: demoLbId() });
  });

  it('denies requests without an auth token', async () => {
    const response = await fetch(`${emulator.url}/lb/v1/zones/fr-par-1/lbs`);
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      message: 'authentication is denied',
      method: 'api_key',
      reason: 'not_found',
      type: 'denied_authentication',
    });
  });
});

describe('control API', () => {
  async function control(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const response = await fetch(`${emulator.url}/_emulator${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: await response.json().catch(() => undefined) };
  }

  it('replaces a server, queues faults, holds an LB status and dumps the state over HTTP', async () => {
    const oldServer = demoSeed.servers?.[0];
    const replaced = await control('POST', `/servers/${oldServer?.id}/replace`, {
      name: 'control-plane-fr-par-1-new',
      zone: 'fr-par-1',
      tags: oldServer?.tags,
      publicIps: ['51.15.100.99'],
    });
    expect(replaced.status).toBe(200);
    const controlPlanes = await instanceApi.listServers({ tags: [CLUSTER_TAG, ROLE_TAG] }).all();
    expect(controlPlanes.flatMap((s) => s.publicIps.map((ip) => ip.address)).sort()).toEqual([
      '51.15.100.12',
      '51.15.100.13',
      '51.15.100.99',
    ]);

    expect((await control('POST', '/faults', [{ operation: 'GetLb', ...faultBodies.internal() }])).status).toBe(200);
    await expect(lbApi.getLb({ lbId: demoLbId() })).rejects.toMatchObject({ status: 500 });

    expect((await control('POST', `/lbs/${demoLbId()}/status`, { status: 'pending', forMs: 100 })).status).toBe(200);
    expect((await lbApi.getLb({ lbId: demoLbId() })).status).toBe('pending');
    expect((await control('POST', `/lbs/${demoLbId()}/status`, { status: 'bogus' })).status).toBe(400);

    const state = (await control('GET', '/state')).json as { lbs: unknown[]; servers: unknown[]; ips: unknown[] };
    expect([state.lbs.length, state.servers.length, state.ips.length]).toEqual([1, 5, 9]); // the new server has a public IP but no private NIC
    const calls = (await control('GET', '/calls')).json as { calls: { operation: string }[] };
    expect(calls.calls.map((c) => c.operation)).toEqual(['ListServers', 'GetLb', 'GetLb']);
    expect((await control('DELETE', `/servers/${oldServer?.id}`)).status).toBe(404);
    expect((await control('GET', '/health')).json).toEqual({ ok: true });
  });

  it('adds a dual-stack server on request (routedIpv6), and its replacement takes a new routed IPv6 too', async () => {
    const tags = demoSeed.servers?.[0]?.tags ?? [];
    const added = await control('POST', '/servers', { name: 'control-plane-fr-par-1-3', tags, routedIpv6: true });
    expect(added.status).toBe(200);
    const { id } = added.json as { id: string };
    const { server } = await instanceApi.getServer({ serverId: id });
    const [v4, v6] = server?.publicIps ?? [];
    // As recorded for a dual-stack server (cli-instance-test-create-server-ips-with-ipv6-and-ipv4 #9).
    expect(server?.publicIp?.address).toBe(v4?.address);
    expect(v4).toMatchObject({ family: 'inet', provisioningMode: 'dhcp', netmask: '32', state: 'attached' });
    expect(v6).toMatchObject({ family: 'inet6', provisioningMode: 'slaac', netmask: '64', state: 'attached' });
    const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = (server?.macAddress ?? '').split(':').map((byte) => Number.parseInt(byte, 16));
    const slaac = [((a ^ 2) << 8) | b, (c << 8) | 0xff, 0xfe00 | d, (e << 8) | f].map((g) => g.toString(16)).join(':');
    expect(v6?.address).toMatch(new RegExp(`^2001:bc8:710:[0-9a-f]{1,4}:${slaac}$`));
    // IPAM lists the routed IPv6 as its /64 prefix (ipam-ipamip-reverse-dns-basic #13).
    const ipam = await ipamApi.listIPs({ resourceId: id, isIpv6: true });
    expect(ipam.ips.map((ip) => ip.address)).toEqual([`${v6?.address.split(':').slice(0, 4).join(':')}::/64`]);

    const replaced = await control('POST', `/servers/${id}/replace`, {});
    const next = (await instanceApi.getServer({ serverId: (replaced.json as { id: string }).id })).server;
    expect(next?.publicIps.map((ip) => ip.family)).toEqual(['inet', 'inet6']);
    expect(next?.publicIps[1]?.address).not.toBe(v6?.address);
    expect((await control('POST', '/servers', { name: 'x', tags, routedIpv6: 'yes' })).status).toBe(400);
  });
});
