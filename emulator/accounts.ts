/**
 * The account side `lbsync bootstrap` works on: IAM applications, policies and their rules, API keys, and Messaging
 * (Queues) activation and credentials, per organization and project. Records only; the routes (routes/iam.ts,
 * routes/mnq.ts) answer in the recorded wire shapes (wire/accounts.ts).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export interface ApplicationRecord {
  id: string;
  name: string;
  description: string;
  organizationId: string;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

export interface RuleRecord {
  id: string;
  permissionSetNames: string[];
  projectIds?: string[];
  organizationId?: string;
}

export interface PolicyRecord {
  id: string;
  name: string;
  description: string;
  organizationId: string;
  applicationId?: string;
  tags: string[];
  rules: RuleRecord[];
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyRecord {
  accessKey: string;
  secretKey: string;
  applicationId: string;
  description: string;
  defaultProjectId: string;
  createdAt: string;
}

export interface SqsPermissions {
  can_publish: boolean;
  can_receive: boolean;
  can_manage: boolean;
}

export interface SqsCredentialsRecord {
  id: string;
  name: string;
  projectId: string;
  region: string;
  accessKey: string;
  secretKey: string;
  permissions: SqsPermissions;
  createdAt: string;
  updatedAt: string;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const randomText = (length: number, alphabet: string) =>
  Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('');

export class AccountsWorld {
  readonly applications = new Map<string, ApplicationRecord>();
  readonly policies = new Map<string, PolicyRecord>();
  readonly apiKeys = new Map<string, ApiKeyRecord>();
  /** Per project and region: since when Queues (the SQS protocol) is enabled. */
  readonly sqsEnabled = new Map<string, string>();
  readonly sqsCredentials = new Map<string, SqsCredentialsRecord>();

  /** The SQS endpoint sqs-info answers (the local stack's queue in tests; Scaleway's is recorded). */
  constructor(public sqsEndpointUrl = 'https://sqs.mnq.fr-par.scaleway.com') {}

  clear(): void {
    this.applications.clear();
    this.policies.clear();
    this.apiKeys.clear();
    this.sqsEnabled.clear();
    this.sqsCredentials.clear();
  }

  createApplication(input: { name: string; description?: string; organizationId: string; tags?: string[] }): ApplicationRecord {
    const now = new Date().toISOString();
    const app = { id: randomUUID(), description: '', tags: [], ...input, createdAt: now, updatedAt: now };
    this.applications.set(app.id, app);
    return app;
  }

  createPolicy(input: Omit<PolicyRecord, 'id' | 'createdAt' | 'updatedAt' | 'rules'> & { rules: Omit<RuleRecord, 'id'>[] }): PolicyRecord {
    const now = new Date().toISOString();
    const policy: PolicyRecord = { ...input, id: randomUUID(), rules: input.rules.map(withId), createdAt: now, updatedAt: now };
    this.policies.set(policy.id, policy);
    return policy;
  }

  setRules(policyId: string, rules: Omit<RuleRecord, 'id'>[]): RuleRecord[] {
    const policy = this.policies.get(policyId);
    if (!policy) return [];
    policy.rules = rules.map(withId);
    policy.updatedAt = new Date().toISOString();
    return policy.rules;
  }

  createApiKey(input: { applicationId: string; description?: string; defaultProjectId: string }): ApiKeyRecord {
    const key: ApiKeyRecord = {
      accessKey: `SCW${randomText(17, ALPHANUMERIC)}`,
      secretKey: randomUUID(),
      description: '',
      ...input,
      createdAt: new Date().toISOString(),
    };
    this.apiKeys.set(key.accessKey, key);
    return key;
  }

  activateSqs(projectId: string, region: string): string {
    const key = `${projectId}/${region}`;
    const since = this.sqsEnabled.get(key) ?? new Date().toISOString();
    this.sqsEnabled.set(key, since);
    return since;
  }

  createSqsCredentials(input: { projectId: string; region: string; name: string; permissions: SqsPermissions }): SqsCredentialsRecord {
    const now = new Date().toISOString();
    const record = {
      ...input,
      id: randomUUID(),
      accessKey: randomText(20, `${ALPHANUMERIC}abcdefghijklmnopqrstuvwxyz`),
      secretKey: randomUUID(),
      createdAt: now,
      updatedAt: now,
    };
    this.sqsCredentials.set(record.id, record);
    return record;
  }
}

function withId(rule: Omit<RuleRecord, 'id'>): RuleRecord {
  return { ...rule, id: randomUUID() };
}

/** As the recorded answers carry it: a checksum of the secret, never needed to use it. */
export function secretChecksum(secret: string): string {
  return createHash('sha1').update(secret).digest('hex');
}
