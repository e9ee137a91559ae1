// The watch handler (shared/handlers/watch-request.ts) end to end against the emulator's Audit Trail and a real
// SQS-protocol queue: what lands on the queue is the evidence.
import { createClient } from '@scaleway/sdk-client';
import { Lbv1 } from '@scaleway/sdk-lb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../../emulator';
import { OPERATOR_ACTOR, startEmulator } from '../../../emulator';
import { startLocalQueue, type LocalQueue } from '../../../local/queue-server';
import { createAuditTrailGateway, type AuditTrailSettings } from '../../../shared/adapters/audit-trail';
import { createEventQueue, type EventQueue } from '../../../shared/adapters/queue';
import { createScalewayGateway } from '../../../shared/adapters/scaleway';
import type { Action } from '../../../shared/core/model';
import { planBackend } from '../../../shared/core/plan';
import { handleWatchRequest, type WatchDeps, type WatchReport } from '../../../shared/handlers/watch-request';
import { createLogger } from '../../../shared/platform/log';
import { lineProblems } from '../../../shared/platform/log-schema';
import { LBSYNC_USER_AGENT_MARKER } from '../../../shared/outbound/user-agent';
import { type BackendSpec, parseTargets } from '../../../shared/schemas/target';
import { DEMO_CLUSTER, DEMO_CP0_ID, DEMO_LB_ID, demoSeed, demoTarget, FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../../support/world';

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
const targets = parseTargets([
  { kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } },
  { kops: { cluster: 'other.k8s.local', zone: 'fr-par-2' } },
]);

let emulator: EmulatorHandle;
let local: LocalQueue;
let queue: EventQueue;
let queueUrl: string;
let queues = 0;

const settings = (extra: Partial<AuditTrailSettings> = {}): AuditTrailSettings => ({
  accessKey: FAKE_ACCESS_KEY,
  secretKey: FAKE_SECRET_KEY,
  apiUrl: emulator.url,
  organizationId: ORGANIZATION,
  ...extra,
});

function watchDeps(overrides: Partial<WatchDeps> = {}): WatchDeps {
  return {
    targets,
    auditTrail: () => createAuditTrailGateway(settings()),
    organizationId: ORGANIZATION,
    queue: () => queue,
    reconcileQueueUrl: queueUrl,
    window: { periodMs: 60_000, overlapMs: 120_000 },
    own: { userAgentMarker: LBSYNC_USER_AGENT_MARKER, principalIds: new Set() },
    projectId: PROJECT,
    logger: createLogger({ service: 'test', level: 'silent' }),
    ...overrides,
  };
}

async function watch(
  body = '{}',
  overrides: Partial<WatchDeps> = {},
): Promise<{ status: number; body: WatchReport & { error?: string; hint?: string } }> {
  const answer = await handleWatchRequest(body, watchDeps(overrides));
  return { status: answer.statusCode, body: JSON.parse(answer.body) as WatchReport & { error?: string; hint?: string } };
}

async function drain(): Promise<{ source: string; target: string; attempt: number; occurredAt: string }[]> {
  const bodies = [];
  for (;;) {
    const batch = await queue.receive(queueUrl, { maxMessages: 10, waitSeconds: 0 });
    if (batch.length === 0) return bodies;
    for (const m of batch) {
      bodies.push(JSON.parse(m.body));
      await queue.delete(queueUrl, m.receiptHandle);
    }
  }
}

/** Someone else's tool: the plain SDK, another key, no scw-lb-sync in its User-Agent. */
function someoneElsesLbApi(): Lbv1.ZonedAPI {
  return new Lbv1.ZonedAPI(
    createClient({ accessKey: 'SCWSOMEONEELSE000001', secretKey: '99999999-9999-4999-8999-999999999999', apiURL: emulator.url }),
  );
}

beforeAll(async () => {
  emulator = await startEmulator({ seed: demoSeed(), auditTrailDelayMs: 0, instancePendingMs: 0 });
  local = await startLocalQueue({ port: 0 });
  queue = createEventQueue(local.settings);
});
afterAll(async () => {
  await local?.stop();
  await emulator?.stop();
});
beforeEach(async () => {
  emulator.loadSeed(demoSeed());
  emulator.resetCalls();
  emulator.auditTrail.clear();
  emulator.auditTrail.setDelayMs(0);
  emulator.clearFaults();
  queueUrl = await queue.createQueue(`audit-${process.pid}-${++queues}`, {});
});

describe('watch handler (emulator + real queue)', () => {
  it('a replacement: 200 with the counts and one audit event for the target on the queue', async () => {
    emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    // What kOps' rolling update leaves in Audit Trail: the old server terminated, the new one created and powered on.
    expect(emulator.auditTrail.events().map((e) => [e.method_name, (e.request_body as { action?: string }).action])).toEqual([
      ['ServerAction', 'terminate'],
      ['CreateServer', undefined],
      ['ServerAction', 'poweron'],
    ]);
    const answer = await watch();
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ events: 3, relevant: 3, enqueued: 1, targets: [DEMO_CLUSTER] });
    expect(Date.parse(answer.body.window.to) - Date.parse(answer.body.window.from)).toBe(180_000);
    const queued = await drain();
    expect(queued).toEqual([expect.objectContaining({ version: 1, source: 'audit', target: DEMO_CLUSTER, attempt: 0 })]);
    // One region (fr-par-1 and fr-par-2 are both fr-par) times the two watched resource types.
    const queries = emulator
      .calls()
      .filter((c) => c.operation === 'ListEvents')
      .map((c) => new URLSearchParams(c.query).get('resource_type'));
    expect(queries.sort()).toEqual(['instance_server', 'load_balancer_backend']);
  });

  it('at most one event per target per run, however many events concern it', async () => {
    emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    emulator.serverAction(NEW_CP.id, 'poweroff');
    emulator.serverAction(NEW_CP.id, 'poweron');
    const answer = await watch();
    expect(answer.body).toMatchObject({ events: 5, relevant: 5, enqueued: 1 });
    expect((await drain()).map((e) => e.target)).toEqual([DEMO_CLUSTER]);
  });

  it('a control plane that stops or crashes on the platform side is no API call: nothing to read, nothing enqueued (the sweep is that net)', async () => {
    const cp0 = emulator.state.servers.get(DEMO_CP0_ID);
    if (!cp0) throw new Error('the demo seed has no control plane 0');
    const inState = (state: string) => ({
      id: cp0.id,
      name: cp0.name,
      zone: cp0.zone,
      tags: cp0.tags,
      publicIps: cp0.publicIps.map((ip) => ip.address),
      state,
    });
    emulator.upsertServer(inState('stopped'));
    expect(emulator.state.servers.get(DEMO_CP0_ID)?.state).toBe('stopped');
    expect(emulator.auditTrail.events()).toEqual([]);
    expect((await watch()).body).toMatchObject({ events: 0, relevant: 0, enqueued: 0 });
    expect(await drain()).toEqual([]);
    // The same stop made through the API (an operator's poweroff) is in the trail and concerns the target.
    emulator.upsertServer(inState('running'));
    emulator.serverAction(DEMO_CP0_ID, 'poweroff');
    expect(emulator.state.servers.get(DEMO_CP0_ID)?.state).toBe('stopped');
    expect((await watch()).body).toMatchObject({ events: 1, relevant: 1, enqueued: 1, targets: [DEMO_CLUSTER] });
    expect((await drain()).map((e) => e.target)).toEqual([DEMO_CLUSTER]);
  });

  it("our own backend writes are ignored, someone else's are not", async () => {
    const ours = createScalewayGateway({ accessKey: FAKE_ACCESS_KEY, secretKey: FAKE_SECRET_KEY, apiUrl: emulator.url });
    const [create] = planBackend({ spec: demoTarget().backends[0] as BackendSpec, pool: ['51.15.100.11'] }, undefined);
    const created = await ours.createBackend('fr-par-1', DEMO_LB_ID, create as Extract<Action, { kind: 'CreateBackend' }>);
    await ours.setBackendServers('fr-par-1', created.id, ['51.15.100.11', '51.15.100.12']);
    const mine = await watch();
    expect(mine.body).toMatchObject({ events: 2, relevant: 0, enqueued: 0, targets: [] });
    expect(await drain()).toEqual([]);

    await someoneElsesLbApi().setBackendServers({ zone: 'fr-par-1', backendId: created.id, serverIp: ['51.15.100.99'] });
    const theirs = await watch();
    expect(theirs.body).toMatchObject({ events: 3, relevant: 1, enqueued: 1, targets: [DEMO_CLUSTER] });
    expect((await drain()).map((e) => [e.source, e.target])).toEqual([['audit', DEMO_CLUSTER]]);
    const recorded = emulator.auditTrail.events().map((e) => [e.method_name, String(e.user_agent).includes('scw-lb-sync/')]);
    expect(recorded).toEqual([
      ['CreateBackend', true],
      ['SetBackendServers', true],
      ['SetBackendServers', false],
    ]);
  });

  it('our own writes are also recognised by principal when configured', async () => {
    await someoneElsesLbApi().createBackend({
      zone: 'fr-par-1',
      lbId: DEMO_LB_ID,
      name: 'lb-backend-https',
      forwardProtocol: 'tcp',
      forwardPort: 443,
      forwardPortAlgorithm: 'roundrobin',
      stickySessions: 'none',
      stickySessionsCookieName: '',
      proxyProtocol: 'proxy_protocol_none',
      serverIp: [],
      healthCheck: { port: 443, checkMaxRetries: 5, checkSendProxy: false, tcpConfig: {} },
    });
    const [event] = emulator.auditTrail.events();
    if (!event) throw new Error('the pool change left no audit trail event');
    const principal = (event.principal as { id: string }).id;
    const ignored = await watch('{}', { own: { userAgentMarker: LBSYNC_USER_AGENT_MARKER, principalIds: new Set([principal]) } });
    expect(ignored.body).toMatchObject({ events: 1, relevant: 0, enqueued: 0 });
    const counted = await watch();
    expect(counted.body).toMatchObject({ events: 1, relevant: 1, enqueued: 1 });
    expect((await drain()).map((e) => e.target)).toEqual([DEMO_CLUSTER]);
  });

  it("events of another zone or project enqueue nothing; the same change in the target's zone does", async () => {
    const deleted = (locality: string, project = PROJECT) => ({
      locality,
      project_id: project,
      method_name: 'DeleteServer',
      principal: { id: OPERATOR_ACTOR.principalId },
      resources: [{ id: 's', type: 'instance_server', name: 'control-plane-x' }],
    });
    emulator.auditTrail.inject([deleted('fr-par-3'), deleted('fr-par-1', '00000000-0000-4000-8000-000000000099'), deleted('nl-ams-1')]);
    const elsewhere = await watch();
    // The other project is filtered out by the API (project_id), nl-ams is a region no target is in (not read);
    // fr-par-3 is read, and concerns no target.
    expect(elsewhere.body).toMatchObject({ events: 1, relevant: 0, enqueued: 0 });
    expect(await drain()).toEqual([]);
    emulator.auditTrail.inject([deleted('fr-par-2')]);
    const here = await watch();
    expect(here.body).toMatchObject({ relevant: 1, enqueued: 1, targets: ['other.k8s.local'] });
    expect((await drain()).map((e) => e.target)).toEqual(['other.k8s.local']);
  });

  it('args select targets and ask for a dry run; bad args are a 400 and read nothing', async () => {
    emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    expect((await watch('{"targets":["other.k8s.local"]}')).body).toMatchObject({ enqueued: 0 });
    expect(await watch(`{"targets":[${JSON.stringify(DEMO_CLUSTER)}],"dryRun":true}`)).toMatchObject({
      status: 200,
      body: { enqueued: 1 },
    });
    expect(await drain()).toEqual([expect.objectContaining({ target: DEMO_CLUSTER, dryRun: true })]);
    emulator.resetCalls();
    const bad = await watch('{"target":"x"}');
    expect(bad.status).toBe(400);
    expect((await watch('not json')).status).toBe(400);
    expect(emulator.calls()).toEqual([]);
    expect(await drain()).toEqual([]);
  });

  it('502 when Audit Trail fails (the hint names the permission set), nothing enqueued; the next run covers the window', async () => {
    emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    emulator.addFault({
      operation: 'ListEvents',
      status: 403,
      body: { type: 'permissions_denied', message: 'insufficient permissions', details: [{ resource: 'audit_trail', action: 'read' }] },
      count: -1,
    });
    const failed = await watch();
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error: 'permissions_denied', enqueued: 0 });
    expect(failed.body.hint).toContain('AuditTrailReadOnly');
    expect(await drain()).toEqual([]);
    emulator.clearFaults();
    expect((await watch()).body).toMatchObject({ enqueued: 1 });
  });

  it('more events than one run reads (truncated listing): every target of that region is enqueued', async () => {
    const renames = Array.from({ length: 5 }, (_, i) => ({
      method_name: 'UpdateServer',
      request_body: { name: `renamed-${i}` },
      resources: [{ id: `s${i}`, type: 'instance_server' }],
    }));
    emulator.auditTrail.inject(renames);
    const complete = await watch();
    expect(complete.body).toMatchObject({ events: 5, relevant: 0, enqueued: 0 });
    const truncated = await watch('{}', { auditTrail: () => createAuditTrailGateway(settings({ pageSize: 2, maxPages: 1 })) });
    expect(truncated.body).toMatchObject({ events: 2, relevant: 0, enqueued: 2, targets: [DEMO_CLUSTER, 'other.k8s.local'] });
    expect((await drain()).map((e) => e.target).sort()).toEqual([DEMO_CLUSTER, 'other.k8s.local']);
  });

  it("one run's page budget is shared out among its queries (each region's server and backend listings)", async () => {
    emulator.auditTrail.inject(
      Array.from({ length: 5 }, (_, i) => ({
        method_name: 'UpdateServer',
        request_body: { name: `renamed-${i}` },
        resources: [{ id: `s${i}`, type: 'instance_server' }],
      })),
    );
    const pagesOfTwo = () => createAuditTrailGateway(settings({ pageSize: 2 }));
    // One region, two listings: a budget of 2 pages is one page each, and the server listing stops after 2 of its 5 events.
    const tight = await watch('{}', { auditTrail: pagesOfTwo, maxPagesPerRun: 2 });
    expect(tight.body).toMatchObject({ events: 2, relevant: 0, enqueued: 2, targets: [DEMO_CLUSTER, 'other.k8s.local'] });
    expect((await drain()).map((e) => e.target).sort()).toEqual([DEMO_CLUSTER, 'other.k8s.local']);
    // 6 pages are 3 each: all 5 events read, nothing left unread, nothing enqueued.
    const enough = await watch('{}', { auditTrail: pagesOfTwo, maxPagesPerRun: 6 });
    expect(enough.body).toMatchObject({ events: 5, relevant: 0, enqueued: 0 });
    expect(await drain()).toEqual([]);
  });

  it('503 when the queue fails', async () => {
    emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    const answer = await watch('{}', { reconcileQueueUrl: queueUrl.replace(/[^/]+$/, 'no-such-queue') });
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ error: 'queue_unavailable', enqueued: 0, events: 3, relevant: 3 });
  });
});

describe('the heartbeat: one line per run (shared/platform/log-schema.ts)', () => {
  const run = async (body = '{}', overrides: Partial<WatchDeps> = {}) => {
    const lines: string[] = [];
    const logger = createLogger({ service: 'test', destination: { write: (line: string) => void lines.push(line) } });
    await handleWatchRequest(body, watchDeps({ logger, now: () => new Date(Date.UTC(2026, 10, 29, 10, 0, 0)), ...overrides }));
    expect(lines.flatMap(lineProblems)).toEqual([]);
    return lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.log_type === 'watch_heartbeat');
  };
  const window = { window_from: '2026-11-29T09:57:00.000Z', window_to: '2026-11-29T10:00:00.000Z' };

  it('ok: events read, targets enqueued and the window read', async () => {
    emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    const beats = await run('{}', { now: () => new Date(Date.now() + 1_000) });
    expect(beats).toEqual([
      expect.objectContaining({ level: 'INFO', status: 'ok', events_read: 3, events_relevant: 3, targets_enqueued: 1, list_calls: 2 }),
    ]);
  });

  it('a run with no target to watch still beats', async () => {
    expect(await run('{"targets":["nowhere.k8s.local"]}')).toEqual([
      expect.objectContaining({ status: 'ok', events_read: 0, targets_enqueued: 0, ...window }),
    ]);
  });

  it('failed: Audit Trail refused, status failed with its code', async () => {
    emulator.addFault({
      operation: 'ListEvents',
      status: 403,
      body: { type: 'permissions_denied', message: 'insufficient permissions' },
      count: -1,
    });
    expect(await run()).toEqual([
      expect.objectContaining({ level: 'ERROR', status: 'failed', code: 'permissions_denied', targets_enqueued: 0, ...window }),
    ]);
  });

  it('failed: the queue cannot be reached, status failed with queue_unavailable', async () => {
    emulator.replaceServer(DEMO_CP0_ID, NEW_CP);
    const beats = await run('{}', {
      now: () => new Date(Date.now() + 1_000),
      reconcileQueueUrl: queueUrl.replace(/[^/]+$/, 'no-such-queue'),
    });
    expect(beats).toEqual([expect.objectContaining({ status: 'failed', code: 'queue_unavailable', events_read: 3, targets_enqueued: 0 })]);
  });
});
