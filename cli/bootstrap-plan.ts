// What `lbsync bootstrap` makes, and how it compares what exists with it: one IAM application per role with the
// least privilege it needs (docs/deploy.md, step 2), and one Queues credential per use (step 3). Pure: the command
// reads, plans with these, then writes.

export type Scope = 'project' | 'organization';

export interface RuleSpec {
  permissionSets: readonly string[];
  scope: Scope;
}

/** Where a key's two halves go in the deployment's environment file. */
export interface KeyVariables {
  access: string;
  secret: string;
}

export interface PrincipalSpec {
  name: string;
  why: string;
  rules: readonly RuleSpec[];
  env: KeyVariables;
}

/** The principals, in the order they are made (docs/deploy.md's IAM table, plus the reader and the observability one). */
export const PRINCIPALS: readonly PrincipalSpec[] = [
  {
    name: 'lbsync-functions',
    why: "the reconcile function's key: reads LBs, servers and IPAM, writes backends",
    rules: [{ permissionSets: ['LoadBalancersFullAccess', 'InstancesReadOnly', 'IPAMReadOnly'], scope: 'project' }],
    env: { access: 'LBSYNC_SCW_ACCESS_KEY', secret: 'LBSYNC_SCW_SECRET_KEY' },
  },
  {
    name: 'lbsync-watch',
    why: "the watcher's key: Audit Trail, which exists only at organization scope, and nothing else",
    rules: [{ permissionSets: ['AuditTrailReadOnly'], scope: 'organization' }],
    env: { access: 'LBSYNC_WATCH_SCW_ACCESS_KEY', secret: 'LBSYNC_WATCH_SCW_SECRET_KEY' },
  },
  {
    name: 'lbsync-deployer',
    why: '`serverless deploy`: the namespace, functions and triggers (a queue trigger needs the queues read)',
    rules: [{ permissionSets: ['FunctionsFullAccess', 'MessagingAndQueuingReadOnly'], scope: 'project' }],
    env: { access: 'LBSYNC_DEPLOYER_ACCESS_KEY', secret: 'SCW_SECRET_KEY' },
  },
  {
    name: 'lbsync-injector',
    why: 'callers of the private inject function (the boot hook, lbsync inject --url): X-Auth-Token',
    rules: [{ permissionSets: ['FunctionsPrivateAccess'], scope: 'project' }],
    env: { access: 'LBSYNC_INJECTOR_ACCESS_KEY', secret: 'FUNCTION_TOKEN' },
  },
  {
    name: 'lbsync-observability',
    why: '`lbsync cockpit install` (docs/operations.md §7): the logs data source, a rules token, Grafana',
    rules: [{ permissionSets: ['ObservabilityFullAccess'], scope: 'project' }],
    env: { access: 'LBSYNC_OBSERVABILITY_ACCESS_KEY', secret: 'LBSYNC_OBSERVABILITY_SECRET_KEY' },
  },
  {
    name: 'lbsync-reader',
    why: "`lbsync plan`, `status` and `doctor` from an operator's shell: reads only",
    rules: [{ permissionSets: ['LoadBalancersReadOnly', 'InstancesReadOnly', 'IPAMReadOnly'], scope: 'project' }],
    env: { access: 'LBSYNC_READER_ACCESS_KEY', secret: 'LBSYNC_READER_SECRET_KEY' },
  },
];

export interface QueuePermissions {
  publish: boolean;
  receive: boolean;
  manage: boolean;
}

export interface QueueCredentialSpec {
  name: string;
  why: string;
  permissions: QueuePermissions;
  env: KeyVariables;
}

export const QUEUE_CREDENTIALS: readonly QueueCredentialSpec[] = [
  {
    name: 'lbsync-provision',
    why: 'makes and converges the two queues (this command, `lbsync provision`)',
    permissions: { publish: false, receive: false, manage: true },
    env: { access: 'LBSYNC_PROVISION_SQS_ACCESS_KEY_ID', secret: 'LBSYNC_PROVISION_SQS_SECRET_ACCESS_KEY' },
  },
  {
    name: 'lbsync-functions',
    why: 'the functions: they only send (re-enqueue, dead-letter, inject, sweep, watch) and read depths',
    permissions: { publish: true, receive: false, manage: false },
    env: { access: 'SQS_ACCESS_KEY_ID', secret: 'SQS_SECRET_ACCESS_KEY' },
  },
  {
    name: 'lbsync-operator',
    why: "`lbsync dlq` from an operator's shell: receive and publish (redrive)",
    permissions: { publish: true, receive: true, manage: false },
    env: { access: 'LBSYNC_OPERATOR_SQS_ACCESS_KEY_ID', secret: 'LBSYNC_OPERATOR_SQS_SECRET_ACCESS_KEY' },
  },
];

/** A rule as it exists: its sets and where it applies (project ids, or the organization). */
export interface ObservedRule {
  permissionSets: readonly string[];
  projectIds?: readonly string[];
  organizationId?: string;
}

/** Every (permission set, where) a principal holds: what a policy grants, one grant at a time. */
function grants(rules: readonly ObservedRule[]): Set<string> {
  const out = new Set<string>();
  for (const rule of rules) {
    const places =
      rule.projectIds && rule.projectIds.length > 0
        ? rule.projectIds.map((p) => `project ${p}`)
        : [`organization ${rule.organizationId ?? '?'}`];
    for (const set of rule.permissionSets) for (const place of places) out.add(`${set} on ${place}`);
  }
  return out;
}

/** The spec's rules for this project and organization, as the API takes and answers them. */
export function desiredRules(spec: PrincipalSpec, ids: { projectId: string; organizationId: string }): ObservedRule[] {
  return spec.rules.map((rule) =>
    rule.scope === 'project'
      ? { permissionSets: rule.permissionSets, projectIds: [ids.projectId] }
      : { permissionSets: rule.permissionSets, organizationId: ids.organizationId },
  );
}

export interface RulesVerdict {
  /** Grants the desired rules add to what exists: a widening, refused without --yes. */
  added: string[];
  /** Grants that exist and are not desired: taken away (least privilege). */
  removed: string[];
}

export function compareRules(existing: readonly ObservedRule[], desired: readonly ObservedRule[]): RulesVerdict {
  const have = grants(existing);
  const want = grants(desired);
  return { added: [...want].filter((g) => !have.has(g)).sort(), removed: [...have].filter((g) => !want.has(g)).sort() };
}

/** The permissions a credential would gain to become the spec's (a widening), and those it would lose. */
export function comparePermissions(existing: QueuePermissions, desired: QueuePermissions): RulesVerdict {
  const names = ['publish', 'receive', 'manage'] as const;
  return {
    added: names.filter((n) => desired[n] && !existing[n]),
    removed: names.filter((n) => !desired[n] && existing[n]),
  };
}
