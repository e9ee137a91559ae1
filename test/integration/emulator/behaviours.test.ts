/**
 * What docs/emulator.md claims, driven by the real Scaleway SDK: the recorded behaviours (each test names its
 * cassette) and every switch for the assumed ones, both ways.
 */
import { createClient, Errors } from '@scaleway/sdk-client';
import { Instancev1 } from '@scaleway/sdk-instance';
import { Ipamv1 } from '@scaleway/sdk-ipam';
import { Lbv1 } from '@scaleway/sdk-lb';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BEHAVIOUR_CHOICES,
  DEFAULT_BEHAVIOURS,
  faultBodies,
  RECORDED_INSTANCE_PENDING_MS,
  startEmulator,
  type EmulatorHandle,
  type EmulatorSeed,
} from '../../../emulator';
import { classifyApiFailure } from '../../../shared/adapters/api-failure';
import { jsonBody, readCassette } from '../../support/cassettes';
import { DEMO_LB_ID, demoSeed } from '../../support/world';

const LONG_WINDOW_MS = 10_000;
const BACKEND_ID = '00000000-0000-4000-8000-0000000000b1';
const profile = {
  accessKey: 'SCWXXXXXXXXXXXXXXXXX',
  secretKey: '11111111-2222-4333-8444-555555555555',
  defaultZone: 'fr-par-1',
  defaultRegion: 'fr-par',
} as const;
/** The SDK types durations as strings; the API takes JSON integers of milliseconds. */
const ms = (value: number) => value as unknown as string;

let emulator: EmulatorHandle;
let lbApi: Lbv1.ZonedAPI;
let ipamApi: Ipamv1.API;
let instanceApi: Instancev1.API;

/** The demo world plus one settled backend on the demo LB. */
function seedWithBackend(pool = ['51.15.100.11', '51.15.100.12']): EmulatorSeed {
  const seed = demoSeed();
  const lb = seed.lbs?.[0];
  if (!lb) throw new Error('demo seed has no LB');
  lb.backends = [{ id: BACKEND_ID, name: 'lb-backend-https', forward_port: 443, pool }];
  return seed;
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

function argumentNames(error: unknown): string[] {
  expect(error).toBeInstanceOf(Errors.InvalidArgumentsError);
  return (error as Errors.InvalidArgumentsError).details.map((d) => `${d.argumentName}:${d.reason}`).sort();
}

const instanceStatus = async () => (await lbApi.getLb({ lbId: DEMO_LB_ID })).instances.map((i) => i.status);

const kopsBackend = (serverIp?: string[]): Lbv1.ZonedApiCreateBackendRequest =>
  ({
    lbId: DEMO_LB_ID,
    name: 'lb-backend-kops-controller',
    forwardProtocol: 'tcp',
    forwardPort: 3988,
    forwardPortAlgorithm: 'roundrobin',
    stickySessions: 'none',
    stickySessionsCookieName: '',
    healthCheck: { port: 3988, checkMaxRetries: 5, checkSendProxy: false, tcpConfig: {} },
    ...(serverIp && { serverIp }),
  }) as Lbv1.ZonedApiCreateBackendRequest;

const fullUpdate = (patch: Partial<Lbv1.ZonedApiUpdateBackendRequest> = {}): Lbv1.ZonedApiUpdateBackendRequest => ({
  backendId: BACKEND_ID,
  name: 'lb-backend-https',
  forwardProtocol: 'tcp',
  forwardPort: 443,
  forwardPortAlgorithm: 'leastconn',
  stickySessions: 'none',
  stickySessionsCookieName: '',
  ...patch,
});

const fullHealthCheck = (patch: Record<string, unknown> = {}): Lbv1.ZonedApiUpdateHealthCheckRequest =>
  ({
    backendId: BACKEND_ID,
    port: 443,
    checkMaxRetries: 5,
    checkDelay: ms(3000),
    checkTimeout: ms(1000),
    checkSendProxy: false,
    tcpConfig: {},
    ...patch,
  }) as Lbv1.ZonedApiUpdateHealthCheckRequest;

beforeAll(async () => {
  emulator = await startEmulator({ instancePendingMs: LONG_WINDOW_MS });
  const client = createClient({ ...profile, apiURL: emulator.url });
  lbApi = new Lbv1.ZonedAPI(client);
  ipamApi = new Ipamv1.API(client);
  instanceApi = new Instancev1.API(client);
});
afterAll(async () => {
  await emulator.stop();
});
beforeEach(() => {
  emulator.setBehaviours({ ...DEFAULT_BEHAVIOURS, instancePendingMs: LONG_WINDOW_MS });
  emulator.loadSeed(seedWithBackend());
  emulator.clearFaults();
  emulator.resetCalls();
  emulator.resetHistory();
});

describe('pending windows, as recorded', () => {
  it('the default window is the longest recorded one (lb-* cassettes: pending -> ready from 31 to 403 ms)', async () => {
    const windows: number[] = [];
    for (const cassette of [
      'lb-backend-basic',
      'lb-backend-health-check',
      'lb-data-source-backends-basic',
      'lb-list-lb-backends-basic',
      'lb-list-lb-frontends-basic',
    ]) {
      let pendingAt: number | undefined;
      for (const interaction of readCassette(cassette)) {
        const body = jsonBody(interaction.responseBody);
        const lb = (body && ('instances' in body ? body : body.lb)) as { instances?: { status: string; updated_at: string }[] } | undefined;
        const instance = lb?.instances?.[0];
        if (!instance) continue;
        if (instance.status === 'pending') pendingAt = Date.parse(instance.updated_at);
        else if (instance.status === 'ready' && pendingAt !== undefined) {
          windows.push(Date.parse(instance.updated_at) - pendingAt);
          pendingAt = undefined;
        }
      }
    }
    expect(windows.length).toBeGreaterThanOrEqual(10);
    expect(Math.min(...windows)).toBeGreaterThan(0);
    expect(Math.abs(RECORDED_INSTANCE_PENDING_MS - Math.max(...windows))).toBeLessThanOrEqual(50);
    const plain = await startEmulator();
    try {
      expect(plain.behaviours().instancePendingMs).toBe(RECORDED_INSTANCE_PENDING_MS);
    } finally {
      await plain.stop();
    }
  });

  it('CreateBackend flips the instances to pending (lb-backend-basic #9, #10)', async () => {
    const created = await lbApi.createBackend(kopsBackend(['51.15.100.11']));
    expect([created.lb?.status, created.lb?.instances.map((i) => i.status)]).toEqual(['ready', ['pending']]);
    expect(await instanceStatus()).toEqual(['pending']);
  });

  it('UpdateBackend does not (lb-backend-basic #30, lb-backend-health-check #25)', async () => {
    const updated = await lbApi.updateBackend(fullUpdate());
    expect(updated.forwardPortAlgorithm).toBe('leastconn');
    expect(updated.lb?.instances.map((i) => i.status)).toEqual(['ready']);
    expect(await instanceStatus()).toEqual(['ready']);
  });

  it('SetBackendServers flips only when the pool changes (lb-backend-basic #32; lb-backend-health-check #27, #46)', async () => {
    const same = await lbApi.setBackendServers({ backendId: BACKEND_ID, serverIp: ['51.15.100.12', '51.15.100.11'] });
    expect(same.lb?.instances.map((i) => i.status)).toEqual(['ready']);
    const changed = await lbApi.setBackendServers({ backendId: BACKEND_ID, serverIp: ['51.15.100.13'] });
    expect(changed.lb?.instances.map((i) => i.status)).toEqual(['pending']);
    expect(changed.pool).toEqual(['51.15.100.13']);
  });

  it('DeleteBackend flips them (lb-backend-basic #48, #49)', async () => {
    await lbApi.deleteBackend({ backendId: BACKEND_ID });
    expect(await instanceStatus()).toEqual(['pending']);
  });

  it('UpdateHealthCheck: the next call finds the instances ready (lb-backend-health-check #26, #27); the switch flips them', async () => {
    await lbApi.updateHealthCheck(fullHealthCheck({ checkMaxRetries: 3 }));
    expect(await instanceStatus()).toEqual(['ready']);
    emulator.setBehaviours({ pendingAfterHealthCheck: true });
    await lbApi.updateHealthCheck(fullHealthCheck({ checkMaxRetries: 4 }));
    expect(await instanceStatus()).toEqual(['pending']);
  });

  it('the window ends: ready again after it (pending for the configured time only)', async () => {
    emulator.setBehaviours({ instancePendingMs: 50 });
    await lbApi.setBackendServers({ backendId: BACKEND_ID, serverIp: ['51.15.100.13'] });
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await instanceStatus()).toEqual(['ready']);
  });
});

describe('rate limiting, as the gateway really sends it (block-list-snapshots-rate-limited)', () => {
  it('a 429 fault answers an empty body, no Content-Type and X-Envoy-Ratelimited: true', async () => {
    emulator.addFault({ operation: 'ListLbs', status: 429 });
    const response = await fetch(`${emulator.url}/lb/v1/zones/fr-par-1/lbs`, { headers: { 'X-Auth-Token': profile.secretKey } });
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toBeNull();
    expect(response.headers.get('x-envoy-ratelimited')).toBe('true');
    expect(response.headers.get('retry-after')).toBeNull();
    expect(await response.text()).toBe('');
  });

  it('the SDK turns it into a plain ScalewayError 429 with no reset time, classified rate_limited', async () => {
    emulator.addFault({ operation: 'GetLb', ...faultBodies.rateLimited() });
    const error = await caught(lbApi.getLb({ lbId: DEMO_LB_ID }));
    expect(error).toBeInstanceOf(Errors.ScalewayError);
    expect(error).not.toBeInstanceOf(Errors.TooManyRequestsError);
    expect(classifyApiFailure(error, 'lb_not_found')).toEqual({ code: 'rate_limited', status: 429 });
  });

  it('the JSON too_many_requests body with reset_seconds stays available as an explicit variant', async () => {
    emulator.addFault({ operation: 'GetLb', ...faultBodies.tooManyRequests(3) });
    const error = await caught(lbApi.getLb({ lbId: DEMO_LB_ID }));
    expect(error).toBeInstanceOf(Errors.TooManyRequestsError);
    expect(classifyApiFailure(error, 'lb_not_found')).toEqual({ code: 'rate_limited', status: 429, retryAfterMs: 3000 });
  });
});

describe('durations and required fields', () => {
  it('durations are JSON integers only: a string or a fraction is a 400 naming the field', async () => {
    const create = await caught(
      lbApi.createBackend({
        ...kopsBackend([]),
        healthCheck: { port: 3988, checkMaxRetries: 5, checkSendProxy: false, checkDelay: '3s', checkTimeout: ms(1000.5), tcpConfig: {} },
      }),
    );
    expect(argumentNames(create)).toEqual(['health_check.check_delay:format', 'health_check.check_timeout:format']);
    const update = await caught(
      lbApi.updateBackend(fullUpdate({ timeoutServer: '300000', timeoutConnect: ms(5000), timeoutTunnel: '15m' })),
    );
    expect(argumentNames(update)).toEqual(['timeout_server:format', 'timeout_tunnel:format']);
    const healthCheck = await caught(lbApi.updateHealthCheck(fullHealthCheck({ checkTimeout: '1000' })));
    expect(argumentNames(healthCheck)).toEqual(['check_timeout:format']);
    expect(emulator.history()).toEqual([]);
  });

  it('UpdateHealthCheck requires port, check_delay, check_timeout and check_max_retries', async () => {
    const response = await fetch(`${emulator.url}/lb/v1/zones/fr-par-1/backends/${BACKEND_ID}/healthcheck`, {
      method: 'PUT',
      headers: { 'X-Auth-Token': profile.secretKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ check_send_proxy: false, tcp_config: {} }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; details: { argument_name: string; reason: string }[] };
    expect(body.type).toBe('invalid_arguments');
    expect(body.details.map((d) => `${d.argument_name}:${d.reason}`).sort()).toEqual([
      'check_delay:required',
      'check_max_retries:required',
      'check_timeout:required',
      'port:required',
    ]);
  });

  it('CreateBackend fills check_delay 3000 / check_timeout 1000 when omitted, and requires server_ip (an empty list is fine)', async () => {
    const missing = await caught(lbApi.createBackend(kopsBackend()));
    expect(argumentNames(missing)).toEqual(['server_ip:required']);
    const created = await lbApi.createBackend(kopsBackend([]));
    expect(created.pool).toEqual([]);
    expect(created.healthCheck).toMatchObject({ checkDelay: 3000, checkTimeout: 1000 });
  });
});

describe('list filters', () => {
  it('ListLbs honours lb_ids (API reference); name stays non-exact (lb-data-source-lbs-basic #43)', async () => {
    emulator.loadSeed({
      lbs: [
        { id: DEMO_LB_ID, name: 'api.demo.k8s.local', zone: 'fr-par-1' },
        { name: 'api.demo.k8s.local-old', zone: 'fr-par-1' },
      ],
    });
    const get = async (query: string) =>
      (await (
        await fetch(`${emulator.url}/lb/v1/zones/fr-par-1/lbs?${query}`, { headers: { 'X-Auth-Token': profile.secretKey } })
      ).json()) as { lbs: { name: string }[]; total_count: number };
    expect((await get('name=api.demo.k8s.local')).total_count).toBe(2);
    const byId = await get(`lb_ids=${DEMO_LB_ID}`);
    expect([byId.total_count, byId.lbs.map((lb) => lb.name)]).toEqual([1, ['api.demo.k8s.local']]);
  });

  it('IPAM resource_name matches a substring of the resource name (API reference)', async () => {
    emulator.loadSeed(demoSeed());
    const ips = await ipamApi.listIPs({ resourceName: 'control-plane-fr-par-1', isIpv6: false }).all();
    expect(ips.length).toBe(6); // three servers: a routed public IPv4 and a private NIC address each
    expect(await ipamApi.listIPs({ resourceName: 'nodes-' }).all()).toHaveLength(4);
  });
});

describe('switches for what no recording shows (both settings each)', () => {
  const setPool = (serverIp: string[]) => lbApi.setBackendServers({ backendId: BACKEND_ID, serverIp });

  it('writesWhileTransient: refuse = 409 transient_state, accept = written', async () => {
    emulator.setLbStatus(DEMO_LB_ID, 'pending');
    expect(await caught(setPool(['51.15.100.13']))).toBeInstanceOf(Errors.TransientStateError);
    emulator.setBehaviours({ writesWhileTransient: 'accept' });
    expect((await setPool(['51.15.100.13'])).pool).toEqual(['51.15.100.13']);
  });

  it('writesWhileLocked: locked = 423, conflict = 409 without a type', async () => {
    emulator.setLbStatus(DEMO_LB_ID, 'locked');
    expect(await caught(setPool(['51.15.100.13']))).toMatchObject({ status: 423, name: 'ResourceLockedError' });
    emulator.setBehaviours({ writesWhileLocked: 'conflict' });
    const conflict = await caught(setPool(['51.15.100.13']));
    expect(conflict).toMatchObject({ status: 409, name: 'ScalewayError' });
    expect(emulator.history()).toEqual([]);
  });

  it('writesWhileStopped: accept = written, refuse = 412 precondition_failed (stopped and error alike)', async () => {
    for (const status of ['stopped', 'error'] as const) {
      emulator.loadSeed(seedWithBackend());
      emulator.setBehaviours({ writesWhileStopped: 'accept' });
      emulator.setLbStatus(DEMO_LB_ID, status);
      expect((await setPool(['51.15.100.13'])).pool).toEqual(['51.15.100.13']);
      emulator.setBehaviours({ writesWhileStopped: 'refuse' });
      expect(await caught(setPool(['51.15.100.11']))).toBeInstanceOf(Errors.PreconditionFailedError);
    }
  });

  it('deleteBackendInUse: refuse = 412 and nothing deleted, cascade = the backend and its frontends go', async () => {
    const seed = seedWithBackend();
    seed.lbs![0]!.frontends = [{ name: 'lb-frontend-https', inbound_port: 443, backend: BACKEND_ID }];
    emulator.loadSeed(seed);
    const refused = await caught(lbApi.deleteBackend({ backendId: BACKEND_ID }));
    expect(refused).toBeInstanceOf(Errors.PreconditionFailedError);
    expect((await lbApi.listFrontends({ lbId: DEMO_LB_ID })).totalCount).toBe(1);
    emulator.setBehaviours({ deleteBackendInUse: 'cascade' });
    await lbApi.deleteBackend({ backendId: BACKEND_ID });
    expect((await lbApi.listFrontends({ lbId: DEMO_LB_ID })).totalCount).toBe(0);
    expect(emulator.history()).toMatchObject([{ operation: 'DeleteBackend', deleted: true, frontendsDeleted: [expect.any(String)] }]);
  });

  it('duplicateServerIps: dedupe = kept once, refuse = 400 naming the repeated entry', async () => {
    expect((await setPool(['51.15.100.13', '51.15.100.11', '51.15.100.13'])).pool).toEqual(['51.15.100.13', '51.15.100.11']);
    emulator.setBehaviours({ duplicateServerIps: 'refuse' });
    expect(argumentNames(await caught(setPool(['51.15.100.12', '51.15.100.12'])))).toEqual(['server_ip.1:constraint']);
    expect(argumentNames(await caught(lbApi.createBackend(kopsBackend(['51.15.100.11', '51.15.100.11']))))).toEqual([
      'server_ip.1:constraint',
    ]);
  });

  it("updateBackendLeftOut: reset = a field left out takes what a create gets, keep = it keeps the backend's value", async () => {
    const set = { onMarkedDownAction: 'shutdown_sessions', maxRetries: 6, maxConnections: 42, timeoutServer: ms(1000), timeoutQueue: '4s' };
    const asKopsSends = { onMarkedDownAction: '' } as unknown as Partial<Lbv1.ZonedApiUpdateBackendRequest>;
    const held = (b: Lbv1.Backend) => [b.onMarkedDownAction, b.maxRetries, b.maxConnections, b.timeoutServer, b.timeoutQueue];
    await lbApi.updateBackend(fullUpdate(set as Partial<Lbv1.ZonedApiUpdateBackendRequest>));
    expect(held(await lbApi.updateBackend(fullUpdate(asKopsSends)))).toEqual(['on_marked_down_action_none', null, null, 300000, null]);
    await lbApi.updateBackend(fullUpdate(set as Partial<Lbv1.ZonedApiUpdateBackendRequest>));
    emulator.setBehaviours({ updateBackendLeftOut: 'keep' });
    // "" is the enum's zero value under both settings: kOps' apply resets on_marked_down_action either way.
    expect(held(await lbApi.updateBackend(fullUpdate(asKopsSends)))).toEqual(['on_marked_down_action_none', 6, 42, 1000, '4s']);
    await lbApi.updateBackend(fullUpdate(set as Partial<Lbv1.ZonedApiUpdateBackendRequest>));
    expect(held(await lbApi.updateBackend(fullUpdate()))).toEqual(['shutdown_sessions', 6, 42, 1000, '4s']);
  });

  it('ipv6PoolMembers: accept = an IPv6 member like any other, refuse = 400 naming each IPv6 entry of a create, set or add (a removal goes)', async () => {
    const v6 = '2001:bc8:710:4a11:dc00:ff:fe00:11';
    expect((await setPool(['51.15.100.11', v6])).pool).toEqual(['51.15.100.11', v6]);
    emulator.setBehaviours({ ipv6PoolMembers: 'refuse' });
    const refused = await caught(setPool(['51.15.100.11', v6, '2001:db8::2']));
    expect(argumentNames(refused)).toEqual(['server_ip.1:constraint', 'server_ip.2:constraint']);
    // The recorded 400 shape (sdk-go-instance-test-create-server-with-incorrect-body #0), its message the generic one.
    expect((refused as Errors.InvalidArgumentsError).body).toMatchObject({ type: 'invalid_arguments', message: 'invalid argument(s)' });
    expect(argumentNames(await caught(lbApi.createBackend(kopsBackend([v6]))))).toEqual(['server_ip.0:constraint']);
    expect(argumentNames(await caught(lbApi.addBackendServers({ backendId: BACKEND_ID, serverIp: [v6] })))).toEqual([
      'server_ip.0:constraint',
    ]);
    expect((await lbApi.removeBackendServers({ backendId: BACKEND_ID, serverIp: [v6] })).pool).toEqual(['51.15.100.11']);
    expect((await setPool(['51.15.100.12'])).pool).toEqual(['51.15.100.12']);
  });

  it('strictBackendIps (opt-in): only seeded server or IPAM addresses, except on multi-cloud LB types', async () => {
    expect((await setPool(['203.0.113.7'])).pool).toEqual(['203.0.113.7']);
    emulator.setBehaviours({ strictBackendIps: true });
    expect(argumentNames(await caught(setPool(['51.15.100.11', '203.0.113.7'])))).toEqual(['server_ip.1:constraint']);
    expect((await setPool(['51.15.100.11', '10.0.0.12'])).pool).toEqual(['51.15.100.11', '10.0.0.12']); // public and IPAM-private
    emulator.setBehaviours({ multiCloudLbTypes: ['lb-s'] });
    expect((await setPool(['203.0.113.7'])).pool).toEqual(['203.0.113.7']);
  });

  it('serverTagsFilter: all = every tag exactly, any = one of them, prefix = every filter tag begins a server tag', async () => {
    const cluster = 'noprefix=kops.k8s.io/cluster=demo.k8s.local';
    const role = 'noprefix=kops.k8s.io/role=ControlPlane';
    emulator.upsertServer({ name: 'namesake-cp', zone: 'fr-par-1', tags: [`${cluster}2`, role], publicIps: ['51.15.102.10'] });
    emulator.upsertServer({ name: 'other-zone-cp', zone: 'nl-ams-1', tags: [cluster, role], publicIps: ['51.158.1.1'] });
    const names = async (tags: string[]) => (await instanceApi.listServers({ zone: 'fr-par-1', tags }).all()).map((s) => s.name).sort();
    const controlPlanes = ['control-plane-fr-par-1-0', 'control-plane-fr-par-1-1', 'control-plane-fr-par-1-2'];
    const workers = ['nodes-fr-par-1-0', 'nodes-fr-par-1-1'];
    expect(await names([cluster, role])).toEqual(controlPlanes);
    const set = await fetch(`${emulator.url}/_emulator/behaviours`, { method: 'PUT', body: JSON.stringify({ serverTagsFilter: 'any' }) });
    expect(set.status).toBe(200);
    expect(await names([cluster, role])).toEqual([...controlPlanes, 'namesake-cp', ...workers].sort());
    emulator.setBehaviours({ serverTagsFilter: 'prefix' });
    expect(await names([cluster, role])).toEqual([...controlPlanes, 'namesake-cp'].sort());
    // No setting crosses zones: the zone is the path, not a filter.
    for (const setting of BEHAVIOUR_CHOICES.serverTagsFilter) {
      emulator.setBehaviours({ serverTagsFilter: setting });
      expect(await names([cluster, role])).not.toContain('other-zone-cp');
    }
  });

  it('are read and set over the control API, which refuses unknown names and values', async () => {
    const control = async (method: string, body?: unknown) => {
      const response = await fetch(`${emulator.url}/_emulator/behaviours`, {
        method,
        headers: { 'Content-Type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: (await response.json()) as { behaviours?: Record<string, unknown>; message?: string } };
    };
    expect((await control('GET')).json.behaviours).toMatchObject({ writesWhileTransient: 'refuse', deleteBackendInUse: 'refuse' });
    const set = await control('PUT', { writesWhileTransient: 'accept', duplicateServerIps: 'refuse' });
    expect(set.json.behaviours).toMatchObject({
      writesWhileTransient: 'accept',
      duplicateServerIps: 'refuse',
      deleteBackendInUse: 'refuse',
    });
    expect(emulator.behaviours().writesWhileTransient).toBe('accept');
    const badValue = await control('PUT', { writesWhileLocked: 'maybe' });
    expect([badValue.status, badValue.json.message]).toEqual([400, 'writesWhileLocked must be one of "locked", "conflict"']);
    expect((await control('PUT', { bogus: true })).status).toBe(400);
  });
});

describe("faults' world changes (deterministic races)", () => {
  it('before.lbStatus turns the LB transient as the write arrives; before.attachFrontend attaches a frontend first', async () => {
    emulator.addFault({ operation: 'SetBackendServers', before: { lbStatus: 'pending' } });
    const error = await caught(lbApi.setBackendServers({ backendId: BACKEND_ID, serverIp: ['51.15.100.13'] }));
    expect(error).toMatchObject({ status: 409, currentState: 'pending' });
    emulator.setLbStatus(DEMO_LB_ID, 'ready');
    emulator.addFault({ operation: 'DeleteBackend', before: { attachFrontend: { name: 'late', inbound_port: 6443 } } });
    expect(await caught(lbApi.deleteBackend({ backendId: BACKEND_ID }))).toBeInstanceOf(Errors.PreconditionFailedError);
  });
});

describe('fault operation names', () => {
  it('a name the emulator does not serve is refused (the spelling it serves named), over the control API none of the list is armed', async () => {
    expect(() => emulator.addFault({ operation: 'ListLBs', status: 500 })).toThrow(
      'fault operation "ListLBs" is no operation the emulator serves (did you mean ListLbs?)',
    );
    expect(() => emulator.addFault({ operation: 'SetPool', status: 500 })).toThrow(/one of ListLbs, GetLb, .*Unknown/);
    const answer = await fetch(`${emulator.url}/_emulator/faults`, {
      method: 'POST',
      body: JSON.stringify([
        { operation: 'GetLb', status: 500 },
        { operation: 'GetLB', status: 500 },
      ]),
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { message: string }).message).toContain('(did you mean GetLb?)');
    const armed = async () => ((await (await fetch(`${emulator.url}/_emulator/faults`)).json()) as { faults: unknown[] }).faults;
    expect(await armed()).toEqual([]);
    emulator.addFault({ operation: 'Unknown', status: 404 });
    expect(await armed()).toHaveLength(1);
    emulator.clearFaults();
  });
});

describe('docs/emulator.md', () => {
  const doc = readFileSync(new URL('../../../docs/emulator.md', import.meta.url), 'utf8');
  it('lists every switch with its settings, the default first', () => {
    for (const [name, choices] of Object.entries(BEHAVIOUR_CHOICES)) {
      expect(choices[0], name).toBe(DEFAULT_BEHAVIOURS[name as keyof typeof DEFAULT_BEHAVIOURS]);
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, name).toBeDefined();
      expect(row).toContain(choices.map((c) => `\`${String(c)}\``).join(', '));
    }
    for (const name of ['instancePendingMs', 'multiCloudLbTypes', 'healthPassAfterMs', 'healthFailAfterMs'])
      expect(doc).toContain(`| \`${name}\` |`);
  });
});
