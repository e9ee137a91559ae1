import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { EmulatorSeed } from '../../emulator';
import { DEMO_HEALTH_TIMING, EMULATED_APIS, parseDenial, startEmulator } from '../../emulator';
import { readBehaviours } from '../../emulator/behaviours';
import type { Cli } from '../command';
import { act, collect, helpText } from '../command';
import { CliError, EXIT } from '../output';

interface EmulatorOptions {
  port: string;
  host: string;
  seed?: string;
  deny?: string[];
  instancePendingMs?: string;
  latencyMs?: string;
  auditDelayMs?: string;
  auth: boolean;
  behaviours?: string;
}

/** Seeds shipped with the emulator, by name: demo (the local stack's cluster), kops-made (an LB exactly as kOps makes it). */
const NAMED_SEEDS: Record<string, URL> = {
  demo: new URL('../../emulator/seeds/demo.json', import.meta.url),
  'kops-made': new URL('../../emulator/seeds/kops-made.json', import.meta.url),
};

const whole = (name: string, text: string | undefined): number | undefined => {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new CliError('usage', `${name} must be a non-negative whole number, got "${text}"`);
  return n;
};

function readBehavioursFlag(text: string | undefined) {
  if (text === undefined) return undefined;
  try {
    return readBehaviours(JSON.parse(text));
  } catch (error) {
    throw new CliError('usage', `--behaviours: ${(error as Error).message}`);
  }
}

/** The targets to use each named seed's world with (a seed of your own: yours). */
const SEED_TARGETS: Record<string, unknown[]> = {
  demo: [{ kops: { cluster: 'demo.k8s.local', zone: 'fr-par-1' } }],
  'kops-made': [{ kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1' } }],
};

/** The local fake key the emulator accepts (any key of the right shape does; this one is in the docs). */
const LOCAL_KEY = { access: 'SCWXXXXXXXXXXXXXXXXX', secret: '00000000-0000-4000-8000-000000000000' };

/** The shell line to point the lbsync CLI (and the SDKs) at this emulator, as `npm start` prints its own. */
function environmentLine(url: string, seed: string | undefined): string {
  const targets = seed ? SEED_TARGETS[seed] : undefined;
  return [
    `SCW_API_URL='${url}'`,
    `SCW_ACCESS_KEY='${LOCAL_KEY.access}'`,
    `SCW_SECRET_KEY='${LOCAL_KEY.secret}'`,
    `SCW_DEFAULT_ORGANIZATION_ID='00000000-0000-4000-8000-000000000001'`,
    ...(targets ? [`LBSYNC_TARGETS='${JSON.stringify(targets)}'`] : []),
  ].join(' ');
}

function readSeed(path: string | undefined): EmulatorSeed | undefined {
  if (!path || path === 'none') return undefined;
  try {
    return JSON.parse(readFileSync(NAMED_SEEDS[path] ?? path, 'utf8')) as EmulatorSeed;
  } catch (error) {
    throw new CliError(
      'invalid_seed',
      `cannot read the seed ${path}: ${(error as Error).message}`,
      `give a JSON emulator seed (see emulator/seeds/), or one of: ${Object.keys(NAMED_SEEDS).join(', ')}`,
    );
  }
}

function denial(text: string) {
  try {
    return parseDenial(text);
  } catch (error) {
    throw new CliError(
      'usage',
      `--deny ${text.includes(':') ? `${text.slice(0, text.indexOf(':') + 1)}…` : text}: ${(error as Error).message}`,
    );
  }
}

/** Resolves on SIGINT/SIGTERM, or when the signal passed in aborts (tests). */
function untilStopped(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export function emulatorCommand(cli: Cli, stopSignal?: AbortSignal): Command {
  return new Command('emulator')
    .description('run the Scaleway LB + Instance + IPAM + Audit Trail API emulator alone, on loopback, until Ctrl-C')
    .option('--port <port>', 'port to listen on (0: any free port)', '8090')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option(
      '--seed <file>',
      'JSON seed (LBs, servers, IPAM IPs), or "demo" (the demo kOps cluster, backend missing: the default), "kops-made" (an LB exactly as kOps makes it), or "none" (an empty world)',
      'demo',
    )
    .option('--instance-pending-ms <ms>', 'how long LB instances stay pending after a write (default 400, as recorded)')
    .option(
      '--behaviours <json>',
      'switches for the behaviours no recording shows, e.g. \'{"writesWhileTransient":"accept"}\' (docs/emulator.md)',
    )
    .option('--latency-ms <ms>', 'added to every answer')
    .option('--audit-delay-ms <ms>', 'how long before a change shows in Audit Trail ListEvents (assumed; default 30000)')
    .option('--no-auth', 'accept requests without X-Auth-Token')
    .option(
      '--deny <api:secret-key>',
      `answer 403 permissions_denied to the key with this secret key on one API (${EMULATED_APIS.join(', ')}); repeatable; fake local keys only`,
      collect,
    )
    .addHelpText(
      'after',
      helpText(
        [
          'lbsync emulator                    # the demo world; prints the export line for the CLI',
          'lbsync emulator --seed kops-made   # then: lbsync plan with {"kops":{"cluster":"prod.k8s.local","zone":"fr-par-1"}}',
          'lbsync emulator --port 0 --seed my-seed.json --instance-pending-ms 200',
          'SCW_API_URL=http://127.0.0.1:8090 SCW_ACCESS_KEY=SCWXXXXXXXXXXXXXXXXX SCW_SECRET_KEY=00000000-0000-4000-8000-000000000000 lbsync plan',
        ],
        [
          [0, 'stopped by Ctrl-C / SIGTERM'],
          [1, 'could not start (port in use, bad seed)'],
          [64, 'bad flags'],
        ],
        '{ok, command: "emulator", url, stateUrl, environment} once it listens (then it runs until stopped)',
      ),
    )
    .action(
      act<EmulatorOptions>(cli, async (options, out) => {
        const seed = readSeed(options.seed);
        // The demo world's LB checks take their time, as in `npm start`: a replacement shows make-before-break.
        const behaviours = readBehavioursFlag(options.behaviours) ?? (options.seed === 'demo' ? { ...DEMO_HEALTH_TIMING } : undefined);
        const emulator = await startEmulator({
          host: options.host,
          port: whole('--port', options.port),
          ...(seed && { seed }),
          instancePendingMs: whole('--instance-pending-ms', options.instancePendingMs),
          latencyMs: whole('--latency-ms', options.latencyMs),
          auditTrailDelayMs: whole('--audit-delay-ms', options.auditDelayMs),
          requireAuth: options.auth,
          behaviours,
          denyApis: (options.deny ?? []).map(denial),
        });
        const line = environmentLine(emulator.url, options.seed);
        if (out.format === 'json') out.result(true, { url: emulator.url, stateUrl: `${emulator.url}/_emulator/state`, environment: line });
        else out.line(emulator.url);
        out.note(
          out.ce.dim(
            `Scaleway API emulator on ${emulator.url} (state: ${emulator.url}/_emulator/state), serving ${options.seed === 'none' ? 'an empty world' : `the ${options.seed} world`}. Ctrl-C stops it.`,
          ),
        );
        out.note(
          `The lbsync CLI against it, from the clone (local, fake credentials):\n  export ${line}\n  lbsync doctor --no-queue; lbsync plan; lbsync status --watch`,
        );
        await untilStopped(stopSignal);
        await emulator.stop();
        return EXIT.ok;
      }),
    );
}
