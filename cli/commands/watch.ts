import { Command } from 'commander';
import { runtimeConfigFromEnv } from '../../shared/platform/config';
import type { WatchDeps, WatchOutcome } from '../../shared/handlers/watch-request';
import { watchOnce } from '../../shared/handlers/watch-request';
import { createLogger } from '../../shared/platform/log';
import { LBSYNC_USER_AGENT_MARKER } from '../../shared/outbound/user-agent';
import type { Cli } from '../command';
import { act, collect, helpText } from '../command';
import { configuredTargets, queueFor, selectTargets } from '../environment';
import type { Output } from '../output';
import { EXIT, plural } from '../output';
import { auditTrailSettings } from '../writers-read';
import { gatewayPerKey } from '../../shared/platform/target-keys';

interface WatchOptions {
  once?: boolean;
  target?: string[];
  file?: string;
  dryRun?: boolean;
}

function print(out: Output, result: WatchOutcome, dryRun: boolean): void {
  const { c } = out;
  const { report } = result;
  const minutes = (Date.parse(report.window.to) - Date.parse(report.window.from)) / 60_000;
  out.line(
    `watch: ${report.window.from} -> ${report.window.to} (${minutes.toFixed(1)} min): ${plural(report.events, 'event')}, ${report.relevant} relevant, ${c.bold(plural(report.enqueued, 'target'))} enqueued${dryRun ? ' (dry run)' : ''}`,
  );
  for (const match of result.matches) {
    const sent = report.targets.includes(match.target);
    out.line(`  ${sent ? c.green(match.target) : c.red(`${match.target} (not enqueued)`)}`);
    for (const reason of match.reasons.slice(0, 5)) out.line(`    ${c.dim(reason)}`);
    if (match.reasons.length > 5) out.line(`    ${c.dim(`... ${match.reasons.length - 5} more`)}`);
  }
  for (const w of report.foreignWrites.slice(0, 20))
    out.line(`  ${c.yellow('written by another:')} ${w.target}: ${w.method} by ${w.writer} at ${w.at}`);
  if (report.foreignWrites.length > 20) out.line(`  ${c.dim(`... ${report.foreignWrites.length - 20} more foreign writes`)}`);
  for (const contest of report.contested)
    out.line(
      `  ${c.red('pool contested:')} ${contest.target}: reverted ${contest.writer} ${contest.reverts} times in ${contest.windowMinutes} min`,
    );
  for (const u of report.unread) {
    out.line(`  ${c.yellow('not read:')} ${u.message}`);
    out.line(`    ${c.dim(`hint: ${u.hint}`)}`);
  }
  const ignored = Object.entries(result.ignored).map(([why, n]) => `${n} ${why.replace(/_/g, ' ')}`);
  if (ignored.length > 0) out.line(`  ${c.dim(`ignored: ${ignored.join(', ')}`)}`);
  if (result.error) {
    out.line(`  ${c.red('error')} [${result.error.code}] ${result.error.message}`);
    if (result.error.hint) out.line(`  ${c.dim('hint:')} ${result.error.hint}`);
  }
}

export function watchCommand(cli: Cli, stopSignal?: AbortSignal): Command {
  return new Command('watch')
    .description(
      'read Audit Trail as the watch function does and enqueue an `audit` event for each target whose servers or backends changed',
    )
    .option('--once', 'read one window (the last LBSYNC_WATCH_PERIOD_MS + LBSYNC_WATCH_OVERLAP_MS) and exit')
    .option('-t, --target <name>', 'only this target (repeatable, or comma-separated); all by default', collect)
    .option('-f, --file <path>', 'targets file (instead of LBSYNC_TARGETS / LBSYNC_CONFIG)')
    .option('--dry-run', 'the events ask for a dry run (plan only)')
    .addHelpText(
      'after',
      helpText(
        [
          'lbsync watch --once',
          'SCW_DEFAULT_ORGANIZATION_ID=<org-uuid> lbsync watch --once --target prod.k8s.local -o json',
          'lbsync watch   # every LBSYNC_WATCH_PERIOD_MS until Ctrl-C',
        ],
        [
          [0, 'the window was read and every concerned target enqueued'],
          [1, 'Audit Trail or the queue failed, or a configuration error (organization id, keys, targets)'],
          [64, 'bad flags, or a --target the configuration lacks'],
        ],
        'one envelope per run: {ok, command: "watch", events, relevant, enqueued, targets, window, unread, matches, ignored, error?}',
      ),
    )
    .action(
      act<WatchOptions>(cli, async (options, out) => {
        const env = cli.io.env;
        const targets = configuredTargets(env, options.file);
        // Fails on an unknown --target as every other command does; the run itself selects from all targets.
        selectTargets(targets, options.target);
        const { ownPrincipalIds, projectId, ...auditTrail } = auditTrailSettings(env);
        const q = queueFor(env, 'RECONCILE_QUEUE_URL');
        const { createAuditTrailGateway } = await import('../../shared/adapters/audit-trail');
        const { watch } = runtimeConfigFromEnv(env);
        const deps: WatchDeps = {
          targets,
          auditTrail: gatewayPerKey(env, (key) => createAuditTrailGateway({ ...auditTrail, ...key }), cli.protect),
          organizationId: auditTrail.organizationId,
          queue: () => q.queue,
          reconcileQueueUrl: q.url,
          window: watch,
          own: {
            userAgentMarker: LBSYNC_USER_AGENT_MARKER,
            principalIds: new Set(ownPrincipalIds),
            ...(auditTrail.ownerId && { ownerId: auditTrail.ownerId }),
          },
          ...(projectId && { projectId }),
          logger: createLogger({ service: 'lbsync-cli', level: 'silent' }),
        };
        const args = { ...(options.target && { targets: options.target }), ...(options.dryRun && { dryRun: true }) };
        const runOnce = async () => {
          const result = await watchOnce(args, deps);
          if (out.format === 'json')
            out.result(result.status === 200, {
              ...result.report,
              matches: result.matches,
              ignored: result.ignored,
              ...(result.error && { error: result.error }),
            });
          else print(out, result, options.dryRun === true);
          return result.status === 200 ? EXIT.ok : EXIT.error;
        };
        if (options.once) return runOnce();
        // Every period until Ctrl-C, like the cron trigger; a failed run is told and the next one reads the window again.
        const stop = new AbortController();
        const onSignal = () => stop.abort();
        process.once('SIGINT', onSignal);
        stopSignal?.addEventListener('abort', onSignal, { once: true });
        try {
          while (!stop.signal.aborted) {
            await runOnce();
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, watch.periodMs);
              const wake = () => {
                clearTimeout(timer);
                resolve();
              };
              stop.signal.addEventListener('abort', wake, { once: true });
            });
          }
          return EXIT.ok;
        } finally {
          process.off('SIGINT', onSignal);
        }
      }),
    );
}
