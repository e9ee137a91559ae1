// `lbsync bootstrap` through the real bin against the emulator's IAM and Messaging routes (the real SDKs) and the
// local SQS-protocol queue (the endpoint the emulated sqs-info answers). Judged by the emulator's accounts and call
// log, the queues' attributes and the file it writes: least-privilege principals, one key each, printed nowhere;
// Queues credentials with their permissions; the two queues; a second run writes nothing; --dry-run writes nothing and
// lists every call; a policy someone narrowed is not widened again without --yes.
import { mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../emulator';
import { startEmulator } from '../../emulator';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import { createEventQueue } from '../../shared/adapters/queue';
import { FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../support/world';
import { runBin } from './support';

const ORG = '11111111-0000-4000-8000-000000000001';
const PROJECT = '22222222-0000-4000-8000-000000000002';
let emulator: EmulatorHandle;
let local: LocalQueue;
let envFile: string;

beforeAll(async () => {
  local = await startLocalQueue();
  emulator = await startEmulator({ sqsEndpointUrl: local.endpoint });
  envFile = join(mkdtempSync(join(tmpdir(), 'lbsync-bootstrap-')), 'deploy.env');
});
afterAll(async () => {
  await emulator?.stop();
  await local?.stop();
});

const env = () => ({
  SCW_ACCESS_KEY: FAKE_ACCESS_KEY,
  SCW_SECRET_KEY: FAKE_SECRET_KEY,
  SCW_API_URL: emulator.url,
  SCW_DEFAULT_ORGANIZATION_ID: ORG,
  SCW_DEFAULT_PROJECT_ID: PROJECT,
  LBSYNC_TARGETS: '[{"kops":{"cluster":"prod.k8s.local","zone":"fr-par-1"}}]',
});
const bootstrap = (args: string[]) => runBin(['bootstrap', '--deploy-env', envFile, ...args], env(), 60_000);
const writes = () => emulator.calls().filter((c) => c.write);
const fileValues = () =>
  new Map([...readFileSync(envFile, 'utf8').matchAll(/^export ([A-Z0-9_]+)='([^']*)'$/gm)].map((m) => [m[1] as string, m[2] as string]));
const policyOf = (name: string) => {
  const app = [...emulator.accounts.applications.values()].find((a) => a.name === name);
  return [...emulator.accounts.policies.values()].find((p) => p.applicationId === app?.id);
};

describe('lbsync bootstrap', () => {
  it('--dry-run on an empty account: reads only, lists every call it would make, writes nothing (no file either)', async () => {
    const run = await bootstrap(['--dry-run', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout) as { reads: string[]; writes: { call: string; done: boolean }[] };
    expect(writes()).toEqual([]);
    expect(answer.reads).toContain('GET /iam/v1alpha1/applications');
    expect(answer.writes.every((w) => !w.done)).toBe(true);
    expect(answer.writes.filter((w) => w.call === 'POST /iam/v1alpha1/applications')).toHaveLength(6);
    expect(answer.writes.map((w) => w.call)).toContain('POST /mnq/v1beta1/regions/{region}/activate-sqs');
    expect(answer.writes.filter((w) => w.call.endsWith('/sqs-credentials'))).toHaveLength(3);
    expect(() => statSync(envFile)).toThrow();
  }, 60_000);

  it('makes every principal with least privilege, its key, Queues and its credentials, the queues; the secrets only in the 0600 file', async () => {
    const run = await bootstrap([]);
    expect(run.code, run.stderr).toBe(0);
    const { accounts } = emulator;
    expect([...accounts.applications.values()].map((a) => a.name).sort()).toEqual([
      'lbsync-deployer',
      'lbsync-functions',
      'lbsync-injector',
      'lbsync-observability',
      'lbsync-reader',
      'lbsync-watch',
    ]);
    expect(policyOf('lbsync-functions')?.rules).toEqual([
      expect.objectContaining({
        permissionSetNames: ['LoadBalancersFullAccess', 'InstancesReadOnly', 'IPAMReadOnly'],
        projectIds: [PROJECT],
      }),
    ]);
    expect(policyOf('lbsync-watch')?.rules).toEqual([
      expect.objectContaining({ permissionSetNames: ['AuditTrailReadOnly'], organizationId: ORG }),
    ]);
    expect(policyOf('lbsync-observability')?.rules[0]?.permissionSetNames).toEqual(['ObservabilityFullAccess']);
    expect([...accounts.apiKeys.values()]).toHaveLength(6);
    expect(accounts.sqsEnabled.has(`${PROJECT}/fr-par`)).toBe(true);
    const creds = [...accounts.sqsCredentials.values()];
    expect(Object.fromEntries(creds.map((c) => [c.name, c.permissions]))).toEqual({
      'lbsync-provision': { can_publish: false, can_receive: false, can_manage: true },
      'lbsync-functions': { can_publish: true, can_receive: false, can_manage: false },
      'lbsync-operator': { can_publish: true, can_receive: true, can_manage: false },
    });

    const values = fileValues();
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const functionsKey = [...accounts.apiKeys.values()].find((k) => k.accessKey === values.get('LBSYNC_SCW_ACCESS_KEY'));
    expect(values.get('LBSYNC_SCW_SECRET_KEY')).toBe(functionsKey?.secretKey);
    expect(values.get('LBSYNC_WATCH_OWN_PRINCIPAL_IDS')).toBe(functionsKey?.applicationId);
    expect(values.get('SCW_SECRET_KEY')).toBe(
      [...accounts.apiKeys.values()].find((k) => k.accessKey === values.get('LBSYNC_DEPLOYER_ACCESS_KEY'))?.secretKey,
    );
    expect(values.get('SQS_ACCESS_KEY_ID')).toBe(creds.find((c) => c.name === 'lbsync-functions')?.accessKey);
    expect(values.get('LBSYNC_MODE')).toBe('shadow');
    expect(values.get('INJECT_TOKEN')).toMatch(/^[0-9a-f]{64}$/);
    expect(values.get('LBSYNC_TARGETS')).toBe(env().LBSYNC_TARGETS);
    // The queues, as the functions and the doctor expect them.
    const queue = createEventQueue({ ...local.settings, endpoint: local.endpoint });
    const attributes = await queue.attributes(values.get('RECONCILE_QUEUE_URL') as string);
    expect(JSON.parse(attributes.RedrivePolicy ?? '{}')).toMatchObject({ maxReceiveCount: 4 });
    expect(attributes.VisibilityTimeout).toBe('90');
    // No secret printed: not the keys', the credentials', nor the token.
    for (const secret of [...accounts.apiKeys.values()]
      .map((k) => k.secretKey)
      .concat(
        creds.map((c) => c.secretKey),
        values.get('INJECT_TOKEN') as string,
      ))
      expect(run.stdout + run.stderr).not.toContain(secret);
    expect(run.stderr).toContain(`is in ${envFile} (mode 0600)`);
  }, 60_000);

  it('a second run writes nothing and keeps the file; a narrowed policy is not widened again without --yes', async () => {
    const before = readFileSync(envFile, 'utf8');
    emulator.resetCalls();
    const again = await bootstrap([]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('nothing to write');
    expect(writes()).toEqual([]);
    expect(readFileSync(envFile, 'utf8')).toBe(before);

    const policy = policyOf('lbsync-functions');
    emulator.accounts.setRules(policy?.id as string, [{ permissionSetNames: ['LoadBalancersReadOnly'], projectIds: [PROJECT] }]);
    emulator.resetCalls();
    const refused = await bootstrap([]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/refused lbsync-functions: its policy lbsync-functions would gain .*LoadBalancersFullAccess on project/);
    expect(writes()).toEqual([]);
    const widened = await bootstrap(['--yes']);
    expect(widened.code, widened.stderr).toBe(0);
    expect(policyOf('lbsync-functions')?.rules[0]?.permissionSetNames).toEqual([
      'LoadBalancersFullAccess',
      'InstancesReadOnly',
      'IPAMReadOnly',
    ]);
    expect(writes().map((c) => c.operation)).toEqual(['SetRules']);
  }, 90_000);

  it('a listing whose total lies (3000 applications announced, one answered) costs one request, not three thousand', async () => {
    const before = emulator.calls().filter((c) => c.operation === 'ListApplications').length;
    emulator.addFault({
      operation: 'ListApplications',
      status: 200,
      body: {
        applications: [{ id: '33333333-0000-4000-8000-000000000003', name: 'someone-else', organization_id: ORG }],
        total_count: 3000,
      },
      count: -1,
    });
    try {
      const run = await bootstrap(['--dry-run', '-o', 'json']);
      expect(run.code, run.stderr).toBe(0);
    } finally {
      emulator.clearFaults();
    }
    // One listing per application name bootstrap looks for (six principals), each a single page.
    expect(emulator.calls().filter((c) => c.operation === 'ListApplications').length - before).toBe(6);
  });

  it('a --deploy-env that is a symbolic link is refused before any call: the keys shown once are never made to be lost', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lbsync-bootstrap-link-'));
    const victim = join(folder, 'authorized_keys');
    writeFileSync(victim, 'keep me\n', { mode: 0o644 });
    const link = join(folder, 'deploy.env');
    symlinkSync(victim, link);
    const dangling = join(folder, 'dangling.env');
    symlinkSync(join(folder, 'nowhere'), dangling);
    for (const path of [link, dangling]) {
      const calls = emulator.calls().length;
      const run = await runBin(['bootstrap', '--deploy-env', path], env(), 60_000);
      expect(run.code).toBe(64);
      expect(run.stderr).toContain('is a symbolic link');
      expect(emulator.calls().length).toBe(calls);
    }
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(() => statSync(join(folder, 'nowhere'))).toThrow();
  });
});
