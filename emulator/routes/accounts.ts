/**
 * IAM (applications, policies and rules, API keys) and Messaging (Queues activation and credentials) routes, as
 * `lbsync bootstrap` calls them through @scaleway/sdk-iam and @scaleway/sdk-mnq. Shapes as recorded
 * (test/fixtures/scaleway-api: iam-application-basic, iam-policy-basic, iam-api-key-with-application,
 * mnq-sqs-credentials-basic, mnq-sqs-queue-dead-letter-queue); the lists and their filters are assumed (no
 * recording lists them): docs/emulator.md says which is which.
 */
import type {
  AccountsWorld,
  ApiKeyRecord,
  ApplicationRecord,
  PolicyRecord,
  RuleRecord,
  SqsCredentialsRecord,
  SqsPermissions,
} from '../accounts';
import { secretChecksum } from '../accounts';
import { ApiError, apiErrors } from '../errors';
import { pageOf, readPagination, type JsonAnswer, type Route, type RouteContext } from '../http';

const ok = (body: unknown): JsonAnswer => ({ status: 200, body });
/** IAM's and Messaging's 404, as recorded: `{"message":"resource is not found","resource":..,"resource_id":..,"type":"not_found"}`. */
const notFound = (resource: string, id: string) => apiErrors.instanceNotFound(resource, id);
const PAGING = { sizeParam: 'page_size', defaultSize: 20, maxSize: 100 };

function object(body: unknown): Record<string, unknown> {
  if (body && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  throw apiErrors.invalidArguments([{ argument_name: 'body', reason: 'required', help_message: 'a JSON object' }]);
}

function required(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value === 'string' && value !== '') return value;
  throw apiErrors.invalidArguments([{ argument_name: name, reason: 'required', help_message: `${name} is required` }]);
}

function listed<T>(ctx: RouteContext, key: string, items: T[]): JsonAnswer {
  return ok({ [key]: pageOf(items, readPagination(ctx.query, PAGING)), total_count: items.length });
}

/** `name` filters match a part of the name (ASSUMED, as the LB's do: recorded there, not here). */
const nameMatches = (name: string, filter: string | null) => !filter || name.includes(filter);

const application = (a: ApplicationRecord, world: AccountsWorld) => ({
  id: a.id,
  name: a.name,
  description: a.description,
  created_at: a.createdAt,
  updated_at: a.updatedAt,
  organization_id: a.organizationId,
  editable: true,
  deletable: true,
  managed: false,
  nb_api_keys: [...world.apiKeys.values()].filter((k) => k.applicationId === a.id).length,
  tags: a.tags,
});

/** The create answer counts no rule yet (recorded: iam-policy-basic #2, #4 `nb_rules: 0`); later reads count them (#5). */
const policy = (p: PolicyRecord, counted: boolean) => ({
  id: p.id,
  name: p.name,
  description: p.description,
  organization_id: p.organizationId,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
  editable: true,
  deletable: true,
  managed: false,
  nb_rules: counted ? p.rules.length : 0,
  nb_scopes: counted ? new Set(p.rules.map((r) => JSON.stringify(r.projectIds ?? r.organizationId))).size : 0,
  nb_permission_sets: counted ? new Set(p.rules.flatMap((r) => r.permissionSetNames)).size : 0,
  tags: p.tags,
  ...(p.applicationId ? { application_id: p.applicationId } : { no_principal: true }),
});

/** Recorded (iam-policy-basic #6, #13): an organization-scoped rule answers `permission_sets_scope_type: "projects"`. */
const rule = (r: RuleRecord, organizationId: string) => ({
  id: r.id,
  permission_set_names: r.permissionSetNames,
  permission_sets_scope_type: 'projects',
  condition: '',
  ...(r.projectIds ? { project_ids: r.projectIds } : {}),
  organization_id: r.organizationId ?? organizationId,
});

/** The secret only in the create answer (recorded: iam-api-key-with-application #2; reads answer `null`, #3). */
const apiKey = (k: ApiKeyRecord, withSecret: boolean) => ({
  access_key: k.accessKey,
  secret_key: withSecret ? k.secretKey : null,
  description: k.description,
  created_at: k.createdAt,
  updated_at: k.createdAt,
  expires_at: null,
  default_project_id: k.defaultProjectId,
  editable: true,
  deletable: true,
  managed: false,
  creation_ip: '127.0.0.1',
  application_id: k.applicationId,
});

function readRules(body: Record<string, unknown>): Omit<RuleRecord, 'id'>[] {
  const rules = body.rules;
  if (!Array.isArray(rules)) throw apiErrors.invalidArguments([{ argument_name: 'rules', reason: 'required', help_message: 'rules' }]);
  return rules.map((raw, i) => {
    const r = object(raw);
    const sets = r.permission_set_names;
    if (!Array.isArray(sets) || sets.length === 0)
      throw apiErrors.invalidArguments([
        { argument_name: `rules.${i}.permission_set_names`, reason: 'required', help_message: 'one set at least' },
      ]);
    const projectIds = Array.isArray(r.project_ids) ? (r.project_ids as string[]) : undefined;
    const organizationId = typeof r.organization_id === 'string' ? r.organization_id : undefined;
    if (!projectIds === !organizationId)
      throw apiErrors.invalidArguments([
        { argument_name: `rules.${i}`, reason: 'constraint', help_message: 'give project_ids or organization_id' },
      ]);
    return { permissionSetNames: sets as string[], ...(projectIds && { projectIds }), ...(organizationId && { organizationId }) };
  });
}

export function iamApiRoutes(world: () => AccountsWorld): Route[] {
  const app = (ctx: RouteContext) => {
    const found = world().applications.get(ctx.params.applicationId ?? '');
    if (!found) throw notFound('application', ctx.params.applicationId ?? '');
    return found;
  };
  return [
    {
      method: 'GET',
      pattern: '/iam/v1alpha1/applications',
      operation: 'ListApplications',
      handle: (ctx) => {
        const org = ctx.query.get('organization_id');
        const items = [...world().applications.values()].filter(
          (a) => (!org || a.organizationId === org) && nameMatches(a.name, ctx.query.get('name')),
        );
        return listed(
          ctx,
          'applications',
          items.map((a) => application(a, world())),
        );
      },
    },
    {
      method: 'POST',
      pattern: '/iam/v1alpha1/applications',
      operation: 'CreateApplication',
      handle: (ctx) => {
        const body = object(ctx.body);
        const created = world().createApplication({
          name: required(body, 'name'),
          organizationId: required(body, 'organization_id'),
          description: typeof body.description === 'string' ? body.description : '',
          tags: Array.isArray(body.tags) ? (body.tags as string[]) : [],
        });
        return ok(application(created, world()));
      },
    },
    {
      method: 'GET',
      pattern: '/iam/v1alpha1/applications/{applicationId}',
      operation: 'GetApplication',
      handle: (ctx) => ok(application(app(ctx), world())),
    },
    {
      method: 'GET',
      pattern: '/iam/v1alpha1/policies',
      operation: 'ListPolicies',
      handle: (ctx) => {
        const org = ctx.query.get('organization_id');
        const apps = ctx.query.getAll('application_ids').flatMap((v) => v.split(','));
        const items = [...world().policies.values()].filter(
          (p) =>
            (!org || p.organizationId === org) &&
            (apps.length === 0 || (p.applicationId !== undefined && apps.includes(p.applicationId))) &&
            nameMatches(p.name, ctx.query.get('policy_name')),
        );
        return listed(
          ctx,
          'policies',
          items.map((p) => policy(p, true)),
        );
      },
    },
    {
      method: 'POST',
      pattern: '/iam/v1alpha1/policies',
      operation: 'CreatePolicy',
      handle: (ctx) => {
        const body = object(ctx.body);
        const applicationId = typeof body.application_id === 'string' ? body.application_id : undefined;
        if (applicationId && !world().applications.has(applicationId)) throw notFound('application', applicationId);
        const created = world().createPolicy({
          name: required(body, 'name'),
          description: typeof body.description === 'string' ? body.description : '',
          organizationId: required(body, 'organization_id'),
          ...(applicationId && { applicationId }),
          tags: Array.isArray(body.tags) ? (body.tags as string[]) : [],
          rules: body.rules === undefined || body.rules === null ? [] : readRules(body),
        });
        return ok(policy(created, false));
      },
    },
    {
      method: 'GET',
      pattern: '/iam/v1alpha1/policies/{policyId}',
      operation: 'GetPolicy',
      handle: (ctx) => {
        const found = world().policies.get(ctx.params.policyId ?? '');
        if (!found) throw notFound('policy', ctx.params.policyId ?? '');
        return ok(policy(found, true));
      },
    },
    {
      method: 'GET',
      pattern: '/iam/v1alpha1/rules',
      operation: 'ListRules',
      handle: (ctx) => {
        const found = world().policies.get(ctx.query.get('policy_id') ?? '');
        if (!found) throw notFound('policy', ctx.query.get('policy_id') ?? '');
        return listed(
          ctx,
          'rules',
          found.rules.map((r) => rule(r, found.organizationId)),
        );
      },
    },
    {
      method: 'PUT',
      pattern: '/iam/v1alpha1/rules',
      operation: 'SetRules',
      handle: (ctx) => {
        const body = object(ctx.body);
        const found = world().policies.get(required(body, 'policy_id'));
        if (!found) throw notFound('policy', String(body.policy_id));
        // Recorded (iam-policy-basic #13): the answer is the rules alone, without total_count.
        return ok({
          rules: world()
            .setRules(found.id, readRules(body))
            .map((r) => rule(r, found.organizationId)),
        });
      },
    },
    {
      method: 'GET',
      pattern: '/iam/v1alpha1/api-keys',
      operation: 'ListAPIKeys',
      handle: (ctx) => {
        const bearer = ctx.query.get('bearer_id') ?? ctx.query.get('application_id');
        const items = [...world().apiKeys.values()].filter((k) => !bearer || k.applicationId === bearer);
        return listed(
          ctx,
          'api_keys',
          items.map((k) => apiKey(k, false)),
        );
      },
    },
    {
      method: 'POST',
      pattern: '/iam/v1alpha1/api-keys',
      operation: 'CreateAPIKey',
      handle: (ctx) => {
        const body = object(ctx.body);
        const applicationId = required(body, 'application_id');
        const owner = world().applications.get(applicationId);
        if (!owner) throw notFound('application', applicationId);
        const created = world().createApiKey({
          applicationId,
          description: typeof body.description === 'string' ? body.description : '',
          // Recorded (#2 of iam-api-key-with-application): unset, the default project is the organization's id.
          defaultProjectId: typeof body.default_project_id === 'string' ? body.default_project_id : owner.organizationId,
        });
        return ok(apiKey(created, true));
      },
    },
    {
      method: 'GET',
      pattern: '/iam/v1alpha1/api-keys/{accessKey}',
      operation: 'GetAPIKey',
      handle: (ctx) => {
        const found = world().apiKeys.get(ctx.params.accessKey ?? '');
        if (!found) throw notFound('access_key', ctx.params.accessKey ?? '');
        return ok(apiKey(found, false));
      },
    },
  ];
}

const sqsInfo = (world: AccountsWorld, projectId: string, region: string) => {
  const since = world.sqsEnabled.get(`${projectId}/${region}`);
  // Disabled: as the recorded deactivate answer (mnq-sqs-credentials-basic #50).
  return {
    created_at: since ?? null,
    project_id: projectId,
    region,
    sqs_endpoint_url: world.sqsEndpointUrl,
    status: since ? 'enabled' : 'disabled',
    updated_at: since ?? null,
  };
};

/** Recorded (#6): the create answer has the secret. Lists have none (the SDK says "only the metadata"): ASSUMED. */
const credentials = (c: SqsCredentialsRecord, withSecret: boolean) => ({
  access_key: c.accessKey,
  created_at: c.createdAt,
  id: c.id,
  name: c.name,
  permissions: c.permissions,
  project_id: c.projectId,
  region: c.region,
  secret_checksum: secretChecksum(c.secretKey),
  ...(withSecret && { secret_key: c.secretKey }),
  updated_at: c.updatedAt,
});

function readPermissions(raw: unknown, base: SqsPermissions): SqsPermissions {
  const given = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  // Recorded (#25): a null permission is left as it was.
  const pick = (name: keyof SqsPermissions) => (typeof given[name] === 'boolean' ? (given[name] as boolean) : base[name]);
  return { can_publish: pick('can_publish'), can_receive: pick('can_receive'), can_manage: pick('can_manage') };
}

export function mnqApiRoutes(world: () => AccountsWorld): Route[] {
  const root = '/mnq/v1beta1/regions/{region}';
  const enabledFor = (ctx: RouteContext, projectId: string) => {
    if (!world().sqsEnabled.has(`${projectId}/${ctx.params.region}`))
      throw new ApiError(412, {
        message: 'Queues is not activated for this project',
        type: 'precondition_failed',
        precondition: 'resource_not_usable',
      });
  };
  return [
    {
      method: 'POST',
      pattern: `${root}/activate-sqs`,
      operation: 'ActivateSqs',
      handle: (ctx) => {
        const projectId = required(object(ctx.body), 'project_id');
        world().activateSqs(projectId, ctx.params.region ?? '');
        return ok(sqsInfo(world(), projectId, ctx.params.region ?? ''));
      },
    },
    {
      method: 'GET',
      pattern: `${root}/sqs-info`,
      operation: 'GetSqsInfo',
      handle: (ctx) => ok(sqsInfo(world(), ctx.query.get('project_id') ?? '', ctx.params.region ?? '')),
    },
    {
      method: 'GET',
      pattern: `${root}/sqs-credentials`,
      operation: 'ListSqsCredentials',
      handle: (ctx) => {
        const projectId = ctx.query.get('project_id');
        const items = [...world().sqsCredentials.values()].filter(
          (c) => c.region === ctx.params.region && (!projectId || c.projectId === projectId),
        );
        return listed(
          ctx,
          'sqs_credentials',
          items.map((c) => credentials(c, false)),
        );
      },
    },
    {
      method: 'POST',
      pattern: `${root}/sqs-credentials`,
      operation: 'CreateSqsCredentials',
      handle: (ctx) => {
        const body = object(ctx.body);
        const projectId = required(body, 'project_id');
        enabledFor(ctx, projectId);
        const created = world().createSqsCredentials({
          projectId,
          region: ctx.params.region ?? '',
          name: required(body, 'name'),
          permissions: readPermissions(body.permissions, { can_publish: false, can_receive: false, can_manage: false }),
        });
        return ok(credentials(created, true));
      },
    },
    {
      method: 'GET',
      pattern: `${root}/sqs-credentials/{id}`,
      operation: 'GetSqsCredentials',
      handle: (ctx) => {
        const found = world().sqsCredentials.get(ctx.params.id ?? '');
        if (!found) throw notFound('credentials', ctx.params.id ?? '');
        return ok(credentials(found, true));
      },
    },
    {
      method: 'PATCH',
      pattern: `${root}/sqs-credentials/{id}`,
      operation: 'UpdateSqsCredentials',
      handle: (ctx) => {
        const found = world().sqsCredentials.get(ctx.params.id ?? '');
        if (!found) throw notFound('credentials', ctx.params.id ?? '');
        found.permissions = readPermissions(object(ctx.body).permissions, found.permissions);
        found.updatedAt = new Date().toISOString();
        return ok(credentials(found, true));
      },
    },
  ];
}
