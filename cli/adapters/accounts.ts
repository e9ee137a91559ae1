// The account APIs `lbsync bootstrap` works on, over the official SDKs: IAM (@scaleway/sdk-iam: applications,
// policies and their rules, API keys) and Messaging (@scaleway/sdk-mnq: Queues activation and credentials). Every
// request is told to `onCall` (method and path) before it is sent, so the command can show each call it made; every
// failure is an LbSyncError naming the step (callGateway). Only the CLI uses it.
import type { Region } from '@scaleway/sdk-client';
import { Iamv1alpha1 } from '@scaleway/sdk-iam';
import { Mnqv1beta1 } from '@scaleway/sdk-mnq';
import type { ObservedRule, QueuePermissions } from '../bootstrap-plan';
import { LBSYNC_USER_AGENT } from '../../shared/outbound/user-agent';
import { readPages } from '../../shared/adapters/pages';
import { callGateway } from '../../shared/adapters/api-failure';
import { createSdkClient } from '../../shared/adapters/sdk-client';

export interface AccountsSettings {
  accessKey: string;
  secretKey: string;
  organizationId: string;
  projectId: string;
  region: string;
  apiUrl?: string;
  requestTimeoutMs?: number;
  /** Each request about to be sent: `GET /iam/v1alpha1/applications`. */
  onCall?: (method: string, path: string) => void;
}

export interface Named {
  id: string;
  name: string;
}

export interface MadeKey {
  accessKey: string;
  secretKey: string;
}

export interface QueueCredential extends Named {
  accessKey: string;
  permissions: QueuePermissions;
}

export interface AccountsGateway {
  /** The organization's applications named exactly so (the API's name filter is checked again here). */
  applications(name: string): Promise<Named[]>;
  createApplication(name: string, description: string): Promise<Named>;
  /** The policies bound to this application. */
  policiesOf(applicationId: string): Promise<Named[]>;
  rulesOf(policyId: string): Promise<ObservedRule[]>;
  createPolicy(name: string, applicationId: string, rules: readonly ObservedRule[]): Promise<Named>;
  setRules(policyId: string, rules: readonly ObservedRule[]): Promise<void>;
  /** The access keys of the application's API keys (their secrets are never shown again). */
  apiKeysOf(applicationId: string): Promise<string[]>;
  createApiKey(applicationId: string, description: string): Promise<MadeKey>;
  /** Whether Queues is enabled on the project, and its SQS endpoint. */
  queuesInfo(): Promise<{ enabled: boolean; endpoint: string }>;
  activateQueues(): Promise<{ endpoint: string }>;
  queueCredentials(): Promise<QueueCredential[]>;
  createQueueCredential(name: string, permissions: QueuePermissions): Promise<QueueCredential & { secretKey: string }>;
  setQueuePermissions(id: string, permissions: QueuePermissions): Promise<void>;
}

const sdkRule = (rule: ObservedRule): Iamv1alpha1.RuleSpecs => ({
  permissionSetNames: [...rule.permissionSets],
  condition: '',
  ...(rule.projectIds && rule.projectIds.length > 0
    ? { projectIds: [...rule.projectIds] }
    : { organizationId: rule.organizationId as string }),
});

const permissionsOf = (p: Mnqv1beta1.SqsPermissions | undefined): QueuePermissions => ({
  publish: p?.canPublish === true,
  receive: p?.canReceive === true,
  manage: p?.canManage === true,
});

const sdkPermissions = (p: QueuePermissions): Mnqv1beta1.SqsPermissions => ({
  canPublish: p.publish,
  canReceive: p.receive,
  canManage: p.manage,
});

export function createAccountsGateway(settings: AccountsSettings): AccountsGateway {
  const client = createSdkClient({
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    apiUrl: settings.apiUrl,
    requestTimeoutMs: settings.requestTimeoutMs,
    defaults: {
      defaultOrganizationId: settings.organizationId,
      defaultProjectId: settings.projectId,
      defaultRegion: settings.region as Region,
    },
    userAgent: LBSYNC_USER_AGENT,
    http: { onRequest: (method, url) => settings.onCall?.(method, new URL(url).pathname) },
  });
  const iam = new Iamv1alpha1.API(client);
  const sqs = new Mnqv1beta1.SqsAPI(client);
  const step = <T>(message: string, run: () => Promise<T>) => callGateway({ message, notFound: 'unknown_api_error', run });
  const org = settings.organizationId;
  const project = settings.projectId;

  return {
    async applications(name) {
      const all = await step(`listing IAM applications named ${name}`, () =>
        readPages(
          'ListApplications',
          async (page, pageSize) => (await iam.listApplications({ organizationId: org, name, page, pageSize })).applications,
        ),
      );
      return all.filter((a) => a.name === name).map((a) => ({ id: a.id, name: a.name }));
    },
    async createApplication(name, description) {
      const made = await step(`creating IAM application ${name}`, () =>
        iam.createApplication({ name, organizationId: org, description, tags: ['scw-lb-sync'] }),
      );
      return { id: made.id, name: made.name };
    },
    async policiesOf(applicationId) {
      const all = await step(`listing the policies of application ${applicationId}`, () =>
        readPages(
          'ListPolicies',
          async (page, pageSize) =>
            (await iam.listPolicies({ organizationId: org, applicationIds: [applicationId], page, pageSize })).policies,
        ),
      );
      return all.filter((p) => p.applicationId === applicationId).map((p) => ({ id: p.id, name: p.name }));
    },
    async rulesOf(policyId) {
      const rules = await step(`listing the rules of policy ${policyId}`, () =>
        readPages('ListRules', async (page, pageSize) => (await iam.listRules({ policyId, page, pageSize })).rules),
      );
      return rules.map((r) => ({
        permissionSets: r.permissionSetNames ?? [],
        ...(r.projectIds && r.projectIds.length > 0 ? { projectIds: r.projectIds } : { organizationId: r.organizationId ?? org }),
      }));
    },
    async createPolicy(name, applicationId, rules) {
      const made = await step(`creating IAM policy ${name}`, () =>
        iam.createPolicy({
          name,
          description: 'scw-lb-sync (lbsync bootstrap)',
          organizationId: org,
          applicationId,
          rules: rules.map(sdkRule),
          tags: ['scw-lb-sync'],
        }),
      );
      return { id: made.id, name: made.name };
    },
    async setRules(policyId, rules) {
      await step(`setting the rules of policy ${policyId}`, () => iam.setRules({ policyId, rules: rules.map(sdkRule) }));
    },
    async apiKeysOf(applicationId) {
      const keys = await step(`listing the API keys of application ${applicationId}`, () =>
        readPages(
          'ListAPIKeys',
          async (page, pageSize) =>
            (await iam.listAPIKeys({ organizationId: org, bearerId: applicationId, bearerType: 'application', page, pageSize })).apiKeys,
        ),
      );
      return keys.filter((k) => k.applicationId === applicationId).map((k) => k.accessKey);
    },
    async createApiKey(applicationId, description) {
      const made = await step(`creating an API key for application ${applicationId}`, () =>
        iam.createAPIKey({ applicationId, description, defaultProjectId: project }),
      );
      return { accessKey: made.accessKey, secretKey: made.secretKey ?? '' };
    },
    async queuesInfo() {
      const info = await step('reading whether Queues is enabled', () => sqs.getSqsInfo({ projectId: project }));
      return { enabled: info.status === 'enabled', endpoint: info.sqsEndpointUrl };
    },
    async activateQueues() {
      const info = await step('enabling Queues on the project', () => sqs.activateSqs({ projectId: project }));
      return { endpoint: info.sqsEndpointUrl };
    },
    async queueCredentials() {
      const all = await step('listing the Queues credentials', () =>
        readPages(
          'ListSqsCredentials',
          async (page, pageSize) => (await sqs.listSqsCredentials({ projectId: project, page, pageSize })).sqsCredentials,
        ),
      );
      return all.map((c) => ({ id: c.id, name: c.name, accessKey: c.accessKey, permissions: permissionsOf(c.permissions) }));
    },
    async createQueueCredential(name, permissions) {
      const made = await step(`creating Queues credentials ${name}`, () =>
        sqs.createSqsCredentials({ projectId: project, name, permissions: sdkPermissions(permissions) }),
      );
      return {
        id: made.id,
        name: made.name,
        accessKey: made.accessKey,
        secretKey: made.secretKey,
        permissions: permissionsOf(made.permissions),
      };
    },
    async setQueuePermissions(id, permissions) {
      await step(`setting the permissions of Queues credentials ${id}`, () =>
        sqs.updateSqsCredentials({ sqsCredentialsId: id, permissions: sdkPermissions(permissions) }),
      );
    },
  };
}
