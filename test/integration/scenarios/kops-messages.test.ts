// kOps' wrapped messages, message by message, as a user meets them: in the reconcile function's answer,
// its log line and the dead-letter record (the real handler, the real Scaleway SDK against the emulator,
// the real SQS client against the local queue), and in `lbsync reconcile`'s output. kOps fills `%s` with
// the LB's name everywhere except `listing back-ends`, where its Find puts the LB id
// (upup/pkg/fi/cloudup/scalewaytasks/lb_backend.go, docs/kops-parity.md); the other identifier is kept
// beside the message as `lb: {id, name}`.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { faultBodies, type EmulatorSeed, type FaultSpec, type SeedBackend } from '../../../emulator';
import { startLocalQueue, type LocalQueue } from '../../../local/queue-server';
import { createEventQueue, type EventQueue } from '../../../shared/adapters/queue';
import { provisionQueues } from '../../../cli/adapters/queue-provisioning';
import type { DeadLetterRecord } from '../../../shared/handlers/dead-letter';
import { handleReconcileMessage } from '../../../shared/handlers/reconcile-message';
import { runtimeConfigFromEnv } from '../../../shared/platform/config';
import { createLogger } from '../../../shared/platform/log';
import type { Target } from '../../../shared/schemas/target';
import { runBin } from '../../cli/support';
import type { World } from '../../support/world';
import {
  DEMO_CLUSTER,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_LB_ID,
  demoSeed,
  demoTarget,
  FAKE_ACCESS_KEY,
  FAKE_SECRET_KEY,
  startWorld,
} from '../../support/world';

const LB_NAME = 'api.demo.k8s.local';
const LB = { id: DEMO_LB_ID, name: LB_NAME };

let world: World;
let slowWorld: World;
let localQueue: LocalQueue;
let queue: EventQueue;
let urls: { reconcileQueueUrl: string; deadLetterQueueUrl: string };
let logLines: string[] = [];

beforeAll(async () => {
  [world, slowWorld, localQueue] = await Promise.all([startWorld(), startWorld({ instancePendingMs: 60_000 }), startLocalQueue()]);
  queue = createEventQueue(localQueue.settings);
  urls = await provisionQueues(queue, {
    reconcileQueueName: 'msg-reconcile',
    deadLetterQueueName: 'msg-dead-letter',
    functionTimeoutSeconds: 30,
  });
});
afterAll(async () => {
  await Promise.all([localQueue?.stop(), world?.stop(), slowWorld?.stop()]);
});
beforeEach(async () => {
  logLines = [];
  await queue.purge(urls.deadLetterQueueUrl).catch(() => undefined);
  await queue.purge(urls.reconcileQueueUrl).catch(() => undefined);
});

const backend = (patch: Partial<SeedBackend> = {}): SeedBackend => ({
  name: 'lb-backend-https',
  forward_protocol: 'tcp',
  forward_port: 443,
  forward_port_algorithm: 'roundrobin',
  sticky_sessions: 'none',
  proxy_protocol: 'proxy_protocol_none',
  health_check: { port: 443, check_delay: 3000, check_timeout: 1000, check_max_retries: 5, tcp_config: {} },
  pool: DEMO_CONTROL_PLANE_IPS,
  created_at: '2026-01-01T00:00:00Z',
  ...patch,
});

function seedWith(backends: SeedBackend[]): EmulatorSeed {
  const seed = demoSeed();
  return { ...seed, lbs: (seed.lbs ?? []).map((lb) => ({ ...lb, backends })) };
}

async function deadLetters(): Promise<DeadLetterRecord[]> {
  const records: DeadLetterRecord[] = [];
  for (;;) {
    const batch = await queue.receive(urls.deadLetterQueueUrl, { maxMessages: 10, waitSeconds: 0 });
    if (batch.length === 0) return records;
    for (const m of batch) {
      records.push(JSON.parse(m.body) as DeadLetterRecord);
      await queue.delete(urls.deadLetterQueueUrl, m.receiptHandle);
    }
  }
}

interface Case {
  /** The start of the message (a pattern where the API's list order shows through). */
  message: string | RegExp;
  /** The emulator state and fault that make this step fail. */
  seed: EmulatorSeed;
  fault?: FaultSpec;
  lbStatus?: 'locked';
  target?: Target;
  slow?: boolean;
  /** What the answer carries beside the message. */
  lb: { id?: string; name?: string };
  outcome: 'dead_lettered' | 'retry_scheduled';
}

const denied = (operation: string): FaultSpec => ({ operation, ...faultBodies.permissionsDenied() });

const KOPS_CASES: Record<string, Case> = {
  'listing back-ends (kOps: the LB id)': {
    message: `listing back-ends for load-balancer ${DEMO_LB_ID}: `,
    seed: demoSeed(),
    fault: denied('ListBackends'),
    lb: LB,
    outcome: 'dead_lettered',
  },
  'updating back-end (kOps: the LB name)': {
    message: `updating back-end for load-balancer ${LB_NAME}: `,
    seed: seedWith([backend({ forward_port_algorithm: 'leastconn' })]),
    fault: denied('UpdateBackend'),
    lb: LB,
    outcome: 'dead_lettered',
  },
  'updating back-end server IPs (kOps: the LB name)': {
    message: `updating back-end server IPs for load-balancer ${LB_NAME}: `,
    seed: seedWith([backend({ pool: ['51.15.100.11'] })]),
    fault: denied('SetBackendServers'),
    lb: LB,
    outcome: 'dead_lettered',
  },
  'creating back-end (kOps: the LB name)': {
    message: `creating back-end for load-balancer ${LB_NAME}: `,
    seed: demoSeed(),
    fault: denied('CreateBackend'),
    lb: LB,
    outcome: 'dead_lettered',
  },
  'waiting for load-balancer, LB locked (kOps: the LB name)': {
    message: `waiting for load-balancer ${LB_NAME}: load-balancer is locked`,
    seed: demoSeed(),
    lbStatus: 'locked',
    lb: LB,
    outcome: 'dead_lettered',
  },
  'waiting for load-balancer, not applied in time (kOps: the LB name)': {
    message: `waiting for load-balancer ${LB_NAME}: not ready after 0 ms`,
    seed: seedWith([backend({ pool: ['51.15.100.11'] })]),
    slow: true,
    lb: LB,
    outcome: 'retry_scheduled',
  },
  'getting cluster servers (kOps: no LB in the message)': {
    message: "getting cluster servers for load-balancer's back-end: ",
    seed: demoSeed(),
    fault: denied('ListServers'),
    lb: { name: LB_NAME },
    outcome: 'dead_lettered',
  },
  'getting IP of server (kOps: the server name)': {
    message: /^getting IP of server (control-plane-fr-par-1-\d,){2}control-plane-fr-par-1-\d for load-balancer's back-end: /,
    seed: demoSeed(),
    fault: denied('ListIPs'),
    target: demoTarget({
      servers: {
        tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
        ipSource: 'ipam-private',
      },
    }),
    lb: { name: LB_NAME },
    outcome: 'dead_lettered',
  },
};

// Steps kOps does not have, in the same voice: writes name the LB as kOps' writes do; finding it names what the target gives.
const OWN_CASES: Record<string, Case> = {
  'finding load-balancer (ours: what the target names)': {
    message: 'finding load-balancer api.demo.k8s.local: no load-balancer named "api.demo.k8s.local" in fr-par-1',
    seed: { ...demoSeed(), lbs: [] },
    lb: { name: LB_NAME },
    outcome: 'dead_lettered',
  },
  'updating back-end health check (ours: the LB name)': {
    message: `updating back-end health check for load-balancer ${LB_NAME}: `,
    seed: seedWith([backend({ health_check: { port: 443, check_delay: 0, check_timeout: 0, check_max_retries: 5, tcp_config: {} } })]),
    fault: denied('UpdateHealthCheck'),
    lb: LB,
    outcome: 'dead_lettered',
  },
  'deleting duplicate back-end (ours: the LB name)': {
    message: `deleting duplicate back-end for load-balancer ${LB_NAME}: `,
    seed: seedWith([
      backend({ id: '00000000-0000-4000-8000-0000000000a1' }),
      backend({ id: '00000000-0000-4000-8000-0000000000a2', created_at: '2026-01-02T00:00:00Z' }),
    ]),
    fault: denied('DeleteBackend'),
    lb: LB,
    outcome: 'dead_lettered',
  },
};

async function run(c: Case) {
  const w = c.slow ? slowWorld : world;
  w.emulator.clearFaults();
  w.emulator.loadSeed(c.seed);
  if (c.fault) w.emulator.addFault({ ...c.fault, count: -1 });
  if (c.lbStatus) w.emulator.setLbStatus(DEMO_LB_ID, c.lbStatus);
  const target = c.target ?? demoTarget();
  const event = {
    version: 1,
    id: `evt-${Math.random().toString(16).slice(2)}`,
    source: 'manual',
    target: DEMO_CLUSTER,
    occurredAt: new Date().toISOString(),
  };
  const answer = await handleReconcileMessage(JSON.stringify(event), {
    targets: new Map([[DEMO_CLUSTER, target]]),
    gateway: () => w.gateway(),
    queues: { client: () => queue, ...urls },
    runtime: runtimeConfigFromEnv({ LBSYNC_WAIT_BUDGET_MS: '0', LBSYNC_TRANSIENT_WAIT_MS: '0' }),
    logger: createLogger({ service: 'messages', level: 'info', destination: { write: (line: string) => void logLines.push(line) } }),
  });
  w.emulator.clearFaults();
  return {
    answer: { statusCode: answer.statusCode, body: JSON.parse(answer.body) as Record<string, unknown> },
    records: await deadLetters(),
  };
}

describe("kOps' wording in answers, logs and dead-letter records", () => {
  for (const [name, c] of Object.entries({ ...KOPS_CASES, ...OWN_CASES })) {
    it(name, async () => {
      const { answer, records } = await run(c);
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toMatchObject({ outcome: c.outcome, error: { lb: c.lb } });
      const error = answer.body.error as { message: string };
      if (typeof c.message === 'string') expect(error.message.startsWith(c.message), error.message).toBe(true);
      else expect(error.message).toMatch(c.message);

      const logged = logLines
        .map((l) => JSON.parse(l) as { message: string; error?: { message: string; lb?: unknown } })
        .find((l) => l.error?.message === error.message);
      expect(logged, logLines.join('\n')).toBeDefined();
      expect(logged?.message).toContain(error.message);
      expect(logged?.error?.lb).toEqual(c.lb);

      if (c.outcome === 'dead_lettered') {
        expect(records).toHaveLength(1);
        expect(records[0]?.error.message).toBe(error.message);
        expect(records[0]?.error.lb).toEqual(c.lb);
      } else {
        expect(records).toEqual([]);
      }
    });
  }
});

describe("kOps' wording in the CLI", () => {
  it('lbsync reconcile prints the message with the LB name, and --json keeps the id beside it', async () => {
    world.emulator.loadSeed(seedWith([backend({ pool: ['51.15.100.11'] })]));
    world.emulator.addFault({ operation: 'SetBackendServers', ...faultBodies.permissionsDenied(), count: 2 });
    const env = {
      SCW_ACCESS_KEY: FAKE_ACCESS_KEY,
      SCW_SECRET_KEY: FAKE_SECRET_KEY,
      SCW_API_URL: world.emulator.url,
      LBSYNC_TARGETS: JSON.stringify([{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }]),
    };
    const [text, json] = [await runBin(['reconcile'], env), await runBin(['reconcile', '--json'], env)];
    world.emulator.clearFaults();
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`[permissions_denied] updating back-end server IPs for load-balancer ${LB_NAME}: `);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      targets: [
        {
          error: {
            code: 'permissions_denied',
            message: expect.stringMatching(`^updating back-end server IPs for load-balancer ${LB_NAME}: `),
            lb: LB,
          },
        },
      ],
    });
  });
});
