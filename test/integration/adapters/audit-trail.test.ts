// Audit Trail through the real SDK (@scaleway/sdk-audit-trail) against the emulator: the emulator answers as the
// recording does, and the adapter (shared/adapters/audit-trail.ts) reads every page of a window.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { EmulatorHandle } from '../../../emulator';
import { startEmulator } from '../../../emulator';
import { createAuditTrailGateway, type AuditTrailSettings } from '../../../shared/adapters/audit-trail';
import { DEMO_CP0_ID, demoSeed, FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../../support/world';

const PROJECT = '23b8c1e9-3924-46de-beb1-3b9046685257'; // the demo seed's project and organization
const ORGANIZATION = PROJECT;
const NEW_CP = {
  id: '3f1c1d7e-5b6a-4c2e-9a51-7d0c2b9e4a11',
  name: 'control-plane-fr-par-1-0-r1',
  zone: 'fr-par-1',
  state: 'running',
  tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
  publicIps: ['51.15.100.14'],
};

let emulator: EmulatorHandle;

const settings = (extra: Partial<AuditTrailSettings> = {}): AuditTrailSettings => ({
  accessKey: FAKE_ACCESS_KEY,
  secretKey: FAKE_SECRET_KEY,
  apiUrl: emulator.url,
  organizationId: ORGANIZATION,
  ...extra,
});

beforeAll(async () => {
  emulator = await startEmulator({ seed: demoSeed(), auditTrailDelayMs: 0, instancePendingMs: 0 });
});
afterAll(async () => {
  await emulator?.stop();
});
beforeEach(() => {
  emulator.loadSeed(demoSeed());
  emulator.resetCalls();
  emulator.auditTrail.clear();
  emulator.auditTrail.setDelayMs(0);
  emulator.clearFaults();
});

describe('emulated Audit Trail, as recorded', () => {
  const cassette = parse(
    readFileSync(new URL('../../fixtures/audit-trail/data-source-event-basic.cassette.yaml', import.meta.url), 'utf8'),
  ) as {
    interactions: { request: { url: string }; response: { body: string } }[];
  };
  const listings = cassette.interactions.filter((i) => i.request.url.includes('/audit-trail/v1alpha1/regions/fr-par/events'));
  const recorded = listings
    .map((i) => JSON.parse(i.response.body) as { events: Record<string, unknown>[] })
    .find((b) => b.events.length > 0)?.events[0] as Record<string, unknown>;

  it('answers with the keys of the recorded events and resources (one <type>_info per resource)', async () => {
    emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    const response = await fetch(
      `${emulator.url}/audit-trail/v1alpha1/regions/fr-par/events?organization_id=${ORGANIZATION}&resource_type=instance_server&method_name=CreateServer`,
      { headers: { 'X-Auth-Token': FAKE_SECRET_KEY } },
    );
    expect(response.headers.get('content-type')).toBe('application/json');
    const { events } = (await response.json()) as { events: Record<string, unknown>[] };
    expect(events).toHaveLength(1);
    const [event] = events as [Record<string, unknown>];
    expect(Object.keys(event).sort()).toEqual(Object.keys(recorded).sort());
    const resourceKeys = (r: Record<string, unknown>) =>
      Object.keys(r)
        .map((k) => (k.endsWith('_info') ? '<type>_info' : k))
        .sort();
    const [ours] = event.resources as [Record<string, unknown>];
    const [theirs] = recorded.resources as [Record<string, unknown>];
    expect(resourceKeys(ours)).toEqual(resourceKeys(theirs));
    expect(ours.instance_server_info).toEqual({ name: NEW_CP.name });
  });

  it("an Instance ServerAction's event is as recorded (instance-action-server-basic #35): 202, no instance_server_info, updated_at null", async () => {
    const actions = parse(
      readFileSync(new URL('../../fixtures/scaleway-api/instance-action-server-basic.cassette.yaml', import.meta.url), 'utf8'),
    ) as { interactions: { id: number; response: { body: string } }[] };
    const listing = actions.interactions.find((i) => i.id === 35);
    const [theirs] = (JSON.parse(listing?.response.body ?? '{}') as { events: Record<string, unknown>[] }).events as [
      Record<string, unknown>,
    ];
    expect(theirs).toMatchObject({ method_name: 'ServerAction', request_body: { action: 'reboot' } });

    // kOps' way: a ServerAction through the Instance API's own route, with kOps' key.
    const call = await fetch(`${emulator.url}/instance/v1/zones/fr-par-1/servers/${DEMO_CP0_ID}/action`, {
      method: 'POST',
      headers: { 'X-Auth-Token': FAKE_SECRET_KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ action: 'reboot' }),
    });
    expect(call.status).toBe(202);
    const response = await fetch(
      `${emulator.url}/audit-trail/v1alpha1/regions/fr-par/events?organization_id=${ORGANIZATION}&resource_type=instance_server&method_name=ServerAction&order_by=recorded_at_desc`,
      { headers: { 'X-Auth-Token': FAKE_SECRET_KEY } },
    );
    const [ours] = ((await response.json()) as { events: Record<string, unknown>[] }).events as [Record<string, unknown>];
    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
    const same = ['product_name', 'service_name', 'method_name', 'request_body', 'status_code'] as const;
    expect(Object.fromEntries(same.map((k) => [k, ours[k]]))).toEqual(Object.fromEntries(same.map((k) => [k, theirs[k]])));
    expect(ours.locality).toBe('fr-par-1');
    expect(theirs.locality).toBe('fr-par-1');
    const [resource] = ours.resources as [Record<string, unknown>];
    const [recordedResource] = theirs.resources as [Record<string, unknown>];
    expect(Object.keys(resource).sort()).toEqual(Object.keys(recordedResource).sort());
    expect(resource).toMatchObject({ type: 'instance_server', id: DEMO_CP0_ID, updated_at: null, deleted_at: null });
    expect(recordedResource).toMatchObject({ updated_at: null, deleted_at: null });
  });

  it('an empty window and a last page are exactly as recorded: {"events":[]}, no next_page_token', async () => {
    const recordedEmpty = listings.map((i) => i.response.body).find((b) => b === '{"events":[]}');
    expect(recordedEmpty).toBeDefined();
    const response = await fetch(`${emulator.url}/audit-trail/v1alpha1/regions/fr-par/events?organization_id=${ORGANIZATION}`, {
      headers: { 'X-Auth-Token': FAKE_SECRET_KEY },
    });
    expect(await response.text()).toBe(recordedEmpty);
  });

  it('the SDK reads the recorded answer: ids, principal, user agent, request body, resources', async () => {
    emulator.auditTrail.inject([recorded as never]);
    const listing = await createAuditTrailGateway(settings({ organizationId: recorded.organization_id as string })).listEvents({
      region: 'fr-par',
      resourceType: 'secret_manager_secret' as never,
      recordedAfter: new Date('2025-11-20T00:00:00Z'),
      recordedBefore: new Date('2025-11-21T00:00:00Z'),
    });
    expect(listing.events).toHaveLength(1);
    expect(listing.events[0]).toMatchObject({
      id: recorded.id,
      locality: 'fr-par',
      principalId: (recorded.principal as { id: string }).id,
      methodName: 'CreateSecret',
      statusCode: 200,
      userAgent: recorded.user_agent,
      requestBody: recorded.request_body,
      resources: [{ type: 'secret_manager_secret', name: 'scalewayDataSourceAuditTrailSecret' }],
    });
    expect(listing.events[0]?.recordedAt).toBe('2025-11-20T12:06:03.593Z');
  });

  it('organization_id is required (400 through the SDK)', async () => {
    const response = await fetch(`${emulator.url}/audit-trail/v1alpha1/regions/fr-par/events`, {
      headers: { 'X-Auth-Token': FAKE_SECRET_KEY },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'invalid_arguments', details: [{ argument_name: 'organization_id' }] });
  });
});

describe('Audit Trail gateway (real SDK against the emulator)', () => {
  const window = () => ({ recordedAfter: new Date(Date.now() - 180_000), recordedBefore: new Date(Date.now() + 1_000) });

  it('reads the events inside the window only', async () => {
    const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
    emulator.auditTrail.inject([
      { id: 'old', recorded_at: minutesAgo(10), method_name: 'DeleteServer', resources: [{ id: 's-old', type: 'instance_server' }] },
      { id: 'recent', recorded_at: minutesAgo(1), method_name: 'DeleteServer', resources: [{ id: 's-new', type: 'instance_server' }] },
      {
        id: 'backend',
        recorded_at: minutesAgo(1),
        method_name: 'SetBackendServers',
        resources: [{ id: 'b', type: 'load_balancer_backend' }],
      },
    ]);
    const listing = await createAuditTrailGateway(settings()).listEvents({
      region: 'fr-par',
      resourceType: 'instance_server',
      ...window(),
    });
    expect(listing.events.map((e) => e.id)).toEqual(['recent']);
    const query =
      emulator
        .calls()
        .filter((c) => c.operation === 'ListEvents')
        .at(-1)?.query ?? '';
    expect(new URLSearchParams(query).get('resource_type')).toBe('instance_server');
    expect(new URLSearchParams(query).get('organization_id')).toBe(ORGANIZATION);
  });

  it('follows next_page_token across pages, oldest first; stops at maxPages and says truncated', async () => {
    const base = Date.now() - 60_000;
    emulator.auditTrail.inject(
      Array.from({ length: 25 }, (_, i) => ({
        id: `e${String(i).padStart(2, '0')}`,
        recorded_at: new Date(base + i * 100).toISOString(),
        method_name: 'DeleteServer',
        resources: [{ id: `s${i}`, type: 'instance_server' }],
      })),
    );
    emulator.resetCalls();
    const all = await createAuditTrailGateway(settings({ pageSize: 10 })).listEvents({
      region: 'fr-par',
      resourceType: 'instance_server',
      ...window(),
    });
    expect(all.events.map((e) => e.id)).toEqual(Array.from({ length: 25 }, (_, i) => `e${String(i).padStart(2, '0')}`));
    expect(all).toMatchObject({ pages: 3, truncated: false });
    const tokens = emulator
      .calls()
      .filter((c) => c.operation === 'ListEvents')
      .map((c) => new URLSearchParams(c.query).get('page_token'));
    expect(tokens[0]).toBeNull();
    expect(tokens.slice(1).every((t) => !!t)).toBe(true);
    const capped = await createAuditTrailGateway(settings({ pageSize: 10, maxPages: 2 })).listEvents({
      region: 'fr-par',
      resourceType: 'instance_server',
      ...window(),
    });
    expect(capped).toMatchObject({ pages: 2, truncated: true });
    expect(capped.events).toHaveLength(20);
    // A query's own maxPages narrows the gateway's, never widens it.
    const query = { region: 'fr-par', resourceType: 'instance_server' as const, ...window() };
    const narrowed = await createAuditTrailGateway(settings({ pageSize: 10, maxPages: 2 })).listEvents({ ...query, maxPages: 1 });
    expect(narrowed).toMatchObject({ pages: 1, truncated: true });
    const notWidened = await createAuditTrailGateway(settings({ pageSize: 10, maxPages: 2 })).listEvents({ ...query, maxPages: 5 });
    expect(notWidened).toMatchObject({ pages: 2, truncated: true });
  });

  it('a change is listed only once the (assumed) Audit Trail delay has passed', async () => {
    emulator.auditTrail.setDelayMs(60_000);
    emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    const gateway = createAuditTrailGateway(settings());
    expect((await gateway.listEvents({ region: 'fr-par', resourceType: 'instance_server', ...window() })).events).toEqual([]);
    emulator.auditTrail.setDelayMs(0);
    const listed = await gateway.listEvents({ region: 'fr-par', resourceType: 'instance_server', ...window() });
    expect(listed.events.map((e) => e.methodName)).toEqual(['ServerAction', 'CreateServer', 'ServerAction']);
  });
});

describe("what the emulator's control API leaves in Audit Trail (API calls only), read through the SDK", () => {
  const window = () => ({ recordedAfter: new Date(Date.now() - 180_000), recordedBefore: new Date(Date.now() + 1_000) });
  const listed = async () =>
    (await createAuditTrailGateway(settings()).listEvents({ region: 'fr-par', resourceType: 'instance_server', ...window() })).events.map(
      (e) => [e.methodName, e.requestBody?.action ?? null, e.resources[0]?.id],
    );
  const server = (id: string, state: string) => ({
    id,
    name: `control-plane-${id.slice(0, 4)}`,
    zone: 'fr-par-1',
    state,
    tags: NEW_CP.tags,
    publicIps: [],
  });

  it("kOps' replacement: ServerAction terminate on the old server (not DeleteServer), then CreateServer with the tags and poweron", async () => {
    emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    expect(await listed()).toEqual([
      ['ServerAction', 'terminate', DEMO_CP0_ID],
      ['CreateServer', null, NEW_CP.id],
      ['ServerAction', 'poweron', NEW_CP.id],
    ]);
    const [, created] = (
      await createAuditTrailGateway(settings()).listEvents({ region: 'fr-par', resourceType: 'instance_server', ...window() })
    ).events;
    expect(created?.requestBody?.tags).toEqual(NEW_CP.tags);
  });

  it('a stop or a crash on the platform side (a state changed by upsert) records nothing; a ServerAction through the API does', async () => {
    const id = '5e1f0000-0000-4000-8000-000000000001';
    emulator.upsertServer(server(id, 'running'));
    emulator.auditTrail.clear();
    emulator.upsertServer(server(id, 'stopped'));
    emulator.upsertServer(server(id, 'running'));
    expect(await listed()).toEqual([]);
    emulator.serverAction(id, 'poweroff');
    emulator.serverAction(id, 'reboot');
    expect(emulator.state.servers.get(id)?.state).toBe('stopped');
    expect(await listed()).toEqual([
      ['ServerAction', 'poweroff', id],
      ['ServerAction', 'reboot', id],
    ]);
  });

  it('a removal: ServerAction terminate for a running server, DeleteServer for a stopped one (the CLI recording: poweroff, then DeleteServer)', async () => {
    const [running, stopped] = ['5e1f0000-0000-4000-8000-000000000002', '5e1f0000-0000-4000-8000-000000000003'];
    emulator.upsertServer(server(running, 'running'));
    emulator.upsertServer(server(stopped, 'stopped'));
    emulator.auditTrail.clear();
    emulator.removeServer(running);
    emulator.removeServer(stopped);
    expect(await listed()).toEqual([
      ['ServerAction', 'terminate', running],
      ['DeleteServer', null, stopped],
    ]);
  });

  it('over HTTP: POST /_emulator/servers/{id}/action performs and records it; an unknown action is a 400, an unknown server a 404', async () => {
    const act = (id: string, body: unknown) =>
      fetch(`${emulator.url}/_emulator/servers/${id}/action`, { method: 'POST', body: JSON.stringify(body) });
    expect((await act(DEMO_CP0_ID, { action: 'terminate' })).status).toBe(200);
    expect(emulator.state.servers.has(DEMO_CP0_ID)).toBe(false);
    expect(await listed()).toEqual([['ServerAction', 'terminate', DEMO_CP0_ID]]);
    const unknownServer = await act(NEW_CP.id, { action: 'explode' });
    expect([unknownServer.status, ((await unknownServer.json()) as { message: string }).message]).toEqual([
      404,
      expect.stringMatching(new RegExp(`^no server ${NEW_CP.id} \\(servers: `)),
    ]);
    emulator.upsertServer(NEW_CP);
    const bad = await act(NEW_CP.id, { action: 'explode' });
    expect([bad.status, ((await bad.json()) as { message: string }).message]).toEqual([
      400,
      'action must be one of poweron, poweroff, stop_in_place, reboot, terminate',
    ]);
  });
});
