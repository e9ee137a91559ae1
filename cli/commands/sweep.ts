import { Command } from 'commander';
import type { EventQueue } from '../../shared/adapters/queue';
import { runtimeConfigFromEnv } from '../../shared/platform/config';
import { handleSweepRequest, type SweepReport } from '../../shared/handlers/sweep-request';
import { createLogger } from '../../shared/platform/log';
import type { Cli } from '../command';
import { act, collect, helpText, wholeNumber } from '../command';
import { configuredTargets, queueFor, selectTargets } from '../environment';
import { EXIT, plural } from '../output';
import { progress } from '../progress';

interface SweepOptions {
  target?: string[];
  file?: string;
  dryRun?: boolean;
  queue?: boolean;
  spread?: string;
}

const BATCH = 10;

/**
 * Splits each send of the sweep handler into SendMessageBatch-sized calls to report progress, counted over the
 * whole sweep: with --spread the handler sends several times (each batch when due), and the count goes on.
 */
function withBatchProgress(queue: EventQueue, onBatch: (handed: number) => void): EventQueue {
  let handed = 0;
  return {
    ...queue,
    async sendBatch(url, entries) {
      const total = { sent: [] as string[], failed: [] as { id: string; code: string; message: string }[], calls: 0 };
      for (let i = 0; i < entries.length; i += BATCH) {
        const part = await queue.sendBatch(url, entries.slice(i, i + BATCH));
        total.sent.push(...part.sent);
        total.failed.push(...part.failed);
        total.calls += part.calls;
        handed += Math.min(BATCH, entries.length - i);
        onBatch(handed);
      }
      return total;
    },
  };
}

export function sweepCommand(cli: Cli): Command {
  return new Command('sweep')
    .description(
      'enqueue one `sweep` event per target on RECONCILE_QUEUE_URL, as the cron trigger does (the reconcile function does the rest)',
    )
    .option('-t, --target <name>', 'only this target (repeatable, or comma-separated); all by default', collect)
    .option('-f, --file <path>', 'targets file (instead of LBSYNC_TARGETS / LBSYNC_CONFIG)')
    .option('--dry-run', 'the events ask for a dry run (plan only)')
    .option('--queue', 'send straight onto RECONCILE_QUEUE_URL (the default and only way)')
    .option(
      '--spread <seconds>',
      'spread the events over this many seconds as the cron sweep does (0..900; default 0: all at once). With QUEUE_DELAY_MODE=hold the command sends each batch when due, so it runs that long',
    )
    .addHelpText(
      'after',
      helpText(
        [
          'lbsync sweep',
          'lbsync sweep --target prod.k8s.local --target staging.k8s.local',
          'lbsync sweep --dry-run -o json',
          'lbsync sweep --spread 300',
        ],
        [
          [0, 'every selected target was enqueued'],
          [1, 'some events were refused by the queue, or a configuration/queue error'],
          [64, 'bad flags, or a --target the configuration lacks'],
        ],
        '{ok, command: "sweep", selected, enqueued, batches, failed: [{target, code, message}], unknownTargets, ...}',
      ),
    )
    .action(
      act<SweepOptions>(cli, async (options, out) => {
        const env = cli.io.env;
        const targets = configuredTargets(env, options.file);
        selectTargets(targets, options.target);
        const q = queueFor(env, 'RECONCILE_QUEUE_URL');
        const bar = progress(out, 'enqueued', out.format === 'text');
        const spreadSeconds =
          options.spread === undefined ? undefined : wholeNumber('--spread', options.spread, { min: 0, max: 900, unit: 'seconds' });
        const args = {
          ...(options.target && { targets: options.target }),
          ...(options.dryRun && { dryRun: true }),
          ...(spreadSeconds !== undefined && { spreadSeconds }),
        };
        const total = options.target ? targets.filter((t) => options.target?.includes(t.name)).length : targets.length;
        const counted = withBatchProgress(q.queue, (handed) => bar.update(handed, total));
        const answer = await handleSweepRequest(JSON.stringify(args), {
          targets,
          queue: () => counted,
          reconcileQueueUrl: q.url,
          delayMode: runtimeConfigFromEnv(env).delayMode,
          logger: createLogger({ service: 'lbsync-cli', level: 'silent' }),
        });
        bar.end();
        const report = JSON.parse(answer.body) as SweepReport & { error?: string; message?: string; errors?: unknown[] };
        if (answer.statusCode === 400) throw new Error(`invalid sweep arguments: ${JSON.stringify(report.errors)}`);
        const ok = answer.statusCode === 200 && report.failed.length === 0 && report.unknownTargets.length === 0;
        if (out.format === 'json') {
          out.result(ok, { ...report });
          return ok ? EXIT.ok : EXIT.error;
        }
        const { c } = out;
        out.line(
          `sweep: ${c.bold(`${report.enqueued}/${plural(report.selected, 'target')}`)} enqueued in ${plural(report.batches, 'batch', 'batches')}${options.dryRun ? ' (dry run)' : ''}`,
        );
        for (const f of report.failed) out.line(`  ${c.red('refused')} ${f.target}: ${f.code} ${f.message}`);
        for (const name of report.unknownTargets) out.line(`  ${c.red('unknown target')} ${name}: not in the configuration`);
        if (report.message) out.line(`  ${c.red('error')} ${report.message}`);
        return ok ? EXIT.ok : EXIT.error;
      }),
    );
}
