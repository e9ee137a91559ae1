// `lbsync doctor --record FILE` as an operator runs it (the real bin, against the emulator): every request of the
// run and its answer land in a go-vcr cassette (the emulator's call log is the evidence), with no key anywhere and,
// unless --keep-ids, no id, name, tag or address of the world it read; the queues' calls are not in it. (That the
// cassette replays against the emulator is shown by test/integration/emulator/fixtures.test.ts.)
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import { createEventQueue } from '../../shared/adapters/queue';
import { provisionQueues } from '../../cli/adapters/queue-provisioning';
import { runBin } from './support';
import { CONTROL_PLANE_IPV6, OTHER_LB_ID, recordDoctorRun, recordingSeed, startEchoingApi } from '../support/doctor-recording';
import { reveals } from '../support/secret-oracle';
import { DEMO_CLUSTER, DEMO_LB_ID, FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../support/world';

interface Cassette {
  version: number;
  interactions: { request: { method: string; url: string; headers: Record<string, string[]> }; response: { code: number } }[];
}

/** Every id, name, tag and address the seeded world holds: none may be in a cassette recorded without --keep-ids. */
function realValues(): string[] {
  const seed = recordingSeed();
  const values = new Set<string>([DEMO_LB_ID, OTHER_LB_ID, CONTROL_PLANE_IPV6, 'demo', 'control-plane', 'ControlPlane']);
  for (const id of [seed.projectId, seed.organizationId]) if (id) values.add(id);
  for (const lb of seed.lbs ?? []) for (const value of [lb.id, lb.name, lb.ipAddress, ...(lb.tags ?? [])]) if (value) values.add(value);
  for (const server of seed.servers ?? []) {
    for (const value of [server.id, server.name, ...server.tags, ...(server.publicIps ?? [])]) if (value) values.add(value);
    for (const nic of server.privateNics ?? [])
      for (const value of [nic.id, nic.privateNetworkId, nic.macAddress, ...nic.ipamAddresses.map((a) => a.split('/')[0])])
        if (value) values.add(value);
  }
  // An address also travels dashed, in the host names made from it (the LB's reverse DNS).
  for (const value of [...values]) if (/^\d+(\.\d+){3}$/.test(value)) values.add(value.replaceAll('.', '-'));
  return [...values];
}

/** Whether the text reveals either key in any form (test/support/secret-oracle.ts). */
const revealsKey = (text: string) => [FAKE_SECRET_KEY, FAKE_ACCESS_KEY].some((key) => reveals(text, key));

describe('lbsync doctor --record', () => {
  it('writes every request of the run and its answer as a go-vcr cassette: no secret, no real id, name, tag or address', async () => {
    const { run, text, file, calls } = await recordDoctorRun();
    expect(run.code, run.stderr).toBe(0);
    const cassette = parse(text) as Cassette;
    expect(cassette.version).toBe(2);
    expect(calls.length).toBeGreaterThanOrEqual(7);
    expect(cassette.interactions).toHaveLength(calls.length);
    expect(cassette.interactions.map((i) => i.response.code)).toEqual(calls.map((c) => c.status));
    expect(run.stderr).toContain(
      `recorded ${calls.length} requests to the Scaleway API in ${file} (secrets scrubbed, ids, names, tags and addresses replaced; see docs/emulator.md to send it in)`,
    );
    expect(revealsKey(text)).toBe(false);
    expect(text.toLowerCase()).not.toContain('x-auth-token');
    const leaked = realValues().filter((value) => text.includes(value));
    expect(leaked).toEqual([]);
  });

  it('--keep-ids keeps the ids, names, tags and addresses; the secrets are scrubbed all the same (-o json names the file)', async () => {
    const { run, text, file, calls } = await recordDoctorRun(['--no-queue', '--keep-ids', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).recording).toEqual({ file, interactions: calls.length });
    for (const value of [DEMO_LB_ID, OTHER_LB_ID, `api.${DEMO_CLUSTER}`, '51.15.100.11', CONTROL_PLANE_IPV6]) expect(text).toContain(value);
    expect(revealsKey(text)).toBe(false);
  });

  it('a failing run is recorded too: the 403s the key got are in the cassette, the key is not', async () => {
    const { run, text, calls } = await recordDoctorRun(['--no-queue'], {
      emulator: { denyApis: [{ api: 'ipam', secretKey: FAKE_SECRET_KEY }] },
    });
    expect(run.code).toBe(1);
    const codes = (parse(text) as Cassette).interactions.map((i) => i.response.code);
    expect(codes).toEqual(calls.map((c) => c.status));
    expect(codes).toContain(403);
    expect(revealsKey(text)).toBe(false);
  });

  it('--keep-ids without --record, and --record into a folder that does not exist, are usage errors before any call', async () => {
    const alone = await runBin(['doctor', '--no-queue', '--keep-ids'], {});
    expect(alone.code).toBe(64);
    expect(alone.stderr).toContain('--keep-ids only goes with --record <file>');
    const missing = join('/nonexistent-lbsync', 'doctor.cassette.yaml');
    const nowhere = await recordDoctorRun(['--no-queue'], { file: missing });
    expect(nowhere.run.code).toBe(64);
    expect(nowhere.run.stderr).toContain('--record: the folder /nonexistent-lbsync does not exist');
    expect(nowhere.calls).toEqual([]);
    expect(existsSync(missing)).toBe(false);
  });

  it('an API that echoes the keys (JSON \\u escapes, another case, inside a longer base64 string): no form of them in the cassette, with or without --keep-ids', async () => {
    // A token of the run's environment the API was never sent: only the run's own credentials know it.
    const token = 'inject-token-of-this-run-0001';
    const escaped = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const inBase64 = ['', 'x', 'xy'].map((pad) =>
      Buffer.from(`${pad}key=${FAKE_ACCESS_KEY};secret=${FAKE_SECRET_KEY}.`).toString('base64'),
    );
    const echo = JSON.stringify([FAKE_ACCESS_KEY.toLowerCase(), FAKE_SECRET_KEY.toUpperCase(), ...inBase64, token.toUpperCase()]).replace(
      /^\[/,
      `["${escaped(FAKE_ACCESS_KEY)}","${escaped(FAKE_SECRET_KEY)}",`,
    );
    for (const keepIds of [[], ['--keep-ids']]) {
      const { run, text } = await recordDoctorRun(['--no-queue', ...keepIds], {
        env: { INJECT_TOKEN: token },
        inFront: (url) => startEchoingApi(url, echo),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(text).toContain('"echo":['); // the echoing answers are in the recording
      for (const secret of [FAKE_ACCESS_KEY, FAKE_SECRET_KEY, token]) expect(reveals(text, secret), `${keepIds} ${secret}`).toBe(false);
    }
  });

  it('--record at a link (to another file, or dangling) is refused before any call; an older file is replaced by one of mode 0600', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbsync-record-'));
    const precious = join(dir, 'precious.txt');
    writeFileSync(precious, 'keep me');
    for (const [link, to] of [
      [join(dir, 'to-file.yaml'), precious],
      [join(dir, 'dangling.yaml'), join(dir, 'created-through-the-link.yaml')],
    ] as const) {
      symlinkSync(to, link);
      const refused = await recordDoctorRun(['--no-queue'], { file: link });
      expect(refused.run.code).toBe(64);
      expect(refused.run.stderr).toContain(`--record: ${link} is a symbolic link`);
      expect(refused.calls).toEqual([]);
    }
    expect(readFileSync(precious, 'utf8')).toBe('keep me');
    expect(existsSync(join(dir, 'created-through-the-link.yaml'))).toBe(false);

    const older = join(dir, 'doctor.cassette.yaml');
    writeFileSync(older, 'older');
    chmodSync(older, 0o666);
    const { run, text } = await recordDoctorRun(['--no-queue'], { file: older });
    expect(run.code, run.stderr).toBe(0);
    expect(text).toMatch(/^---\nversion: 2\n/);
    expect(statSync(older).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['dangling.yaml', 'doctor.cassette.yaml', 'precious.txt', 'to-file.yaml']);
  });

  describe('with the queue checks', () => {
    let localQueue: LocalQueue;
    let queueEnv: Record<string, string>;
    beforeAll(async () => {
      localQueue = await startLocalQueue();
      const queues = await provisionQueues(createEventQueue(localQueue.settings), {
        reconcileQueueName: 'record-reconcile',
        deadLetterQueueName: 'record-dead-letter',
        functionTimeoutSeconds: 60,
      });
      queueEnv = {
        SQS_ENDPOINT: localQueue.endpoint,
        SQS_REGION: localQueue.region,
        SQS_ACCESS_KEY_ID: localQueue.settings.accessKeyId,
        SQS_SECRET_ACCESS_KEY: localQueue.settings.secretAccessKey,
        RECONCILE_QUEUE_URL: queues.reconcileQueueUrl,
        DEAD_LETTER_QUEUE_URL: queues.deadLetterQueueUrl,
      };
    });
    afterAll(async () => {
      await localQueue?.stop();
    });

    it('records only the Scaleway API: the queue checks run, their calls are not in the cassette', async () => {
      const { run, text, calls } = await recordDoctorRun(['-o', 'json'], { env: queueEnv });
      expect(run.code, run.stderr).toBe(0);
      const checks = (JSON.parse(run.stdout) as { checks: { name: string; status: string }[] }).checks;
      expect(checks.filter((c) => c.name.startsWith('queue:')).map((c) => c.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
      const hosts = new Set((parse(text) as Cassette).interactions.map((i) => new URL(i.request.url).host));
      expect(hosts.size).toBe(1);
      expect([...hosts][0]).not.toBe(new URL(localQueue.endpoint).host);
      expect((parse(text) as Cassette).interactions).toHaveLength(calls.length);
      expect(text).not.toContain(localQueue.settings.secretAccessKey);
    });
  });
});
