import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { AccountsGateway, QueueCredential } from '../adapters/accounts';
import { createAccountsGateway } from '../adapters/accounts';
import { provisionQueues } from '../adapters/queue-provisioning';
import type { PrincipalSpec, QueueCredentialSpec } from '../bootstrap-plan';
import { comparePermissions, compareRules, desiredRules, PRINCIPALS, QUEUE_CREDENTIALS } from '../bootstrap-plan';
import { LbSyncError } from '../../shared/errors/lbsync-error';
import type { Cli } from '../command';
import { act, helpText, wholeNumber } from '../command';
import { resolveScalewayCredentials } from '../credentials';
import { configuredTargets, targetsConfigured } from '../environment';
import type { Output } from '../output';
import { CliError, EXIT } from '../output';
import { isSymbolicLink, writePrivateFile } from '../private-file';

interface BootstrapOptions {
  dryRun?: boolean;
  yes?: boolean;
  deployEnv: string;
  prefix: string;
  region: string;
  functionTimeout: string;
}

/** One line of what the run did, or would do: every call is one (reads as they were made, writes as made or planned). */
interface Step {
  call: string;
  what: string;
  done: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `export NAME='value'` lines as bootstrap writes them, each with the comment line above it. */
function readEnvFile(path: string): { values: Map<string, string>; comments: Map<string, string> } {
  const values = new Map<string, string>();
  const comments = new Map<string, string>();
  if (!existsSync(path)) return { values, comments };
  for (const m of readFileSync(path, 'utf8').matchAll(/^(?:# (.*)\n)?export ([A-Z][A-Z0-9_]*)='([^']*)'$/gm)) {
    values.set(m[2] as string, m[3] as string);
    if (m[1] !== undefined) comments.set(m[2] as string, m[1]);
  }
  return { values, comments };
}

function writeEnvFile(path: string, values: Map<string, string>, comments: Map<string, string>): void {
  const lines = [
    '# The deployment environment made by `lbsync bootstrap` (docs/deploy.md). It holds secrets: keep it out of the',
    '# repository (mode 0600). `set -a; . ./<this file>; set +a`, then `npx --no-install serverless deploy`.',
    ...[...values].map(
      ([name, value]) => `${comments.has(name) ? `# ${comments.get(name)}\n` : ''}export ${name}='${value.replaceAll("'", '')}'`,
    ),
    '',
  ];
  writePrivateFile(path, lines.join('\n'));
}

/** Retries a read that Scaleway answers 403 or 404 for a few seconds after what it reads was made (recorded). */
async function settled<T>(run: () => Promise<T>, waitMs: number): Promise<T> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      return await run();
    } catch (error) {
      const status = error instanceof LbSyncError ? error.status : undefined;
      const code = error instanceof LbSyncError ? error.code : '';
      const fresh = status === 403 || status === 404 || code === 'permissions_denied' || code === 'network_error';
      if (!fresh || Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

interface Context {
  api: AccountsGateway;
  ids: { projectId: string; organizationId: string };
  dryRun: boolean;
  yes: boolean;
  steps: Step[];
  env: Map<string, string>;
  comments: Map<string, string>;
  refused: string[];
}

const write = (ctx: Context, call: string, what: string) => ctx.steps.push({ call, what, done: !ctx.dryRun });

async function principal(ctx: Context, spec: PrincipalSpec): Promise<string | undefined> {
  const desired = desiredRules(spec, ctx.ids);
  const [found, ...more] = await ctx.api.applications(spec.name);
  if (more.length > 0)
    throw new CliError('usage', `${more.length + 1} IAM applications are named ${spec.name}: delete the extra ones, then run again`);
  let appId = found?.id;
  if (!appId) {
    write(ctx, 'POST /iam/v1alpha1/applications', `create the IAM application ${spec.name} (${spec.why})`);
    write(ctx, 'POST /iam/v1alpha1/policies', `create its policy ${spec.name}: ${desired.map(ruleText).join('; ')}`);
    write(ctx, 'POST /iam/v1alpha1/api-keys', `create its API key -> ${spec.env.access}, ${spec.env.secret}`);
    if (ctx.dryRun) return undefined;
    appId = (await ctx.api.createApplication(spec.name, `scw-lb-sync: ${spec.why}`)).id;
    await ctx.api.createPolicy(spec.name, appId, desired);
  } else {
    const policies = await ctx.api.policiesOf(appId);
    const policy = policies.find((p) => p.name === spec.name) ?? policies[0];
    if (!policy) {
      write(ctx, 'POST /iam/v1alpha1/policies', `create the policy ${spec.name}: ${desired.map(ruleText).join('; ')}`);
      if (!ctx.dryRun) await ctx.api.createPolicy(spec.name, appId, desired);
    } else {
      const verdict = compareRules(await ctx.api.rulesOf(policy.id), desired);
      if (verdict.added.length > 0 && !ctx.yes) {
        ctx.refused.push(`${spec.name}: its policy ${policy.name} would gain ${verdict.added.join(', ')}`);
      } else if (verdict.added.length > 0 || verdict.removed.length > 0) {
        const change = [...verdict.added.map((g) => `+ ${g}`), ...verdict.removed.map((g) => `- ${g}`)].join(', ');
        write(ctx, 'PUT /iam/v1alpha1/rules', `converge the policy ${policy.name} of ${spec.name}: ${change}`);
        if (!ctx.dryRun) await ctx.api.setRules(policy.id, desired);
      }
    }
  }
  // A key whose secret this file does not hold cannot be shown again (Scaleway shows it once): a new one is made.
  const keys = await settled(() => ctx.api.apiKeysOf(appId as string), 10_000);
  const kept = ctx.env.get(spec.env.access);
  if (kept && keys.includes(kept) && ctx.env.get(spec.env.secret)) return appId;
  if (found) {
    const note = keys.length > 0 ? ` (its ${keys.length} older key(s), whose secrets this file lacks, are left: revoke them)` : '';
    write(ctx, 'POST /iam/v1alpha1/api-keys', `create an API key for ${spec.name} -> ${spec.env.access}, ${spec.env.secret}${note}`);
  }
  if (ctx.dryRun) return appId;
  const key = await ctx.api.createApiKey(appId, `scw-lb-sync ${spec.name} (lbsync bootstrap)`);
  ctx.env.set(spec.env.access, key.accessKey);
  ctx.env.set(spec.env.secret, key.secretKey);
  ctx.comments.set(spec.env.access, `${spec.name}: ${spec.why}`);
  return appId;
}

const ruleText = (rule: { permissionSets: readonly string[]; projectIds?: readonly string[]; organizationId?: string }) =>
  `${rule.permissionSets.join(', ')} on ${rule.projectIds ? `project ${rule.projectIds.join(', ')}` : `organization ${rule.organizationId}`}`;

async function queueCredential(ctx: Context, spec: QueueCredentialSpec, existing: readonly QueueCredential[]): Promise<void> {
  const found = existing.filter((c) => c.name === spec.name);
  const kept = found.find((c) => c.accessKey === ctx.env.get(spec.env.access));
  const perms = Object.entries(spec.permissions)
    .filter(([, on]) => on)
    .map(([name]) => name)
    .join(' + ');
  if (kept && ctx.env.get(spec.env.secret)) {
    const verdict = comparePermissions(kept.permissions, spec.permissions);
    if (verdict.added.length > 0 && !ctx.yes) ctx.refused.push(`Queues credentials ${spec.name} would gain ${verdict.added.join(', ')}`);
    else if (verdict.added.length > 0 || verdict.removed.length > 0) {
      write(ctx, 'PATCH /mnq/v1beta1/regions/{region}/sqs-credentials/{id}', `converge the Queues credentials ${spec.name} to ${perms}`);
      if (!ctx.dryRun) await ctx.api.setQueuePermissions(kept.id, spec.permissions);
    }
    return;
  }
  const note = found.length > 0 ? ` (the ${found.length} older one(s) named so, whose secrets this file lacks, are left: delete them)` : '';
  write(
    ctx,
    'POST /mnq/v1beta1/regions/{region}/sqs-credentials',
    `create the Queues credentials ${spec.name} (${perms}) -> ${spec.env.access}${note}`,
  );
  if (ctx.dryRun) return;
  const made = await ctx.api.createQueueCredential(spec.name, spec.permissions);
  ctx.env.set(spec.env.access, made.accessKey);
  ctx.env.set(spec.env.secret, made.secretKey);
  ctx.comments.set(spec.env.access, `Queues credentials ${spec.name}: ${spec.why}`);
}

function report(out: Output, ctx: Context, reads: string[], options: BootstrapOptions, refusedExit: boolean): number {
  const payload = {
    dryRun: ctx.dryRun,
    reads,
    writes: ctx.steps,
    ...(ctx.refused.length > 0 && { refused: ctx.refused }),
    envFile: ctx.dryRun ? undefined : options.deployEnv,
  };
  if (out.format === 'json') {
    out.result(!refusedExit, payload);
    return refusedExit ? EXIT.error : EXIT.ok;
  }
  const { c } = out;
  out.line(c.bold(ctx.dryRun ? 'lbsync bootstrap --dry-run: read, and would write:' : 'lbsync bootstrap:'));
  for (const read of reads) out.line(`  ${c.dim('read ')} ${read}`);
  for (const step of ctx.steps) out.line(`  ${step.done ? c.green('wrote') : c.yellow('would')} ${step.call}  ${c.dim(step.what)}`);
  if (ctx.steps.length === 0 && ctx.refused.length === 0)
    out.line(`  ${c.green('nothing to write: every principal, key, credential and queue is as it should be')}`);
  for (const refusal of ctx.refused) out.line(`  ${c.red('refused')} ${refusal}: widening a policy takes --yes`);
  if (!ctx.dryRun)
    out.note(
      c.dim(
        `the deployment's environment, secrets included (each shown only this once), is in ${options.deployEnv} (mode 0600); nothing of it was printed. Next: docs/deploy.md, "The short path".`,
      ),
    );
  return refusedExit ? EXIT.error : EXIT.ok;
}

export function bootstrapCommand(cli: Cli): Command {
  return new Command('bootstrap')
    .description(
      'create or converge the IAM applications (least privilege), their API keys, Queues and its credentials, and the two queues; write the deployment environment for `serverless deploy`',
    )
    .option('--dry-run', 'read what exists and list every call it would make; write nothing')
    .option('--yes', 'allow widening an existing policy or credential (granting more than it has)')
    .option('--deploy-env <path>', 'where the deployment environment and its secrets are written (mode 0600)', 'lbsync-deploy.env')
    .option('--prefix <prefix>', 'queue name prefix (LBSYNC_QUEUE_PREFIX)', 'lbsync')
    .option('--region <region>', "the queues' and functions' region", 'fr-par')
    .option(
      '--function-timeout <seconds>',
      "reconcile's timeout (serverless.yml): the reconcile queue's visibility timeout is 30 s more",
      '60',
    )
    .addHelpText(
      'after',
      helpText(
        [
          'SCW_DEFAULT_ORGANIZATION_ID=... SCW_DEFAULT_PROJECT_ID=... lbsync bootstrap --dry-run',
          'lbsync bootstrap && set -a && . ./lbsync-deploy.env && set +a',
          'lbsync bootstrap --yes   # also widen a policy someone narrowed',
        ],
        [
          [0, 'everything made or already as it should be (or, with --dry-run, read and listed)'],
          [1, 'a widening refused (without --yes), or an API error'],
          [64, 'bad flags, or the organization or project unknown'],
        ],
        '{ok, command: "bootstrap", dryRun, reads: ["GET /iam/..."], writes: [{call, what, done}], refused?, envFile}',
      ),
    )
    .action(
      act<BootstrapOptions>(cli, async (options, out) => {
        const env = cli.io.env;
        const credentials = resolveScalewayCredentials(env);
        const organizationId = env.SCW_DEFAULT_ORGANIZATION_ID?.trim() || credentials.organizationId;
        const projectId = credentials.settings.projectId;
        if (!organizationId || !UUID.test(organizationId))
          throw new CliError(
            'usage',
            'SCW_DEFAULT_ORGANIZATION_ID must be the organization id (a UUID): the policies and the watcher live there',
          );
        if (!projectId || !UUID.test(projectId))
          throw new CliError(
            'usage',
            'SCW_DEFAULT_PROJECT_ID must be the project id (a UUID) of the LBs, the servers, the queues and the functions',
          );
        if (!/^[A-Za-z0-9_-]{1,60}$/.test(options.prefix)) throw new CliError('usage', `--prefix must be 1-60 letters, digits, "-" or "_"`);
        const timeout = wholeNumber('--function-timeout', options.functionTimeout, { min: 1, unit: 'seconds' });
        // Refused before any call: the keys it makes are shown once, and could not be written through a link at the end.
        if (isSymbolicLink(options.deployEnv))
          throw new CliError(
            'usage',
            `--deploy-env: ${options.deployEnv} is a symbolic link; the deployment's secrets are never written through one`,
            'Name the file itself (a new path, or the file the link points at).',
          );
        const reads: string[] = [];
        const api = createAccountsGateway({
          accessKey: credentials.settings.accessKey,
          secretKey: credentials.settings.secretKey,
          organizationId,
          projectId,
          region: options.region,
          ...(credentials.settings.apiUrl && { apiUrl: credentials.settings.apiUrl }),
          onCall: (method, path) => void (method === 'GET' && reads.push(`${method} ${path}`)),
        });
        const ctx: Context = {
          api,
          ids: { projectId, organizationId },
          dryRun: options.dryRun === true,
          yes: options.yes === true,
          steps: [],
          ...(({ values, comments }) => ({ env: values, comments }))(readEnvFile(options.deployEnv)),
          refused: [],
        };
        const appIds = new Map<string, string | undefined>();
        for (const spec of PRINCIPALS) appIds.set(spec.name, await principal(ctx, spec));

        // Queues: enabled once per project, its credentials, then the two queues with the provisioning ones.
        let { enabled, endpoint } = await api.queuesInfo();
        if (!enabled) {
          write(ctx, 'POST /mnq/v1beta1/regions/{region}/activate-sqs', 'enable Queues (the SQS protocol) on the project');
          if (!ctx.dryRun) ({ endpoint } = await api.activateQueues());
          enabled = !ctx.dryRun;
        }
        const existing = enabled ? await settled(() => api.queueCredentials(), 30_000) : [];
        for (const spec of QUEUE_CREDENTIALS) await queueCredential(ctx, spec, existing);
        const queueEndpoint = env.SQS_ENDPOINT?.trim() || endpoint;
        const names = { reconcileQueueName: `${options.prefix}-reconcile`, deadLetterQueueName: `${options.prefix}-dead-letter` };
        if (ctx.dryRun) {
          write(
            ctx,
            `SQS ${queueEndpoint} CreateQueue, SetQueueAttributes`,
            `create or converge ${names.reconcileQueueName} and ${names.deadLetterQueueName}`,
          );
        } else if (ctx.refused.length === 0) {
          const provision = QUEUE_CREDENTIALS.find((q) => q.permissions.manage) as QueueCredentialSpec;
          const settings = {
            endpoint: queueEndpoint,
            region: options.region,
            accessKeyId: ctx.env.get(provision.env.access) as string,
            secretAccessKey: ctx.env.get(provision.env.secret) as string,
          };
          // Fresh credentials are refused for a few seconds (recorded: mnq-sqs-credentials-basic #7, #8).
          const queues = await settled(() => provisionQueues(settings, { ...names, functionTimeoutSeconds: timeout }), 30_000);
          for (const name of [...queues.created, ...queues.updated])
            write(
              ctx,
              `SQS ${queueEndpoint} CreateQueue, SetQueueAttributes`,
              `${queues.created.includes(name) ? 'create' : 'converge'} ${name}`,
            );
          const set = (name: string, value: string, comment?: string) => {
            ctx.env.set(name, value);
            if (comment) ctx.comments.set(name, comment);
          };
          set('SCW_DEFAULT_PROJECT_ID', projectId, 'the project of the LBs, servers, queues and functions');
          set('SCW_DEFAULT_ORGANIZATION_ID', organizationId, 'the organization the watcher reads Audit Trail of');
          set(
            'LBSYNC_WATCH_OWN_PRINCIPAL_IDS',
            appIds.get('lbsync-functions') as string,
            "lbsync-functions' application id: its backend writes are ours",
          );
          set('SQS_ENDPOINT', queueEndpoint);
          set('SQS_REGION', options.region);
          set('RECONCILE_QUEUE_URL', queues.reconcileQueueUrl);
          set('DEAD_LETTER_QUEUE_URL', queues.deadLetterQueueUrl);
          set('LBSYNC_QUEUE_PREFIX', options.prefix);
          if (!ctx.env.get('INJECT_TOKEN'))
            set('INJECT_TOKEN', randomBytes(32).toString('hex'), "inject's bearer token (the boot hook's /etc/lbsync/token)");
          // The first step of a deployment: shadow, until its plans are what you expect (docs/deploy.md).
          if (!ctx.env.get('LBSYNC_MODE'))
            set('LBSYNC_MODE', 'shadow', 'shadow: read, plan, log, never write; write once its plans are right');
          // The targets of this shell, checked first; otherwise the file leaves them to you.
          const targets = env.LBSYNC_TARGETS?.trim();
          if (targets && targetsConfigured(env) && configuredTargets(env).length > 0)
            set('LBSYNC_TARGETS', targets, 'the targets (docs/configuration.md)');
          writeEnvFile(options.deployEnv, ctx.env, ctx.comments);
        }
        return report(out, ctx, reads, options, ctx.refused.length > 0);
      }),
    );
}
