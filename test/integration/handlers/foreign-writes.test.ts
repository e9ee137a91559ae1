// Other writers seen and named: each kind of writer writes the demo pool through the emulator with its own
// User-Agent and API key (kOps with its own calls, emulator/kops/; Terraform, the cloud-controller-manager, the CLI,
// the console and another scw-lb-sync deployment with theirs), so Audit Trail holds their events as the real one
// would; then the watch handler names each (its answer's foreignWrites, a foreign_write line each), finds a flap
// (pool_contested) and hands it to the reconcile, whose answer says it. Our own calls carry our owner id.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../../emulator';
import { KopsSession, startEmulator } from '../../../emulator';
import { startLocalQueue, type LocalQueue } from '../../../local/queue-server';
import { createAuditTrailGateway } from '../../../shared/adapters/audit-trail';
import { createEventQueue, type EventQueue } from '../../../shared/adapters/queue';
import { createScalewayGateway } from '../../../shared/adapters/scaleway';
import { handleWatchRequest, type WatchReport } from '../../../shared/handlers/watch-request';
import { createLogger } from '../../../shared/platform/log';
import { lineProblems } from '../../../shared/platform/log-schema';
import { ownerIdFromEnv } from '../../../shared/platform/config';
import { LBSYNC_USER_AGENT_MARKER } from '../../../shared/outbound/user-agent';
import { reconcileTarget } from '../../../shared/reconcile/reconcile-target';
import { decodeEvent } from '../../../shared/schemas/event';
import { parseTargets, type Target } from '../../../shared/schemas/target';
import {
  convergedDemoSeed,
  convergedTwoLbSeed,
  DEMO_CONTROL_PLANE_IPS,
  demoTarget,
  FAKE_ACCESS_KEY,
  FAKE_SECRET_KEY,
  FALLBACK_LB_ID,
  twoLbTarget,
} from '../../support/world';

const ORGANIZATION = '23b8c1e9-3924-46de-beb1-3b9046685257';
const OURS = 'prod-par';
const SDK_GO = 'scaleway-sdk-go/v1.0.0-beta.36 (go1.26.6; linux; amd64)';
/** The User-Agents of the other writers, as their own code builds them. */
const WRITERS = {
  terraform: `${SDK_GO} terraform-provider/v2.60.0 terraform/1.9.8`,
  ccm: `${SDK_GO} scaleway/ccm v0.31.0 (a1b2c3d)`,
  cli: `${SDK_GO} scaleway-cli/2.40.0`,
  console: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
};

let emulator: EmulatorHandle;
let local: LocalQueue;
let queue: EventQueue;
let queueUrl: string;
let backendId: string;
let queues = 0;

beforeAll(async () => {
  emulator = await startEmulator({ instancePendingMs: 5, auditTrailDelayMs: 0 });
  local = await startLocalQueue();
  queue = createEventQueue(local.settings);
});
afterAll(async () => {
  await emulator.stop();
  await local.stop();
});
beforeEach(async () => {
  emulator.loadSeed(convergedDemoSeed());
  emulator.auditTrail.clear();
  backendId = emulator.backendHealth().backends[0]?.backendId as string;
  queueUrl = await queue.createQueue(`foreign-writes-${++queues}`, {});
});

const gateway = (ownerId: string) =>
  createScalewayGateway({ accessKey: FAKE_ACCESS_KEY, secretKey: FAKE_SECRET_KEY, apiUrl: emulator.url, defaultZone: 'fr-par-1', ownerId });

/** A pool write as another tool makes it: its User-Agent, its own API key. */
async function writeAs(userAgent: string, pool: string[], on = { zone: 'fr-par-1', backendId: '' }): Promise<void> {
  const response = await fetch(`${emulator.url}/lb/v1/zones/${on.zone}/backends/${on.backendId || backendId}/servers`, {
    method: 'PUT',
    headers: { 'User-Agent': userAgent, 'X-Auth-Token': `key-of-${userAgent.length}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ server_ip: pool }),
  });
  expect(response.status).toBe(200);
}

async function watch(lines: string[] = [], targets = [demoTarget()]): Promise<WatchReport> {
  const answer = await handleWatchRequest('{}', {
    targets,
    auditTrail: () =>
      createAuditTrailGateway({
        accessKey: FAKE_ACCESS_KEY,
        secretKey: FAKE_SECRET_KEY,
        apiUrl: emulator.url,
        organizationId: ORGANIZATION,
      }),
    organizationId: ORGANIZATION,
    queue: () => queue,
    reconcileQueueUrl: queueUrl,
    window: { periodMs: 60_000, overlapMs: 120_000 },
    own: { userAgentMarker: LBSYNC_USER_AGENT_MARKER, principalIds: new Set(), ownerId: OURS },
    logger: createLogger({ service: 'test', level: 'info', destination: { write: (line: string) => lines.push(line) } }),
  });
  expect(answer.statusCode).toBe(200);
  return JSON.parse(answer.body) as WatchReport;
}

describe('our User-Agent names the product, its version and this deployment', () => {
  it('scw-lb-sync/<version> owner/<id> event/<id>; the owner id defaults to a hash of the reconcile queue URL', async () => {
    await createScalewayGateway({
      accessKey: FAKE_ACCESS_KEY,
      secretKey: FAKE_SECRET_KEY,
      apiUrl: emulator.url,
      ownerId: OURS,
      eventId: 'evt-1',
    }).findLbsByName('fr-par-1', 'api.demo.k8s.local');
    expect(emulator.calls().at(-1)?.userAgent).toMatch(/ scw-lb-sync\/\d+\.\d+\.\d+ owner\/prod-par event\/evt-1$/);
    const derived = ownerIdFromEnv({ RECONCILE_QUEUE_URL: 'https://sqs.mnq.fr-par.scaleway.com/project-x/lbsync-reconcile' });
    expect(derived).toMatch(/^q[0-9a-f]{10}$/);
    expect(ownerIdFromEnv({ RECONCILE_QUEUE_URL: 'https://sqs.mnq.fr-par.scaleway.com/project-y/lbsync-reconcile' })).not.toBe(derived);
    expect(ownerIdFromEnv({})).toBe('local');
    expect(() => ownerIdFromEnv({ LBSYNC_OWNER_ID: 'prod par!' })).toThrow(/LBSYNC_OWNER_ID/);
  });
});

describe('the watcher names every other writer of a target pool', () => {
  it('kOps, Terraform, the CCM, the CLI, the console and another scw-lb-sync deployment: foreignWrites and a foreign_write line each; ours not', async () => {
    const kops = new KopsSession({
      apiUrl: emulator.url,
      secretKey: 'kops-key',
      cluster: 'demo.k8s.local',
      zone: 'fr-par-1',
      timings: { lbPollMs: 5 },
    });
    await kops.updateCluster();
    for (const ua of Object.values(WRITERS)) await writeAs(ua, DEMO_CONTROL_PLANE_IPS);
    await gateway('staging-par').setBackendServers('fr-par-1', backendId, DEMO_CONTROL_PLANE_IPS);
    await gateway(OURS).setBackendServers('fr-par-1', backendId, DEMO_CONTROL_PLANE_IPS);
    const lines: string[] = [];
    const report = await watch(lines);
    expect(new Set(report.foreignWrites.map((w) => w.writer))).toEqual(
      new Set([
        'kOps 1.37.0-alpha.1',
        'Terraform (scaleway provider v2.60.0)',
        'the Scaleway cloud-controller-manager v0.31.0',
        'the Scaleway CLI 2.40.0',
        'the Scaleway console (a browser)',
        'another scw-lb-sync deployment (owner staging-par)',
      ]),
    );
    expect(
      report.foreignWrites
        .filter((w) => w.writer.startsWith('kOps'))
        .map((w) => w.method)
        .sort(),
    ).toEqual(['SetBackendServers', 'UpdateBackend']);
    for (const w of report.foreignWrites)
      expect(w).toEqual({
        target: 'demo.k8s.local',
        method: expect.any(String),
        userAgent: expect.any(String),
        at: expect.any(String),
        writer: expect.any(String),
      });
    expect(report.foreignWrites.some((w) => w.userAgent.includes('owner/prod-par'))).toBe(false);
    const foreign = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.log_type === 'foreign_write');
    expect(foreign).toHaveLength(report.foreignWrites.length);
    for (const line of lines) expect(lineProblems(line)).toEqual([]);
    expect(report.contested).toEqual([]);
  });

  it("a target with several LBs: a write on its fallback LB, in the fallback's zone, is named as the target's and enqueues its event", async () => {
    emulator.loadSeed(convergedTwoLbSeed());
    emulator.auditTrail.clear();
    const fallback = emulator.backendHealth().backends.find((b) => b.lbId === FALLBACK_LB_ID)?.backendId as string;
    await writeAs(WRITERS.terraform, ['51.15.100.99'], { zone: 'fr-par-2', backendId: fallback });
    const lines: string[] = [];
    const target = twoLbTarget();
    const report = await watch(lines, [target]);
    expect(report.foreignWrites.map((w) => [w.target, w.method, w.writer])).toEqual([
      [target.name, 'SetBackendServers', 'Terraform (scaleway provider v2.60.0)'],
    ]);
    expect(report).toMatchObject({ enqueued: 1, targets: [target.name] });
    const foreign = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.log_type === 'foreign_write');
    expect(foreign).toMatchObject({ target: target.name, lb_id: FALLBACK_LB_ID });
    // The one-LB target of the same servers does not own the fallback: nothing for it.
    expect((await watch([], [demoTarget()])).foreignWrites).toEqual([]);
  });

  it('a writer reverted three times in 30 minutes contests the pool: a pool_contested line, and the reconcile answer says it', async () => {
    for (let i = 0; i < 3; i += 1) {
      await writeAs(WRITERS.terraform, ['51.15.100.99']);
      await gateway(OURS).setBackendServers('fr-par-1', backendId, DEMO_CONTROL_PLANE_IPS);
    }
    // The same flap by another deployment: named by both owner ids.
    for (let i = 0; i < 3; i += 1) {
      await gateway('staging-par').setBackendServers('fr-par-1', backendId, DEMO_CONTROL_PLANE_IPS.slice(1));
      await gateway(OURS).setBackendServers('fr-par-1', backendId, DEMO_CONTROL_PLANE_IPS);
    }
    const lines: string[] = [];
    const report = await watch(lines);
    expect(report.contested).toEqual([
      { target: 'demo.k8s.local', writer: 'Terraform (scaleway provider v2.60.0)', reverts: 3, windowMinutes: 30 },
      { target: 'demo.k8s.local', writer: 'another scw-lb-sync deployment (owner staging-par)', reverts: 3, windowMinutes: 30 },
    ]);
    const contested = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.log_type === 'pool_contested');
    expect(contested.map((l) => [l.level, l.writer_kind, l.reverts])).toEqual([
      ['WARN', 'terraform', 3],
      ['WARN', 'lbsync', 3],
    ]);
    expect(String(contested[1]?.message)).toContain('(owners staging-par and ours, prod-par)');

    // The event it enqueued carries the contest; the reconcile of it warns, naming the writer and what to do.
    const [message] = await queue.receive(queueUrl, { maxMessages: 1, waitSeconds: 0 });
    const event = decodeEvent(message?.body ?? '');
    expect(event.contested?.map((c) => c.writerKind)).toEqual(['terraform', 'lbsync']);
    const result = await reconcileTarget(demoTarget(), event, { gateway: gateway(OURS), waitBudgetMs: 1_000, ownerId: OURS });
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^\[pool_contested\] target demo\.k8s\.local: scw-lb-sync reverted Terraform .* 3 times in the last 30 minutes: a Terraform-managed pool/,
        ),
        expect.stringContaining('another scw-lb-sync deployment (owner staging-par) (owners staging-par and ours, prod-par)'),
      ]),
    );
  });
});

describe("a kops target naming a backend field kOps' apply resets (docs/kops-parity.md, section 3)", () => {
  const KOPS = 'kOps 1.37.0-alpha.1';
  const [target] = parseTargets([
    {
      kops: {
        cluster: 'demo.k8s.local',
        zone: 'fr-par-1',
        backend: { onMarkedDownAction: 'shutdown_sessions', timeoutServerMs: 60_000 },
      },
    },
  ]) as [Target];
  const reconcile = (event: Parameters<typeof reconcileTarget>[1] = {}) =>
    reconcileTarget(target, event, { gateway: gateway(OURS), waitBudgetMs: 2_000, ownerId: OURS });
  const held = () => {
    const backend = (emulator.dumpState() as { lbs: { backends: Record<string, unknown>[] }[] }).lbs[0]?.backends[0];
    return [backend?.on_marked_down_action, backend?.timeout_server];
  };

  // What kOps' PUT leaves out (the timeouts) is reset or kept by the API: not recorded (switch updateBackendLeftOut).
  for (const leftOut of ['reset', 'keep'] as const) {
    it(`updateBackendLeftOut ${leftOut}: every kOps apply resets on_marked_down_action, the watcher names kOps, one UpdateBackend writes it back, three rounds contest the pool`, async () => {
      emulator.setBehaviours({ updateBackendLeftOut: leftOut });
      try {
        const kops = new KopsSession({
          apiUrl: emulator.url,
          secretKey: 'kops-key',
          cluster: 'demo.k8s.local',
          zone: 'fr-par-1',
          changedGroups: [],
          timings: { lbPollMs: 5 },
        });
        expect((await reconcile()).done.map((a) => a.kind)).toEqual(['UpdateBackend']);
        expect(held()).toEqual(['shutdown_sessions', 60_000]);
        for (let round = 1; round <= 3; round += 1) {
          await kops.updateCluster();
          expect(held()).toEqual(['on_marked_down_action_none', leftOut === 'reset' ? 300_000 : 60_000]);
          const report = await watch();
          const kopsWrites = report.foreignWrites.filter((w) => w.method === 'UpdateBackend');
          expect(kopsWrites).toHaveLength(round);
          for (const w of kopsWrites) expect(w.writer).toBe(KOPS);
          const restored = await reconcile();
          expect(restored.done.find((a) => a.kind === 'UpdateBackend')).toMatchObject({
            changes: [
              { field: 'onMarkedDownAction', from: 'on_marked_down_action_none', to: 'shutdown_sessions' },
              ...(leftOut === 'reset' ? [{ field: 'timeoutServerMs', from: 300_000, to: 60_000 }] : []),
            ],
          });
          expect(held()).toEqual(['shutdown_sessions', 60_000]);
          expect((await reconcile()).status).toBe('noop');
        }
        const lines: string[] = [];
        const report = await watch(lines);
        expect(report.contested).toEqual([{ target: 'demo.k8s.local', writer: KOPS, reverts: 3, windowMinutes: 30 }]);
        const contestLines = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.log_type === 'pool_contested');
        expect(contestLines.map((l) => [l.writer_kind, l.reverts])).toEqual([['kops', 3]]);
        // The watcher's events for the target; the last run's carries the contest, and its reconcile warns with kOps' advice.
        const events = (await queue.receive(queueUrl, { maxMessages: 10, waitSeconds: 0 })).map((m) => decodeEvent(m.body));
        const contested = events.find((e) => (e.contested ?? []).length > 0);
        expect(contested?.contested?.map((c) => c.writerKind)).toEqual(['kops']);
        const warned = await reconcile(contested);
        expect(warned.warnings).toEqual(
          expect.arrayContaining([
            expect.stringMatching(
              /^\[pool_contested\] target demo\.k8s\.local: scw-lb-sync reverted kOps .*on_marked_down_action back to none/,
            ),
          ]),
        );
      } finally {
        emulator.setBehaviours({ updateBackendLeftOut: 'reset' });
      }
    });
  }
});
