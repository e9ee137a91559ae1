// The function bundles as deployed (dist/, built by the global setup), each in a node process of its own
// with the deployed node options: the reconcile bundle against the emulator and the local queue, and the
// code-cache loader's fallbacks when the cache cannot be used.
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../../emulator';
import { faultBodies, startEmulator } from '../../../emulator';
import { startLocalQueue, type LocalQueue } from '../../../local/queue-server';
import { createEventQueue } from '../../../shared/adapters/queue';
import { provisionQueues } from '../../../cli/adapters/queue-provisioning';
// @ts-expect-error: plain .mjs module without types
import { FUNCTION_NODE_OPTIONS } from '../../../scripts/function-sizing.mjs';
import { type BundleRun as ChildResult, runBundle } from '../../support/run-bundle';
import { DEMO_CLUSTER, DEMO_CONTROL_PLANE_IPS, DEMO_CP0_ID, demoSeed, FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../../support/world';

const ROOT = new URL('../../../', import.meta.url).pathname;
const DEPLOYED_FLAGS = (FUNCTION_NODE_OPTIONS as string).split(' ');

const post = (body: unknown, headers: Record<string, string> = {}) => ({
  httpMethod: 'POST',
  path: '/',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
  isBase64Encoded: false,
});
const reconcileEvent = (id: string) =>
  post({ version: 1, id, source: 'manual', target: DEMO_CLUSTER, occurredAt: new Date().toISOString() });

describe('reconcile bundle, as deployed, against the emulator and the local queue', () => {
  let emulator: EmulatorHandle;
  let queue: LocalQueue;
  let env: Record<string, string>;
  let reconcileQueueUrl: string;

  beforeAll(async () => {
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    emulator = await startEmulator({ seed: demoSeed(), instancePendingMs: 20 });
    queue = await startLocalQueue();
    const queues = await provisionQueues(createEventQueue(queue.settings), {
      reconcileQueueName: 'bundle-reconcile',
      deadLetterQueueName: 'bundle-dead-letter',
      functionTimeoutSeconds: 30,
    });
    reconcileQueueUrl = queues.reconcileQueueUrl;
    env = {
      SCW_ACCESS_KEY: FAKE_ACCESS_KEY,
      SCW_SECRET_KEY: FAKE_SECRET_KEY,
      SCW_DEFAULT_ZONE: 'fr-par-1',
      SCW_API_URL: emulator.url,
      SQS_ENDPOINT: queue.endpoint,
      SQS_REGION: queue.region,
      SQS_ACCESS_KEY_ID: queue.settings.accessKeyId,
      SQS_SECRET_ACCESS_KEY: queue.settings.secretAccessKey,
      RECONCILE_QUEUE_URL: queues.reconcileQueueUrl,
      DEAD_LETTER_QUEUE_URL: queues.deadLetterQueueUrl,
      LBSYNC_TARGETS: JSON.stringify([{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }]),
      LBSYNC_WAIT_BUDGET_MS: '5000',
    };
  });
  afterAll(async () => {
    await queue?.stop();
    await emulator?.stop();
  });

  it('creates, then no-ops, then writes one replaced server, then re-enqueues on a 429; the fetch globals (undici) are never touched', async () => {
    emulator.resetCalls();
    const result = await runBundle(
      join(ROOT, 'dist/reconcile/handler.js'),
      [reconcileEvent('evt-1'), reconcileEvent('evt-2'), reconcileEvent('evt-3'), reconcileEvent('evt-4')],
      env,
      DEPLOYED_FLAGS,
      {
        between: (index) => {
          if (index === 1)
            emulator.replaceServer(DEMO_CP0_ID, {
              name: 'control-plane-new',
              zone: 'fr-par-1',
              state: 'running',
              tags: [`noprefix=kops.k8s.io/cluster=${DEMO_CLUSTER}`, 'noprefix=kops.k8s.io/role=ControlPlane'],
              publicIps: ['51.15.100.99'],
            });
          if (index === 2) emulator.addFault({ operation: 'ListBackends', ...faultBodies.tooManyRequests(2) });
        },
      },
    );
    expect(result.codeCache).toBe('accepted');
    expect(result.answers.map((a) => [a.status, a.body.outcome])).toEqual([
      [200, 'applied'],
      [200, 'noop'],
      [200, 'applied'],
      [200, 'retry_scheduled'],
    ]);
    expect(result.answers[1]?.body.apiCalls).toEqual({ reads: 3, writes: 0 });
    expect(result.answers[2]?.body.actions).toEqual(['SetBackendServers']);
    expect(result.answers[3]?.body.error).toMatchObject({ code: 'rate_limited' });
    expect(result.touched).toEqual([]);
    const pool = (emulator.dumpState() as { lbs: { backends: { pool: string[] }[] }[] }).lbs[0]?.backends[0]?.pool;
    expect(pool?.sort()).toEqual(['51.15.100.99', ...DEMO_CONTROL_PLANE_IPS.slice(1)].sort());
    const waiting = await createEventQueue(queue.settings).receive(reconcileQueueUrl, { maxMessages: 10 });
    expect(waiting.map((m) => JSON.parse(m.body))).toEqual([expect.objectContaining({ id: 'evt-4', attempt: 1 })]);
  });
});

describe('what the function bundles leave out', () => {
  it.each(['reconcile', 'inject', 'sweep'])(
    '%s: no AWS default credential chain (static SQS keys only), no pino worker transports',
    (name) => {
      const bundle = readFileSync(join(ROOT, 'dist', name, 'bundle.js'), 'utf8');
      for (const chainMarker of ['AWS_CONTAINER_CREDENTIALS_FULL_URI', 'credential_process', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'sso_session'])
        expect(bundle).not.toContain(chainMarker);
      expect(bundle).toContain('the bundles carry no AWS default credential chain');
      expect(bundle).toContain('pino transports are not bundled');
    },
  );
});

describe('code-cache loader', () => {
  let dir: string;
  const token = 'inject-token-0123456789abcdef';
  const unauthorised = post({ target: DEMO_CLUSTER }, { authorization: 'Bearer wrong-token-0123456789abcdef' });
  const env = {
    INJECT_TOKEN: token,
    LBSYNC_TARGETS: JSON.stringify([{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }]),
    SQS_ACCESS_KEY_ID: 'k',
    SQS_SECRET_ACCESS_KEY: 's',
    RECONCILE_QUEUE_URL: 'http://127.0.0.1:9/q/r',
    DEAD_LETTER_QUEUE_URL: 'http://127.0.0.1:9/q/d',
  };
  /** A copy of dist/inject to break in one way. */
  const copy = (name: string) => {
    const target = join(dir, name);
    cpSync(join(ROOT, 'dist/inject'), target, { recursive: true });
    return target;
  };
  const answers401 = (result: ChildResult) => expect(result.answers.map((a) => a.status)).toEqual([401]);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lbsync-code-cache-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is used under the node options it was made with', async () => {
    const result = await runBundle(join(copy('as-built'), 'handler.js'), [unauthorised], env, DEPLOYED_FLAGS);
    expect(result.codeCache).toBe('accepted');
    answers401(result);
  });

  it('is turned down by V8 under other node options, and the bundle loads from source', async () => {
    const result = await runBundle(join(copy('other-flags'), 'handler.js'), [unauthorised], env, []);
    expect(result.codeCache).toBe('rejected');
    answers401(result);
  });

  it('made by another V8 (another Node version, as when the runtime differs from the build): not even read', async () => {
    const built = copy('other-v8');
    const manifest = JSON.parse(readFileSync(join(built, 'bundle.cache.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(built, 'bundle.cache.json'), JSON.stringify({ ...manifest, node: 'v22.0.0', v8: '12.4.254.21-node.0' }));
    const result = await runBundle(join(built, 'handler.js'), [unauthorised], env, DEPLOYED_FLAGS);
    expect(result.codeCache).toBe('other-v8');
    answers401(result);
  });

  it('corrupted: turned down by V8, the bundle loads from source', async () => {
    const built = copy('corrupted');
    const cache = readFileSync(join(built, 'bundle.cache'));
    cache.fill(0xff, 0, 64);
    writeFileSync(join(built, 'bundle.cache'), cache);
    const result = await runBundle(join(built, 'handler.js'), [unauthorised], env, DEPLOYED_FLAGS);
    expect(result.codeCache).toBe('rejected');
    answers401(result);
  });

  it('missing (a build that could not make it): the bundle loads as a plain require', async () => {
    const built = copy('missing');
    unlinkSync(join(built, 'bundle.cache'));
    unlinkSync(join(built, 'bundle.cache.json'));
    const result = await runBundle(join(built, 'handler.js'), [unauthorised], env, DEPLOYED_FLAGS);
    expect(result.codeCache).toBe('missing');
    answers401(result);
  });
});

describe('what makes the bundles stale', () => {
  it('every folder the CLI bundle is made of is a source `--if-stale` watches; an unlisted one is named', async () => {
    // @ts-expect-error: plain .mjs build script without types
    const { cliBundleOptions, unlistedSources } = (await import('../../../scripts/build.mjs')) as {
      cliBundleOptions: (outfile: string) => Record<string, unknown>;
      unlistedSources: (metafile: { inputs: Record<string, unknown> }) => string[];
    };
    const { build } = await import('esbuild');
    const dir = mkdtempSync(join(tmpdir(), 'lbsync-meta-'));
    try {
      const { metafile } = await build({ ...cliBundleOptions(join(dir, 'bundle.js')), write: false, metafile: true });
      expect(Object.keys(metafile.inputs).some((input) => input.includes('cockpit/'))).toBe(true);
      expect(unlistedSources(metafile)).toEqual([]);
      expect(
        unlistedSources({
          inputs: { ...metafile.inputs, 'local/queue-server.ts': {}, 'ns:virtual': {}, '../../linked/node_modules/zod/index.js': {} },
        }),
      ).toEqual(['local']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
