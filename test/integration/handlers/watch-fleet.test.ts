// The watcher over a fleet (shared/handlers/watch-request.ts): two organizations, three projects, each target's
// own key. Each (organization, region) is read once per run with a key of its targets; a pair no key may read is a
// warning for its targets and the others are enqueued. Evidence: the emulator's call log and the queue.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../../emulator';
import { startEmulator } from '../../../emulator';
import { startLocalQueue, type LocalQueue } from '../../../local/queue-server';
import { createAuditTrailGateway } from '../../../shared/adapters/audit-trail';
import { createEventQueue, type EventQueue } from '../../../shared/adapters/queue';
import { handleWatchRequest, type WatchReport } from '../../../shared/handlers/watch-request';
import { createLogger } from '../../../shared/platform/log';
import { lineProblems } from '../../../shared/platform/log-schema';
import { type Env, gatewayPerKey } from '../../../shared/platform/target-keys';
import { LBSYNC_USER_AGENT_MARKER } from '../../../shared/outbound/user-agent';
import { parseTargets } from '../../../shared/schemas/target';
import {
  FLEET,
  FLEET_DENIALS,
  fleetSeed,
  fleetTargets,
  KEY_VARIABLES,
  KEYS,
  ORG_A,
  ORG_B,
  PROJECT_A1,
  PROJECT_B1,
} from '../../support/fleet';
import { CONTROL_PLANE_ROLE_TAG } from '../../support/world';

const targets = parseTargets(fleetTargets());
const names = FLEET.map((c) => c.cluster);
const [alpha, beta, gamma, delta] = names as [string, string, string, string];

let emulator: EmulatorHandle;
let local: LocalQueue;
let queue: EventQueue;
let queueUrl: string;
let queues = 0;

async function watch(env: Env): Promise<{ status: number; body: WatchReport & { error?: string }; lines: Record<string, unknown>[] }> {
  const lines: string[] = [];
  const answer = await handleWatchRequest('{}', {
    targets,
    // The watch function's way: the target's key, else the function's own (here organization A's deployment key).
    auditTrail: gatewayPerKey(env, (key) =>
      createAuditTrailGateway({ ...KEYS.deployment, apiUrl: emulator.url, organizationId: ORG_A, ...key }),
    ),
    organizationId: ORG_A,
    projectId: PROJECT_A1,
    queue: () => queue,
    reconcileQueueUrl: queueUrl,
    window: { periodMs: 60_000, overlapMs: 120_000 },
    own: { userAgentMarker: LBSYNC_USER_AGENT_MARKER, principalIds: new Set() },
    logger: createLogger({ service: 'test', destination: { write: (line: string) => void lines.push(line) } }),
    now: () => new Date(Date.now() + 1_000),
  });
  expect(lines.flatMap(lineProblems)).toEqual([]);
  return {
    status: answer.statusCode,
    body: JSON.parse(answer.body) as WatchReport & { error?: string },
    lines: lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

async function enqueued(): Promise<string[]> {
  const found: string[] = [];
  for (;;) {
    const batch = await queue.receive(queueUrl, { maxMessages: 10, waitSeconds: 0 });
    if (batch.length === 0) return found.sort();
    for (const m of batch) {
      found.push((JSON.parse(m.body) as { target: string }).target);
      await queue.delete(queueUrl, m.receiptHandle);
    }
  }
}

/** A new control plane in every cluster, made by someone else's tool: Audit Trail records each in its own organization. */
function newControlPlaneEverywhere(): void {
  for (const [i, c] of FLEET.entries())
    emulator.upsertServer({
      name: `control-plane-${c.zone}-new`,
      zone: c.zone,
      projectId: c.project,
      tags: [`noprefix=kops.k8s.io/cluster=${c.cluster}`, CONTROL_PLANE_ROLE_TAG],
      publicIps: [`51.15.${30 + i}.1`],
    });
}

const listings = () =>
  emulator
    .calls()
    .filter((c) => c.operation === 'ListEvents')
    .map((c) => {
      const query = new URLSearchParams(c.query);
      return `${query.get('organization_id')} ${c.path.split('/')[4]} ${query.get('resource_type')} project=${query.get('project_id') ?? '-'}`;
    })
    .sort();

beforeAll(async () => {
  emulator = await startEmulator({ seed: fleetSeed(), auditTrailDelayMs: 0, denyApis: FLEET_DENIALS });
  local = await startLocalQueue({ port: 0 });
  queue = createEventQueue(local.settings);
});
afterAll(async () => {
  await local?.stop();
  await emulator?.stop();
});
beforeEach(async () => {
  emulator.loadSeed(fleetSeed());
  emulator.auditTrail.clear();
  emulator.resetCalls();
  queueUrl = await queue.createQueue(`fleet-${process.pid}-${++queues}`, {});
});

describe('the watcher across organizations', () => {
  it('reads each (organization, region) once per resource type with a key that may, and enqueues every concerned target', async () => {
    newControlPlaneEverywhere();
    const { status, body } = await watch(KEY_VARIABLES);
    expect(status).toBe(200);
    // Each creation is two events (CreateServer, then ServerAction poweron).
    expect(body).toMatchObject({ events: 8, relevant: 8, enqueued: 4, unread: [] });
    expect(await enqueued()).toEqual([...names].sort());
    // Organization A's two projects in one listing (no project filter: each target keeps to its own); B's one project filtered.
    expect(listings()).toEqual(
      [
        `${ORG_A} fr-par instance_server project=-`,
        `${ORG_A} fr-par load_balancer_backend project=-`,
        `${ORG_B} fr-par instance_server project=${PROJECT_B1}`,
        `${ORG_B} fr-par load_balancer_backend project=${PROJECT_B1}`,
        `${ORG_B} nl-ams instance_server project=${PROJECT_B1}`,
        `${ORG_B} nl-ams load_balancer_backend project=${PROJECT_B1}`,
      ].sort(),
    );
  });

  it("a key lacking AuditTrailReadOnly on organization B: a warning for B's targets, A's are enqueued (not a failed run)", async () => {
    newControlPlaneEverywhere();
    const { status, body, lines } = await watch({
      ...KEY_VARIABLES,
      TEAM_B_ACCESS_KEY: KEYS.teamBNoAuditTrail.accessKey,
      TEAM_B_SECRET_KEY: KEYS.teamBNoAuditTrail.secretKey,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ enqueued: 2, targets: [alpha, beta] });
    expect(await enqueued()).toEqual([alpha, beta]);
    expect(body.unread).toEqual([
      expect.objectContaining({ organizationId: ORG_B, region: 'fr-par', targets: [gamma], code: 'permissions_denied' }),
      expect.objectContaining({ organizationId: ORG_B, region: 'nl-ams', targets: [delta], code: 'permissions_denied' }),
    ]);
    expect(body.unread[0]?.hint).toContain('TEAM_B_ACCESS_KEY / TEAM_B_SECRET_KEY the AuditTrailReadOnly permission set on organization');
    expect(lines.find((l) => l.log_type === 'watch_heartbeat')).toMatchObject({ status: 'ok', unread_targets: [gamma, delta] });
  });

  it("a target's key variable unset: invalid_config naming it, for that pair only", async () => {
    newControlPlaneEverywhere();
    const { TEAM_B_SECRET_KEY: _unset, ...partial } = KEY_VARIABLES;
    const { status, body } = await watch(partial);
    expect(status).toBe(200);
    expect(await enqueued()).toEqual([alpha, beta]);
    expect(body.unread.map((u) => [u.targets, u.code])).toEqual([
      [[gamma], 'invalid_config'],
      [[delta], 'invalid_config'],
    ]);
    expect(body.unread[0]?.message).toContain('TEAM_B_SECRET_KEY');
  });

  it("organization A's pair is read with the deployment's key first; project A2's key reads it when that one may not", async () => {
    newControlPlaneEverywhere();
    // The deployment's key is refused Audit Trail: the next key of the pair, project A2's, reads it.
    emulator.addFault({ operation: 'ListEvents', pathIncludes: 'fr-par', status: 403, count: 2 });
    const { status, body } = await watch(KEY_VARIABLES);
    expect(status).toBe(200);
    expect(body.unread).toEqual([]);
    expect(await enqueued()).toEqual([...names].sort());
  });

  it("an event in project A1 carrying beta's tags concerns no target: beta lives in project A2", async () => {
    emulator.upsertServer({
      name: 'stray',
      zone: 'fr-par-2',
      projectId: PROJECT_A1,
      tags: [`noprefix=kops.k8s.io/cluster=${beta}`, CONTROL_PLANE_ROLE_TAG],
      publicIps: ['51.15.40.1'],
    });
    const { body } = await watch(KEY_VARIABLES);
    expect(body).toMatchObject({ events: 2, relevant: 0, enqueued: 0 });
    expect(await enqueued()).toEqual([]);
  });

  it('no pair readable at all: a failed run (502), as with one organization', async () => {
    newControlPlaneEverywhere();
    emulator.addFault({ operation: 'ListEvents', status: 403, count: -1 });
    const { status, body } = await watch(KEY_VARIABLES);
    expect(status).toBe(502);
    expect(body).toMatchObject({ error: 'permissions_denied', enqueued: 0 });
    expect(body.unread.map((u) => u.targets)).toEqual([[alpha, beta], [gamma], [delta]]);
    expect(await enqueued()).toEqual([]);
  });
});
