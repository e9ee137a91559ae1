import { Command, Option } from 'commander';
import type { LbSyncEvent } from '../../shared/schemas/event';
import { completeEvent, parseEvent } from '../../shared/schemas/event';
import { INJECTABLE_SOURCES, type InjectableSource } from '../../shared/schemas/event-sources';
import { enqueueEvents } from '../../shared/handlers/enqueue-events';
import type { Cli } from '../command';
import { act, collect, helpText } from '../command';
import { createScrubber } from '../../shared/outbound/scrub';
import type { HttpAnswer } from '../adapters/http-call';
import { httpCall, isObject, unexpectedAnswer } from '../adapters/http-call';
import { isJsonType, mediaType } from '../../shared/adapters/http-messages';
import { configuredTargets, queueFor, selectTargets, targetsConfigured } from '../environment';
import { CliError, EXIT } from '../output';
import type { CommandErrorCode, ErrorCode } from '../../shared/errors/lbsync-error';
import { COMMAND_ERROR_CATALOG, ERROR_CATALOG } from '../../shared/errors/lbsync-error';
import { readSecret } from '../secrets';

interface InjectOptions {
  target: string;
  serverIps?: string[];
  dryRun?: boolean;
  source: InjectableSource;
  url?: string;
  tokenEnv: string;
  tokenFile?: string;
  functionTokenEnv: string;
  functionTokenFile?: string;
  queue?: boolean;
}

/** Built and validated here, so a bad --server-ips fails before anything is sent. */
function buildEvent(options: InjectOptions): LbSyncEvent {
  return parseEvent(
    completeEvent({
      source: options.source,
      target: options.target,
      ...(options.serverIps && { serverIps: options.serverIps }),
      ...(options.dryRun && { dryRun: true }),
    }),
  );
}

function callerFields(event: LbSyncEvent): Omit<LbSyncEvent, 'attempt' | 'notBefore' | 'firstAttemptAt'> {
  const { attempt: _attempt, notBefore: _notBefore, firstAttemptAt: _firstAttemptAt, ...rest } = event;
  return rest;
}

const PRIVATE_FUNCTION_HINT =
  'a private function needs X-Auth-Token: the secret key of an IAM application with FunctionsPrivateAccess (or a function token) ' +
  'in FUNCTION_TOKEN or a file (--function-token-env, --function-token-file); inject itself checks Authorization: Bearer <INJECT_TOKEN> (--token-env, --token-file)';

interface Credentials {
  /** Authorization: Bearer, checked by the inject function itself. */
  token: string;
  /** X-Auth-Token, checked by the platform in front of a private function. */
  functionToken?: string;
}

/** From sending the event to the last byte of the answer. */
const INJECT_TIMEOUT_MS = 15_000;

async function postToFunction(url: string, credentials: Credentials, event: LbSyncEvent): Promise<string> {
  let answer: HttpAnswer;
  try {
    answer = await httpCall('POST', url, {
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${credentials.token}`,
        ...(credentials.functionToken && { 'X-Auth-Token': credentials.functionToken }),
      },
      // Only what a caller may say: attempt (and notBefore, firstAttemptAt) are the system's, and inject refuses them.
      body: JSON.stringify(callerFields(event)),
      timeoutMs: INJECT_TIMEOUT_MS,
      scrubber: createScrubber([credentials.token, credentials.functionToken]),
    });
  } catch (error) {
    throw new CliError(
      'inject_unreachable',
      `could not reach the inject function: ${(error as Error).message}`,
      "check the URL (the function's endpoint) and the network; nothing is known to be enqueued",
    );
  }
  const text = answer.body;
  let body: { eventId?: string; error?: string; message?: string; errors?: { path: string; message: string; fix: string }[] } = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) body = parsed as typeof body;
  } catch {
    // not JSON
  }
  if (answer.status === 202) {
    // The inject function's answer is JSON {eventId, target}: anything else is not known to be it.
    if (isJsonType(mediaType(answer.contentType)) && typeof body.eventId === 'string') return body.eventId;
    const unexpected = unexpectedAnswer('sending the event', 'POST', url, answer, 'JSON {"eventId", "target"} (the inject function)');
    throw new CliError(
      unexpected.code,
      unexpected.message,
      "check that the URL is the inject function's endpoint; the event is not known to be enqueued",
    );
  }
  if (answer.status === 401) {
    throw new CliError(
      'unauthorized',
      `the inject function refused the token (401)`,
      "the token must be the function's INJECT_TOKEN; check the variable named by --token-env (or the file given with --token-file)",
    );
  }
  if (answer.status === 403) {
    const which = credentials.functionToken ? 'refused the X-Auth-Token' : 'got no X-Auth-Token';
    throw new CliError('forbidden', `the platform ${which} (403): nothing was enqueued`, PRIVATE_FUNCTION_HINT);
  }
  const details = (body.errors ?? []).map((e) => `\n  ${e.path}: ${e.message}; fix: ${e.fix}`).join('');
  const summary = details ? (body.message ?? '').split('\n')[0] : (body.message ?? text.slice(0, 200));
  throw new CliError(
    answerCode(body.error),
    `the inject function answered ${answer.status}: ${summary}${details}`,
    answer.status >= 500 ? 'the function could not enqueue; try again, and check its logs' : undefined,
  );
}

/** The code the inject function's answer gives (its `error`), when it is one of ours; else inject_failed. */
function answerCode(code: unknown): ErrorCode | CommandErrorCode {
  if (typeof code === 'string' && (code in ERROR_CATALOG || code in COMMAND_ERROR_CATALOG)) return code as ErrorCode | CommandErrorCode;
  return 'inject_failed';
}

/**
 * A dry run's plan is made by the reconcile function when the event is delivered, not here: where to read it (its
 * answer line in the function's logs, by event id), and the command that makes the same plan now.
 */
function whereThePlanIs(eventId: string, target: string): { note: string; where: string[] } {
  return {
    note: 'dry run: the reconcile plans this event when the queue delivers it and writes nothing; its plan is its answer line',
    where: [
      `  in the reconcile function's logs: "outcome: dry_run, would write: ..." with event_id ${eventId}`,
      `  in Cockpit (Explore, the logs data source): {resource_type="serverless_function", resource_name="reconcile"} |= "${eventId}"`,
      `  the same plan, made now from here: lbsync plan -t ${target}`,
    ],
  };
}

export function injectCommand(cli: Cli): Command {
  return new Command('inject')
    .description(
      'send one event: POST it to the inject function (--url) or put it straight on RECONCILE_QUEUE_URL (--queue); prints the event id',
    )
    .requiredOption('-t, --target <name>', 'target the event names')
    .option(
      '--server-ips <ips>',
      'addresses that should be in the pool, comma-separated: checked against discovery by tags, never added otherwise',
      collect,
    )
    .option('--dry-run', 'the reconcile plans but does not write')
    .addOption(new Option('--source <source>', 'event source').choices(INJECTABLE_SOURCES).default('manual'))
    .option('--url <url>', "the inject function's URL")
    .option('--token-env <name>', 'environment variable holding the inject token (never pass the token itself)', 'INJECT_TOKEN')
    .option('--token-file <path>', 'file holding the inject token (wins over --token-env)')
    .option('--function-token-env <name>', 'environment variable holding the X-Auth-Token a private function needs', 'FUNCTION_TOKEN')
    .option('--function-token-file <path>', 'file holding the X-Auth-Token (wins over --function-token-env)')
    .option('--queue', 'send straight onto RECONCILE_QUEUE_URL with the SQS_* credentials')
    .addHelpText(
      'after',
      helpText(
        [
          'lbsync inject --target prod.k8s.local --url https://lbsyncxxxx-inject.functions.fnc.fr-par.scw.cloud --token-file /etc/lbsync/token --function-token-file /etc/lbsync/function-token',
          'INJECT_TOKEN=$(cat token) FUNCTION_TOKEN=$(cat iam-key) lbsync inject --target prod.k8s.local --url https://...',
          'lbsync inject --target prod.k8s.local --queue --source instance-replacement',
          'lbsync inject --target prod.k8s.local --queue --server-ips 51.15.1.2,51.15.1.3 --dry-run',
        ],
        [
          [0, 'the event was accepted (202) or enqueued; its id is printed'],
          [1, 'refused (401, 403, 400 with field errors), unreachable, or a configuration error'],
          [64, 'bad flags (give exactly one of --url and --queue), or, with --queue, a --target the configuration lacks'],
        ],
        '{ok, command: "inject", eventId, target, via: "function"|"queue"}',
      ),
    )
    .action(
      act<InjectOptions>(cli, async (options, out) => {
        const env = cli.io.env;
        if (!!options.url === !!options.queue)
          throw new CliError('usage', 'give exactly one of --url <url> and --queue', 'see `lbsync inject --help`');
        const event = buildEvent(options);
        let via: 'function' | 'queue';
        let eventId = event.id;
        if (options.url) {
          const token = readSecret(
            {
              what: 'inject token',
              ...(options.tokenFile && { file: options.tokenFile }),
              envName: options.tokenEnv,
              fileFlag: '--token-file',
              envFlag: '--token-env',
            },
            env,
            cli.protect,
          );
          if (!token)
            throw new CliError(
              'invalid_config',
              `${options.tokenEnv} is not set`,
              `export ${options.tokenEnv} with the inject function's token (e.g. ${options.tokenEnv}=$(cat /etc/lbsync/token)), or give --token-file`,
            );
          const functionToken = readSecret(
            {
              what: 'X-Auth-Token',
              ...(options.functionTokenFile && { file: options.functionTokenFile }),
              envName: options.functionTokenEnv,
              fileFlag: '--function-token-file',
              envFlag: '--function-token-env',
            },
            env,
            cli.protect,
          );
          eventId = await postToFunction(options.url, { token, ...(functionToken && { functionToken }) }, event);
          via = 'function';
        } else {
          // The inject function refuses unknown targets; on the queue they would only be dead-lettered.
          if (targetsConfigured(env)) selectTargets(configuredTargets(env), [event.target]);
          else out.note(out.ce.dim('LBSYNC_TARGETS/LBSYNC_CONFIG not set here: not checking that the target exists'));
          const q = queueFor(env, 'RECONCILE_QUEUE_URL');
          const { failure } = await enqueueEvents({ queue: () => q.queue, reconcileQueueUrl: q.url }, [{ event }]);
          if (failure) throw failure.error;
          via = 'queue';
        }
        const plan = options.dryRun ? whereThePlanIs(eventId, event.target) : undefined;
        if (out.format === 'json') out.result(true, { eventId, target: event.target, via, ...(plan && { dryRun: true, plan }) });
        else {
          out.line(eventId);
          out.note(
            out.ce.dim(
              `${via === 'function' ? 'accepted by the inject function' : 'enqueued on the reconcile queue'} for target ${event.target}`,
            ),
          );
          if (plan) for (const line of [plan.note, ...plan.where]) out.note(out.ce.dim(line));
        }
        return EXIT.ok;
      }),
    );
}
