import { Command } from 'commander';
import { provisionQueues } from '../adapters/queue-provisioning';
import type { Cli } from '../command';
import { act, helpText, wholeNumber } from '../command';
import { defaultFunctionTimeoutSeconds, queueSettingsFromEnv } from '../environment';
import { CliError, EXIT } from '../output';

interface ProvisionOptions {
  prefix: string;
  functionTimeout: string;
  maxReceiveCount?: string;
}

const positive = (name: string, text: string): number => wholeNumber(name, text, { min: 1 });

export function provisionCommand(cli: Cli): Command {
  const env = cli.io.env;
  return new Command('provision')
    .description(
      'create or converge <prefix>-reconcile and <prefix>-dead-letter (visibility timeout, redrive policy, retention) and print their URLs as env lines',
    )
    .option('--prefix <prefix>', 'queue name prefix (env LBSYNC_QUEUE_PREFIX)', env.LBSYNC_QUEUE_PREFIX?.trim() || 'lbsync')
    .option(
      '--function-timeout <seconds>',
      "the reconcile function's timeout; the visibility timeout is this + 30 s (default: LBSYNC_FUNCTION_TIMEOUT_MS / 1000, else 60)",
      defaultFunctionTimeoutSeconds(env),
    )
    .option('--max-receive-count <n>', 'deliveries before the queue moves a message to the dead-letter queue (default 4)')
    .addHelpText(
      'after',
      helpText(
        [
          'eval "$(lbsync provision)"   # exports nothing: prints KEY=value lines; use `set -a` or an env file',
          'lbsync provision >> .env',
          'SQS_ENDPOINT=http://127.0.0.1:4566 lbsync provision --prefix test -o json',
        ],
        [
          [0, 'queues exist and match (created or updated as needed; idempotent)'],
          [1, 'missing SQS_ACCESS_KEY_ID / SQS_SECRET_ACCESS_KEY, or a queue error'],
          [64, 'bad flags'],
        ],
        '{ok, command: "provision", reconcileQueueUrl, deadLetterQueueUrl, created: [names], updated: [names]}',
      ),
    )
    .action(
      act<ProvisionOptions>(cli, async (options, out) => {
        if (!/^[A-Za-z0-9_-]{1,60}$/.test(options.prefix))
          throw new CliError('usage', `--prefix must be 1-60 letters, digits, "-" or "_", got "${options.prefix}"`);
        const result = await provisionQueues(queueSettingsFromEnv(cli.io.env), {
          reconcileQueueName: `${options.prefix}-reconcile`,
          deadLetterQueueName: `${options.prefix}-dead-letter`,
          functionTimeoutSeconds: positive('--function-timeout', options.functionTimeout),
          ...(options.maxReceiveCount && { maxReceiveCount: positive('--max-receive-count', options.maxReceiveCount) }),
        });
        if (out.format === 'json') {
          out.result(true, { ...result });
          return EXIT.ok;
        }
        out.line(`RECONCILE_QUEUE_URL=${result.reconcileQueueUrl}`);
        out.line(`DEAD_LETTER_QUEUE_URL=${result.deadLetterQueueUrl}`);
        const changes = [...result.created.map((n) => `created ${n}`), ...result.updated.map((n) => `updated ${n}`)];
        out.note(out.ce.dim(changes.length > 0 ? changes.join(', ') : 'queues already up to date'));
        return EXIT.ok;
      }),
    );
}
