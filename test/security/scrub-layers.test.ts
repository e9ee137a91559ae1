// Each place that lets text out scrubs on its own (test/security/secrets.test.ts checks them all together,
// where one layer would hide another's gap): the Scaleway adapter (error bodies and fetch failures, before
// the SDK builds a message), the reconcile handler (dead-letter records), the function shell (answers) and
// the CLI (everything it prints).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main';
import { wrapApiFailure } from '../../shared/adapters/api-failure';
import { kopsMessage } from '../../shared/errors/kops-messages';
import { createAuditTrailGateway } from '../../shared/adapters/audit-trail';
import { createScalewayGateway } from '../../shared/adapters/scaleway';
import { startLocalQueue } from '../../local/queue-server';
import { createEventQueue } from '../../shared/adapters/queue';
import { provisionQueues } from '../../cli/adapters/queue-provisioning';
import { runtimeConfigFromEnv } from '../../shared/platform/config';
import { functionShell } from '../../shared/platform/function-shell';
import { handleReconcileMessage } from '../../shared/handlers/reconcile-message';
import { createLogger } from '../../shared/platform/log';
import { jsonResponse } from '../../shared/platform/request-response';
import { createScrubber } from '../../shared/outbound/scrub';
import type { World } from '../support/world';
import { DEMO_CLUSTER, demoTarget, startWorld } from '../support/world';

const SECRET_KEY = '5ec2e75e-c2e7-4242-8242-5ec2e75ec2e7';
const ACCESS_KEY = 'SCWSECRETACCESSK4242';
const PASSWORD = 'URL-PASSWORD+4242/do-not-log';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.stop();
});

describe('each layer scrubs on its own', () => {
  it('the Scaleway adapter: an error body echoing the key, and a URL carrying credentials, never reach the error message', async () => {
    const gateway = createScalewayGateway({
      accessKey: ACCESS_KEY,
      secretKey: SECRET_KEY,
      defaultZone: 'fr-par-1',
      apiUrl: world.emulator.url.replace('http://', `http://user:${encodeURIComponent(PASSWORD)}@`),
    });
    for (const status of [400, 418, 500]) {
      world.emulator.addFault({
        operation: 'ListLbs',
        status,
        body: {
          message: `echo ${SECRET_KEY} ${Buffer.from(SECRET_KEY).toString('base64')} ${ACCESS_KEY} ${PASSWORD}`,
          type: status === 400 ? 'invalid_arguments' : 'internal',
        },
      });
      const error = await gateway.findLbsByName('fr-par-1', 'api.demo.k8s.local').catch((e: unknown) => e);
      const message = wrapApiFailure(kopsMessage.findLb('api.demo.k8s.local'), error, 'lb_not_found').message;
      expect(message, String(status)).toContain('[redacted]');
      for (const secret of [SECRET_KEY, Buffer.from(SECRET_KEY).toString('base64'), ACCESS_KEY, PASSWORD])
        expect(message, String(status)).not.toContain(secret);
    }
    // The credentials were stripped from the URL, so the request went out (undici refuses URLs with them).
    expect(world.emulator.calls().filter((c) => c.operation === 'ListLbs')).toHaveLength(3);
  });

  it('the Audit Trail adapter: the same client, an error body echoing the key never reaches the error message', async () => {
    const gateway = createAuditTrailGateway({
      accessKey: ACCESS_KEY,
      secretKey: SECRET_KEY,
      organizationId: '23b8c1e9-3924-46de-beb1-3b9046685257',
      apiUrl: world.emulator.url.replace('http://', `http://user:${encodeURIComponent(PASSWORD)}@`),
    });
    for (const status of [400, 500]) {
      world.emulator.addFault({
        operation: 'ListEvents',
        status,
        body: { message: `echo ${SECRET_KEY} ${Buffer.from(SECRET_KEY).toString('base64')} ${ACCESS_KEY} ${PASSWORD}`, type: 'internal' },
      });
      const error = await gateway
        .listEvents({
          region: 'fr-par',
          resourceType: 'instance_server',
          recordedAfter: new Date(Date.now() - 60_000),
          recordedBefore: new Date(),
        })
        .catch((e: unknown) => e);
      const message = wrapApiFailure('listing Audit Trail events', error, 'unknown_api_error').message;
      expect(message, String(status)).toContain('[redacted]');
      for (const secret of [SECRET_KEY, Buffer.from(SECRET_KEY).toString('base64'), ACCESS_KEY, PASSWORD])
        expect(message, String(status)).not.toContain(secret);
    }
    expect(world.emulator.calls().filter((c) => c.operation === 'ListEvents')).toHaveLength(2);
  });

  it('the reconcile handler: a dead-letter record is scrubbed before it is sent', async () => {
    const local = await startLocalQueue();
    try {
      const queue = createEventQueue(local.settings);
      const urls = await provisionQueues(queue, {
        reconcileQueueName: 'scrub-reconcile',
        deadLetterQueueName: 'scrub-dead-letter',
        functionTimeoutSeconds: 30,
      });
      const answer = await handleReconcileMessage(`{"not":"an event","key":"${SECRET_KEY}"}`, {
        targets: new Map([[DEMO_CLUSTER, demoTarget()]]),
        gateway: () => world.gateway(),
        queues: { client: () => queue, ...urls },
        runtime: runtimeConfigFromEnv({}),
        logger: createLogger({ service: 'test', level: 'silent' }),
        scrubber: createScrubber([SECRET_KEY]),
      });
      expect(JSON.parse(answer.body)).toMatchObject({ outcome: 'dead_lettered', reason: 'invalid_event' });
      const sent = await queue.receive(urls.deadLetterQueueUrl, { maxMessages: 10 });
      expect(sent).toHaveLength(1);
      expect(JSON.parse(sent[0]?.body as string)).toMatchObject({ rawBody: '{"not":"an event","key":"[redacted]"}' });
    } finally {
      await local.stop();
    }
  });

  it('the function shell: every answer is scrubbed with the process secrets', async () => {
    const saved = process.env.LBSYNC_SCW_SECRET_KEY;
    process.env.LBSYNC_SCW_SECRET_KEY = SECRET_KEY;
    try {
      const handle = functionShell(
        'scrub-test',
        async () => jsonResponse(200, { error: { message: `the API said ${SECRET_KEY}` } }),
        (m) => ({ m }),
      );
      const answer = await handle({ body: '' });
      expect(answer.body).toBe('{"error":{"message":"the API said [redacted]"}}');
    } finally {
      if (saved === undefined) delete process.env.LBSYNC_SCW_SECRET_KEY;
      else process.env.LBSYNC_SCW_SECRET_KEY = saved;
    }
  });

  it('the CLI: a configuration error echoing a secret (its "got" value) prints it scrubbed, text and --json', async () => {
    const env = {
      ...process.env,
      SCW_SECRET_KEY: SECRET_KEY,
      LBSYNC_TARGETS: JSON.stringify([{ kops: { cluster: SECRET_KEY.toUpperCase().replace(/-/g, '_'), zone: SECRET_KEY } }]),
    };
    for (const args of [
      ['targets', 'validate'],
      ['targets', 'validate', '--json'],
    ]) {
      let text = '';
      const write = (t: string) => {
        text += t;
      };
      const code = await main(args, {
        stdout: { write },
        stderr: { write },
        env,
      });
      expect(code).toBe(1);
      expect(text).toContain('kops.zone');
      expect(text).toContain('[redacted]');
      expect(text).not.toContain(SECRET_KEY);
    }
  });
});
