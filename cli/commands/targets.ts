import { Command } from 'commander';
import { targetLbs } from '../../shared/core/lb-identity';
import { OPTIONAL_SPEC_FIELDS } from '../../shared/core/plan';
import { LbSyncError } from '../../shared/errors/lbsync-error';
import { problemCount } from '../../shared/errors/field-errors';
import type { Target } from '../../shared/schemas/target';
import type { Cli } from '../command';
import { act, helpText } from '../command';
import { configuredTargets } from '../environment';
import type { Colors } from '../output';
import { TARGETS_VALIDATE_HINT } from '../hints';
import { CliError, EXIT, plural, renderFieldLine } from '../output';

interface ValidateOptions {
  file?: string;
}

/** `key=value` for each field set, nested objects flattened (`http.uri=/healthz`). */
function namedFields(value: object, prefix = ''): string[] {
  return Object.entries(value).flatMap(([k, v]) =>
    v === undefined ? [] : typeof v === 'object' && v !== null ? namedFields(v, `${prefix}${k}.`) : [`${prefix}${k}=${v}`],
  );
}

function renderTarget(t: Target, c: Colors): string[] {
  const lbs = targetLbs(t).map((p) => `${'id' in p ? `id ${p.id}` : p.name}${p.zone === t.zone ? '' : ` in ${p.zone}`}`);
  const lines = [`${c.bold(t.name)} ${c.dim(`(${t.zone})`)}  load balancer${lbs.length > 1 ? 's' : ''} ${lbs.join(', ')}`];
  for (const b of t.backends) {
    const hc = b.healthCheck ? namedFields(b.healthCheck).join(' ') : 'not managed';
    const options = namedFields(Object.fromEntries(OPTIONAL_SPEC_FIELDS.map((field) => [field, b[field]])));
    const named = options.length > 0 ? `; ${options.join(' ')}` : '';
    const presence = b.createIfMissing ? '' : '; synced only while the LB has it, never created';
    lines.push(
      `  backend ${b.name}: ${b.forwardProtocol}/${b.forwardPort} ${b.forwardPortAlgorithm}, sticky ${b.stickySessions}, ${b.proxyProtocol}${named}; health check ${hc}${presence}`,
    );
  }
  lines.push(`  servers: tags ${t.servers.tags.join(' + ')}; ip ${t.servers.ipSource}${t.allowEmptyPool ? '; empty pool allowed' : ''}`);
  const account = [
    ...(t.projectId ? [`project ${t.projectId}`] : []),
    ...(t.organizationId ? [`organization ${t.organizationId}`] : []),
    ...(t.credentials ? [`key from ${t.credentials.accessKeyEnv} / ${t.credentials.secretKeyEnv}`] : []),
  ];
  if (account.length > 0) lines.push(`  account: ${account.join('; ')} (the deployment's for the rest)`);
  return lines;
}

function validateCommand(cli: Cli): Command {
  return new Command('validate')
    .description(
      'check the targets configuration and print it expanded (kOps shorthands included); field-level errors with the fix otherwise',
    )
    .option('-f, --file <path>', 'a JSON file (an array of targets, or {"targets": [...]}) instead of LBSYNC_TARGETS / LBSYNC_CONFIG')
    .addHelpText(
      'after',
      helpText(
        [
          'lbsync targets validate',
          'lbsync targets validate --file targets.json',
          'LBSYNC_TARGETS=\'[{"kops":{"cluster":"prod.k8s.local","zone":"fr-par-1"}}]\' lbsync targets validate -o json',
        ],
        [
          [0, 'valid'],
          [1, 'invalid (every bad field is named with its fix) or unreadable'],
          [64, 'bad flags'],
        ],
        '{ok: true, command: "targets validate", targets: [...expanded]}, or {ok: false, command, error: {code: "invalid_config", message, hint, fieldErrors: [{path, message, received?, allowed?, fix}]}}',
      ),
    )
    .action(
      act<ValidateOptions>(cli, async (options, out) => {
        let targets: Target[];
        try {
          targets = configuredTargets(cli.io.env, options.file);
        } catch (error) {
          if (!(error instanceof LbSyncError) || !error.fieldErrors) throw error;
          // The hint without "run lbsync targets validate": that is the command running.
          if (out.format === 'json') throw new CliError(error.code, error.message, TARGETS_VALIDATE_HINT, error.fieldErrors);
          const { c } = out;
          out.line(
            `${c.red('invalid')}: ${plural(problemCount(error.fieldErrors), 'problem')} in ${options.file ?? error.message.split(' is invalid')[0]}`,
          );
          for (const fe of error.fieldErrors) out.line(`  ${renderFieldLine(fe, c)}`);
          out.line(`  ${c.dim('hint:')} ${TARGETS_VALIDATE_HINT}`);
          return EXIT.error;
        }
        if (out.format === 'json') out.result(true, { targets });
        else {
          out.line(`${out.c.green('valid')}: ${plural(targets.length, 'target')}`);
          for (const t of targets) for (const line of renderTarget(t, out.c)) out.line(line);
        }
        return EXIT.ok;
      }),
    );
}

export function targetsCommand(cli: Cli): Command {
  return new Command('targets').description('work with the targets configuration').addCommand(validateCommand(cli));
}
