/**
 * The emulator's ListBackendStats driven by the real SDK (the items as recorded, cli-lb-test-get-stats-simple;
 * replayed in fixtures.test.ts): health that follows the servers with the two timing switches, one item per
 * reporting LB instance (switch lbInstanceReports), statuses forced per address over the control API, and the
 * pool history's health record. Timing is 0 ("now") or an hour ("not yet"): nothing races a clock.
 */
import { createAdvancedClient, withHTTPClient, withProfile, withUserAgent } from '@scaleway/sdk-client';
import { Lbv1 } from '@scaleway/sdk-lb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../emulator';
import {
  CONTROL_PLANE_ROLE_TAG,
  DEMO_CLUSTER_TAG,
  DEMO_CONTROL_PLANE_IDS,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  DEMO_LB_ID,
  demoSeed,
  FAKE_ACCESS_KEY,
  FAKE_SECRET_KEY,
} from '../../support/world';

const HOUR = 3_600_000;
const [CP0_IP, CP1_IP] = DEMO_CONTROL_PLANE_IPS as [string, string, string];
const CP1_ID = DEMO_CONTROL_PLANE_IDS[1] as string;
const TAGS = [DEMO_CLUSTER_TAG, CONTROL_PLANE_ROLE_TAG];

let emulator: EmulatorHandle;
let lbApi: Lbv1.ZonedAPI;
let backendId: string;
const BACKEND_ID = '0b1f7a3e-5a0c-4f43-9d0e-3c2d1e0f9a01';

beforeAll(async () => {
  emulator = await startEmulator({ instancePendingMs: 0 });
  const client = createAdvancedClient(
    withProfile({ accessKey: FAKE_ACCESS_KEY, secretKey: FAKE_SECRET_KEY, defaultZone: 'fr-par-1', apiURL: emulator.url }),
    withHTTPClient(fetch),
    withUserAgent('scw-lb-sync/test event/evt-health'),
  );
  lbApi = new Lbv1.ZonedAPI(client);
});
afterAll(() => emulator.stop());

beforeEach(() => {
  emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0, lbInstanceReports: 'one' });
  // A seeded pool has been checked for long: its running servers pass whatever the delays.
  const seed = demoSeed();
  const lb = seed.lbs?.[0];
  if (lb) lb.backends = [{ id: BACKEND_ID, name: 'lb-backend-https', forward_port: 443, pool: [...DEMO_CONTROL_PLANE_IPS] }];
  emulator.loadSeed(seed);
  emulator.clearForcedHealth();
  emulator.resetHistory();
  emulator.resetCalls();
  backendId = BACKEND_ID;
});

async function statuses(): Promise<Record<string, string>> {
  const stats = await lbApi.listBackendStats({ lbId: DEMO_LB_ID, backendId }).all();
  return Object.fromEntries(stats.map((s) => [s.ip, s.lastHealthCheckStatus]));
}

describe('ListBackendStats through the SDK', () => {
  it("answers the SDK's BackendServerStats: one entry per pool address per LB instance", async () => {
    const lb = await lbApi.getLb({ lbId: DEMO_LB_ID });
    const stats = await lbApi.listBackendStats({ lbId: DEMO_LB_ID, backendId }).all();
    expect(stats.map((s) => s.ip).sort()).toEqual(DEMO_CONTROL_PLANE_IPS);
    for (const s of stats) {
      expect(s).toMatchObject({ instanceId: lb.instances[0]?.id, backendId, serverState: 'running', lastHealthCheckStatus: 'passed' });
      expect(s.serverStateChangedAt).toBeUndefined(); // so since before the seed: null on the wire
    }
    const page = await lbApi.listBackendStats({ lbId: DEMO_LB_ID, backendId, page: 2, pageSize: 2 });
    expect(page).toMatchObject({ totalCount: 3, backendServersStats: [expect.objectContaining({ backendId })] });
    // Without backend_id: every backend of the LB.
    expect(await lbApi.listBackendStats({ lbId: DEMO_LB_ID }).all()).toHaveLength(3);
    // An id that is no backend of this LB: GetBackend's recorded 404 (assumed for this route).
    expect(
      await lbApi.listBackendStats({ lbId: DEMO_LB_ID, backendId: '11111111-1111-4111-8111-111111111111' }).catch((e: unknown) => e),
    ).toMatchObject({ status: 404, body: { message: 'backend not Found' } });
  });

  it('health follows the servers: deleted or stopped fails, a new one in the pool passes (delays 0)', async () => {
    emulator.removeServer(DEMO_CP0_ID);
    emulator.upsertServer({
      id: CP1_ID,
      name: 'control-plane-fr-par-1-1',
      zone: 'fr-par-1',
      state: 'stopping',
      publicIps: [CP1_IP],
      tags: TAGS,
    });
    emulator.upsertServer({ name: 'control-plane-fr-par-1-3', zone: 'fr-par-1', publicIps: ['51.15.100.31'], tags: TAGS });
    await lbApi.setBackendServers({ backendId, serverIp: [...DEMO_CONTROL_PLANE_IPS, '51.15.100.31', '6.6.6.6'] });
    expect(await statuses()).toEqual({
      [CP0_IP]: 'failed',
      [CP1_IP]: 'failed',
      '51.15.100.13': 'passed',
      '51.15.100.31': 'passed',
      '6.6.6.6': 'failed',
    });
    const stopped = (await lbApi.listBackendStats({ lbId: DEMO_LB_ID, backendId }).all()).find((s) => s.ip === CP1_IP);
    expect(stopped?.serverState).toBe('stopped');
    expect(stopped?.serverStateChangedAt).toBeInstanceOf(Date);
  });

  it("a running server that does not listen on the check port fails it (the demo seed's workers: 22 and 10250 only)", async () => {
    await lbApi.setBackendServers({ backendId, serverIp: [...DEMO_CONTROL_PLANE_IPS, '51.15.100.21'] });
    expect(await statuses()).toMatchObject({ '51.15.100.21': 'failed', [CP0_IP]: 'passed' });
  });

  it('with delays: a gone server keeps passing until its check fails, a new member is unknown until it passes', async () => {
    emulator.setBehaviours({ healthPassAfterMs: HOUR, healthFailAfterMs: HOUR });
    emulator.removeServer(DEMO_CP0_ID);
    emulator.upsertServer({ name: 'control-plane-fr-par-1-3', zone: 'fr-par-1', publicIps: ['51.15.100.31'], tags: TAGS });
    await lbApi.setBackendServers({ backendId, serverIp: [...DEMO_CONTROL_PLANE_IPS, '51.15.100.31'] });
    expect(await statuses()).toMatchObject({ [CP0_IP]: 'passed', '51.15.100.31': 'unknown' });
    emulator.setBehaviours({ healthPassAfterMs: 0 });
    expect(await statuses()).toMatchObject({ [CP0_IP]: 'passed', '51.15.100.31': 'passed' });
    emulator.setBehaviours({ healthFailAfterMs: 0 });
    expect(await statuses()).toMatchObject({ [CP0_IP]: 'failed' });
  });

  it('a status forced per address over the control API wins until cleared; bad input is a 400', async () => {
    const put = (ip: string, body: unknown) =>
      fetch(`${emulator.url}/_emulator/backend-health/${ip}`, { method: 'PUT', body: JSON.stringify(body) });
    expect((await put(CP1_IP, { status: 'failed' })).status).toBe(200);
    expect((await put(CP0_IP, { status: 'condpass', forMs: HOUR })).status).toBe(200);
    expect(await statuses()).toMatchObject({ [CP0_IP]: 'condpass', [CP1_IP]: 'failed' });
    const listed = (await (await fetch(`${emulator.url}/_emulator/backend-health`)).json()) as {
      forced: { ip: string; until: number | null }[];
    };
    expect(listed.forced.find((f) => f.ip === CP1_IP)?.until).toBeNull();
    expect(listed.forced.find((f) => f.ip === CP0_IP)?.until).toBeGreaterThan(Date.now());
    expect((await fetch(`${emulator.url}/_emulator/backend-health/${CP1_IP}`, { method: 'DELETE' })).status).toBe(200);
    expect(await statuses()).toMatchObject({ [CP1_IP]: 'passed', [CP0_IP]: 'condpass' });
    expect((await put(CP1_IP, { status: 'sick' })).status).toBe(400);
    expect((await put(CP1_IP, { status: 'failed', forMs: -1 })).status).toBe(400);
    expect(
      (await fetch(`${emulator.url}/_emulator/behaviours`, { method: 'PUT', body: JSON.stringify({ healthPassAfterMs: 'soon' }) })).status,
    ).toBe(400);
  });
});

describe('LB instances that report (switch lbInstanceReports)', () => {
  /** Each address's statuses, one per instance, in GetLb's order of the instances. */
  async function byInstance(): Promise<Record<string, string[]>> {
    const lb = await lbApi.getLb({ lbId: DEMO_LB_ID });
    const stats = await lbApi.listBackendStats({ lbId: DEMO_LB_ID, backendId }).all();
    const order = lb.instances.map((instance) => instance.id);
    expect(new Set(stats.map((s) => s.instanceId))).toEqual(new Set(order)); // every listed instance reports
    const sorted = [...stats].sort((a, b) => order.indexOf(a.instanceId) - order.indexOf(b.instanceId));
    const out: Record<string, string[]> = {};
    for (const s of sorted) out[s.ip] = [...(out[s.ip] ?? []), s.lastHealthCheckStatus];
    return out;
  }

  it('one (as recorded): one item per address; two: one per address per instance, GetLb lists both', async () => {
    expect(await byInstance()).toEqual(Object.fromEntries(DEMO_CONTROL_PLANE_IPS.map((ip) => [ip, ['passed']])));
    emulator.setBehaviours({ lbInstanceReports: 'two' });
    expect((await lbApi.getLb({ lbId: DEMO_LB_ID })).instances).toHaveLength(2);
    emulator.removeServer(DEMO_CP0_ID);
    expect(await byInstance()).toMatchObject({ [CP0_IP]: ['failed', 'failed'], [CP1_IP]: ['passed', 'passed'] });
    expect(await lbApi.listBackendStats({ lbId: DEMO_LB_ID, backendId, pageSize: 2 })).toMatchObject({ totalCount: 6 });
  });

  it('two_disagreeing: the second instance is one change behind (a new member passed/unknown, a gone one failed/passed)', async () => {
    emulator.setBehaviours({ lbInstanceReports: 'two_disagreeing' });
    emulator.removeServer(DEMO_CP0_ID);
    emulator.upsertServer({ name: 'control-plane-fr-par-1-3', zone: 'fr-par-1', publicIps: ['51.15.100.31'], tags: TAGS });
    await lbApi.setBackendServers({ backendId, serverIp: [...DEMO_CONTROL_PLANE_IPS, '51.15.100.31'] });
    expect(await byInstance()).toEqual({
      [CP0_IP]: ['failed', 'passed'],
      [CP1_IP]: ['passed', 'passed'], // unchanged since the seed: both agree
      '51.15.100.13': ['passed', 'passed'],
      '51.15.100.31': ['passed', 'unknown'],
    });
    // The pool history records what the instances say together.
    emulator.resetHistory();
    await lbApi.setBackendServers({ backendId, serverIp: [CP1_IP, '51.15.100.13', '51.15.100.31'] });
    expect(emulator.history()[0]?.health).toMatchObject({
      [CP0_IP]: 'failed/passed',
      '51.15.100.31': 'passed/unknown',
      [CP1_IP]: 'passed',
    });
    // Once they agree again, the second reports what the first does.
    emulator.setBehaviours({ lbInstanceReports: 'two' });
    expect(await byInstance()).toMatchObject({ '51.15.100.31': ['passed', 'passed'] });
  });
});

describe('the pool history and the call log', () => {
  it('each pool write records the pool before, the LB health of every address and its server state; calls keep their User-Agent', async () => {
    emulator.removeServer(DEMO_CP0_ID);
    emulator.resetHistory();
    await lbApi.setBackendServers({ backendId, serverIp: [CP1_IP, '51.15.100.13', '51.15.100.31'] });
    const [write] = emulator.history();
    expect(write).toMatchObject({
      operation: 'SetBackendServers',
      poolBefore: DEMO_CONTROL_PLANE_IPS,
      pool: [CP1_IP, '51.15.100.13', '51.15.100.31'],
      health: { [CP0_IP]: 'failed', [CP1_IP]: 'passed', '51.15.100.31': 'failed' },
      serverStates: { [CP0_IP]: 'none', [CP1_IP]: 'running', '51.15.100.31': 'none' },
    });
    expect(emulator.calls().at(-1)?.userAgent).toBe('scw-lb-sync/test event/evt-health');
  });
});
