import { Command } from 'commander';
import type { Cli } from '../command';
import { defaultFunctionTimeoutSeconds } from '../environment';
import { act, collect, helpText, wholeNumber } from '../command';
import { checkRecordPath, writeCassette } from '../cassette/write-cassette';
import { collectExchanges } from '../adapters/http-recorder';
import { createScrubber } from '../../shared/outbound/scrub';
import { secretValues } from '../../shared/platform/config';
import { doctorPassed } from '../doctor/check';
import { renderCheck, summary } from '../doctor/render';
import { runDoctor } from '../doctor/run-doctor';
import { CliError, EXIT, plural } from '../output';

interface DoctorOptions {
  target?: string[];
  file?: string;
  queue: boolean;
  functionTimeout: string;
  record?: string;
  keepIds?: boolean;
}

export function doctorCommand(cli: Cli): Command {
  const env = cli.io.env;
  return new Command('doctor')
    .description(
      'read-only pre-flight: credentials, each IAM permission the functions need, each target (LB, servers, pool, plan) and the queues; never writes',
    )
    .option('-t, --target <name>', 'only this target (repeatable, or comma-separated)', collect)
    .option('-f, --file <path>', 'targets file (instead of LBSYNC_TARGETS / LBSYNC_CONFIG)')
    .option('--no-queue', 'skip the queue checks (reachability, RedrivePolicy, visibility timeout)')
    .option(
      '--function-timeout <seconds>',
      "the reconcile function's timeout, which the queue's visibility timeout must exceed (default: LBSYNC_FUNCTION_TIMEOUT_MS / 1000, else 60)",
      defaultFunctionTimeoutSeconds(env),
    )
    .option(
      '--record <file>',
      'also write every request to the Scaleway API and its answer as a go-vcr cassette, scrubbed: no key or token; ids, names, tags and addresses replaced consistently (docs/emulator.md, "Recordings from the field")',
    )
    .option('--keep-ids', 'with --record: keep ids, names, tags and addresses as they are (secrets are still scrubbed)')
    .addHelpText(
      'after',
      helpText(
        [
          'lbsync doctor',
          'lbsync doctor -t prod.k8s.local --no-queue',
          'lbsync doctor --no-queue --record doctor.cassette.yaml',
          'lbsync doctor -o json | jq \'.checks[] | select(.status != "ok")\'',
        ],
        [
          [0, 'every check passed (warnings allowed)'],
          [1, 'at least one check failed (each failure has a hint)'],
          [64, 'bad flags, or a --target the configuration lacks'],
        ],
        '{ok, command: "doctor", checks: [{name, status: "ok"|"fail"|"warn", detail, hint?}], recording?: {file, interactions}}',
      ),
    )
    .action(
      act<DoctorOptions>(cli, async (options, out) => {
        const functionTimeoutSeconds = wholeNumber('--function-timeout', options.functionTimeout, { min: 1, unit: 'seconds' });
        if (options.keepIds && !options.record) throw new CliError('usage', '--keep-ids only goes with --record <file>');
        const recordTo = options.record === undefined ? undefined : checkRecordPath(options.record);
        const recorder = recordTo === undefined ? undefined : collectExchanges();
        const checks = await runDoctor({
          env: cli.io.env,
          ...(options.target && { targets: options.target }),
          ...(options.file && { file: options.file }),
          queue: options.queue,
          functionTimeoutSeconds,
          ...(recorder && { recorder }),
          protect: cli.protect,
        });
        const passed = doctorPassed(checks);
        // The run's credentials and tokens: those of the environment, and the key the requests were sent with (it may come
        // from a profile of the scw config file).
        const scrubber = createScrubber([...secretValues(cli.io.env), ...(recorder?.secrets() ?? [])]);
        const recording =
          recordTo !== undefined && recorder
            ? {
                file: recordTo,
                interactions: writeCassette(recordTo, recorder.exchanges(), { keepIds: options.keepIds === true, scrubber }),
              }
            : undefined;
        if (out.format === 'json') {
          out.result(passed, { checks, ...(recording && { recording }) });
        } else {
          for (const check of checks) for (const line of renderCheck(check, out.c)) out.line(line);
          out.note(summary(checks, options.queue));
          if (recording)
            out.note(
              `recorded ${plural(recording.interactions, 'request')} to the Scaleway API in ${recording.file} (${options.keepIds ? 'secrets scrubbed, ids kept' : 'secrets scrubbed, ids, names, tags and addresses replaced'}; see docs/emulator.md to send it in)`,
            );
        }
        return passed ? EXIT.ok : EXIT.error;
      }),
    );
}
