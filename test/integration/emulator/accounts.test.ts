// The emulator's IAM and Messaging routes against their recordings (test/fixtures/scaleway-api: iam-*, mnq-*),
// through the real SDKs (@scaleway/sdk-iam, @scaleway/sdk-mnq): each recorded call `lbsync bootstrap` makes is made
// again the same way, and its answer must have the recorded status and every key path of the recorded answer (values
// that are ids, times and secrets differ; the facts that matter are compared: secrets only in create answers, a
// policy's rules counted only after its create, a null permission left as it was, the 404 body).
import { createClient } from '@scaleway/sdk-client';
import { Iamv1alpha1 } from '@scaleway/sdk-iam';
import { Mnqv1beta1 } from '@scaleway/sdk-mnq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../../emulator';
import { startEmulator } from '../../../emulator';
import { ACCOUNT_CASSETTE, cassetteNames, jsonBody, readCassette } from '../../support/cassettes';
import { FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../../support/world';

const ORG = '105bdce1-64c0-48ab-899d-868455867ecf';
const PROJECT = 'ead8f5fa-ded2-46b5-990f-3f7ed9584170';
let emulator: EmulatorHandle;
let iam: Iamv1alpha1.API;
let sqs: Mnqv1beta1.SqsAPI;

beforeAll(async () => {
  emulator = await startEmulator();
  const client = createClient({
    accessKey: FAKE_ACCESS_KEY,
    secretKey: FAKE_SECRET_KEY,
    apiURL: emulator.url,
    defaultOrganizationId: ORG,
    defaultProjectId: PROJECT,
    defaultRegion: 'fr-par',
  });
  iam = new Iamv1alpha1.API(client);
  sqs = new Mnqv1beta1.SqsAPI(client);
});
afterAll(async () => emulator.stop());

/** Every key path of a JSON value ("rules.0.id"), arrays by their first element. */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.length === 0 ? [prefix] : keyPaths(value[0], `${prefix}.0`);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, inner]) => keyPaths(inner, prefix ? `${prefix}.${key}` : key));
  return [prefix];
}

/** The emulator's raw answer to a path, as the recording shows its keys (the SDK's own call made it exist). */
async function raw(path: string, init: RequestInit = {}) {
  const answer = await fetch(`${emulator.url}${path}`, {
    ...init,
    headers: { 'X-Auth-Token': FAKE_SECRET_KEY, 'Content-Type': 'application/json' },
  });
  return { status: answer.status, body: answer.status === 204 ? undefined : ((await answer.json()) as Record<string, unknown>) };
}

const recorded = (cassette: string, id: number) => {
  const found = readCassette(cassette).find((i) => i.id === id);
  if (!found) throw new Error(`${cassette}#${id} not found`);
  return { code: found.code, body: jsonBody(found.responseBody) as Record<string, unknown> };
};

function sameKeys(ours: unknown, theirs: unknown) {
  expect(new Set(keyPaths(ours))).toEqual(new Set(keyPaths(theirs)));
}

describe('IAM and Messaging routes, against the recordings', () => {
  it('finds the five recordings of the account APIs', () => {
    expect(cassetteNames().filter((n) => ACCOUNT_CASSETTE.test(n))).toHaveLength(5);
  });

  it('iam-application-basic: create (#0), get (#1), a missing one 404 with its body (#11)', async () => {
    const app = await iam.createApplication({
      name: 'tf_tests_app_basic',
      organizationId: ORG,
      description: 'a description',
      tags: ['tf_tests', 'tests'],
    });
    sameKeys((await raw(`/iam/v1alpha1/applications/${app.id}`)).body, recorded('iam-application-basic', 1).body);
    const missing = await raw('/iam/v1alpha1/applications/63310857-3247-4094-bc70-58fd1cd82491');
    const theirs = recorded('iam-application-basic', 11);
    expect(missing.status).toBe(theirs.code);
    expect({ ...missing.body, resource_id: 'x' }).toEqual({ ...theirs.body, resource_id: 'x' });
  });

  it('iam-policy-basic: a policy bound to an application counts no rule in its create answer (#2), its rules listed (#6) and set (#13)', async () => {
    const app = await iam.createApplication({ name: 'p', organizationId: ORG, description: '', tags: [] });
    const policy = await iam.createPolicy({
      name: 'tf-test',
      description: '',
      organizationId: ORG,
      applicationId: app.id,
      rules: [
        { permissionSetNames: ['AllProductsFullAccess'], organizationId: ORG, condition: '' },
        { permissionSetNames: ['ContainerRegistryReadOnly'], organizationId: ORG, condition: '' },
      ],
    });
    expect(policy.nbRules).toBe(0);
    expect((await iam.getPolicy({ policyId: policy.id })).nbRules).toBe(2);
    const listed = await raw(`/iam/v1alpha1/rules?policy_id=${policy.id}`);
    sameKeys(listed.body, recorded('iam-policy-basic', 6).body);
    expect(((listed.body?.rules ?? []) as { permission_sets_scope_type: string }[])[0]?.permission_sets_scope_type).toBe('projects');
    const set = await raw('/iam/v1alpha1/rules', {
      method: 'PUT',
      body: JSON.stringify({
        policy_id: policy.id,
        rules: [{ permission_set_names: ['AllProductsFullAccess'], condition: '', organization_id: ORG }],
      }),
    });
    sameKeys(set.body, recorded('iam-policy-basic', 13).body);
    // #5 is a policy of no principal with tags; this one is bound to an application (as #2 shows), with none.
    const { no_principal: _none, tags: _tags, ...theirs } = recorded('iam-policy-basic', 5).body;
    sameKeys((await raw(`/iam/v1alpha1/policies/${policy.id}`)).body, { ...theirs, application_id: 'x', tags: [] });
  });

  it('iam-api-key-with-application: the secret in the create answer only (#2, #3); the default project is the organization', async () => {
    const app = await iam.createApplication({ name: 'k', organizationId: ORG, description: '', tags: [] });
    const key = await iam.createAPIKey({ applicationId: app.id, description: 'tf_tests_with_application' });
    expect(key.secretKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(key.defaultProjectId).toBe(ORG);
    const read = await raw(`/iam/v1alpha1/api-keys/${key.accessKey}`);
    sameKeys(read.body, recorded('iam-api-key-with-application', 3).body);
    expect(read.body?.secret_key).toBeNull();
    const { resource_id: _id, ...missing } = recorded('iam-api-key-with-application', 17).body;
    expect((await raw('/iam/v1alpha1/api-keys/SCWXXXXXXXXXXXXXXXXX')).body).toEqual({ ...missing, resource_id: 'SCWXXXXXXXXXXXXXXXXX' });
  });

  it('mnq-sqs-credentials-basic: activation (#2), sqs-info (#5), credentials with their secret (#6), a null permission left as it was (#25)', async () => {
    const activated = await raw('/mnq/v1beta1/regions/fr-par/activate-sqs', {
      method: 'POST',
      body: JSON.stringify({ project_id: PROJECT }),
    });
    sameKeys(activated.body, recorded('mnq-sqs-credentials-basic', 2).body);
    expect((await sqs.getSqsInfo({ projectId: PROJECT })).status).toBe('enabled');
    sameKeys((await raw(`/mnq/v1beta1/regions/fr-par/sqs-info?project_id=${PROJECT}`)).body, recorded('mnq-sqs-credentials-basic', 5).body);
    const made = await sqs.createSqsCredentials({
      projectId: PROJECT,
      name: 'c',
      permissions: { canPublish: false, canReceive: false, canManage: false },
    });
    sameKeys((await raw(`/mnq/v1beta1/regions/fr-par/sqs-credentials/${made.id}`)).body, recorded('mnq-sqs-credentials-basic', 9).body);
    expect(made.secretKey).toBeTruthy();
    const patched = await raw(`/mnq/v1beta1/regions/fr-par/sqs-credentials/${made.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ permissions: { can_publish: true, can_receive: null, can_manage: true } }),
    });
    expect(patched.body?.permissions).toEqual(recorded('mnq-sqs-credentials-basic', 25).body.permissions);
    const listed = await sqs.listSqsCredentials({ projectId: PROJECT });
    expect(listed.sqsCredentials.map((c) => c.secretKey)).toEqual([undefined]);
  });

  it('mnq-sqs-queue-dead-letter-queue: credentials made right after the activation (#2-#4) with manage rights, as bootstrap makes them', async () => {
    const project = '462aff91-29b0-4747-b96f-74326bb940fa';
    await sqs.activateSqs({ projectId: project });
    const { body } = recorded('mnq-sqs-queue-dead-letter-queue', 4);
    const made = await sqs.createSqsCredentials({
      projectId: project,
      name: String(body.name),
      permissions: { canManage: true, canPublish: true, canReceive: true },
    });
    expect(made.permissions).toEqual({ canManage: true, canPublish: true, canReceive: true });
    sameKeys((await raw(`/mnq/v1beta1/regions/fr-par/sqs-credentials/${made.id}`)).body, body);
  });
});
