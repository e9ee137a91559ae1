// serverless.yml against the project's own checks (scripts/validate-serverless.mjs) and the code's own
// parsers: the committed file must pass, and each way of breaking the project's wiring must be caught.
// What the real tools check (osls packaging, the plugin's validation and output) is serverless-package.test.ts.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { sweepArgsSchema } from '../../../shared/handlers/sweep-request';
import { watchArgsSchema } from '../../../shared/handlers/watch-request';
import { auditTrailSettingsFromEnv, loadTargets, runtimeConfigFromEnv } from '../../../shared/platform/config';

const root = join(import.meta.dirname, '..', '..', '..');
const committed = readFileSync(join(root, 'serverless.yml'), 'utf8');

interface Validation {
  ok: boolean;
  errors: string[];
  warnings: string[];
  deployerEnv: string[];
  resolved: {
    provider: { env: Record<string, string> };
    functions: Record<string, { env?: Record<string, string>; events?: { schedule?: { input?: unknown } }[] }>;
  };
}

/** A complete (fake) deployer environment: every ${env:...} without a fallback is set. */
const deployEnv: Record<string, string> = {
  SCW_SECRET_KEY: '00000000-0000-4000-8000-0000000000aa',
  SCW_DEFAULT_PROJECT_ID: '00000000-0000-4000-8000-0000000000bb',
  RECONCILE_QUEUE_URL: 'https://sqs.mnq.fr-par.scaleway.com/project-00000000-0000-4000-8000-0000000000bb/lbsync-reconcile',
  DEAD_LETTER_QUEUE_URL: 'https://sqs.mnq.fr-par.scaleway.com/project-00000000-0000-4000-8000-0000000000bb/lbsync-dead-letter',
  LBSYNC_TARGETS: JSON.stringify([{ kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1' } }]),
  SQS_ACCESS_KEY_ID: 'queues-access-key',
  SQS_SECRET_ACCESS_KEY: 'queues-secret-key',
  LBSYNC_SCW_ACCESS_KEY: 'SCW0000000000000000A',
  LBSYNC_SCW_SECRET_KEY: '00000000-0000-4000-8000-0000000000cc',
  INJECT_TOKEN: 'inject-token-0123456789',
  SCW_DEFAULT_ORGANIZATION_ID: '00000000-0000-4000-8000-0000000000dd',
  LBSYNC_WATCH_SCW_ACCESS_KEY: 'SCW0000000000000000W',
  LBSYNC_WATCH_SCW_SECRET_KEY: '00000000-0000-4000-8000-0000000000ee',
};

let dir: string;
let written = 0;

/** Runs the validator once over several YAML texts; the environment is only what is given (no leaks from this shell). */
function validateAll(yamlTexts: string[], env: Record<string, string> = {}, args: string[] = []): Validation[] {
  const files = yamlTexts.map((text) => {
    const file = join(dir, `serverless-${written++}.yml`);
    writeFileSync(file, text);
    return file;
  });
  const argv = ['scripts/validate-serverless.mjs', ...files.flatMap((f) => ['--config', f]), '--root', root, '--json', ...args];
  let stdout: string;
  try {
    stdout = execFileSync(process.execPath, argv, { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  } catch (error) {
    const failed = error as { status?: number; stdout?: string; stderr?: string };
    if (failed.status !== 1 || !failed.stdout)
      throw new Error(`validate-serverless could not run (exit ${failed.status}): ${failed.stderr ?? String(error)}`);
    stdout = failed.stdout;
  }
  const parsed = JSON.parse(stdout) as Validation | Validation[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

const validate = (yamlText: string, env: Record<string, string> = {}, args: string[] = []): Validation =>
  validateAll([yamlText], env, args)[0]!;

type Config = {
  provider: Record<string, unknown> & { env: Record<string, unknown>; secret: Record<string, unknown> };
  functions: Record<
    string,
    Record<string, unknown> & {
      env?: Record<string, unknown>;
      secret?: Record<string, unknown>;
      events?: Record<string, Record<string, unknown>>[];
    }
  >;
};

function mutated(change: (config: Config) => void): string {
  const config = parse(committed) as Config;
  change(config);
  return stringify(config);
}

function effectiveEnv(result: Validation, name: string): Record<string, string> {
  return { ...result.resolved.provider.env, ...(result.resolved.functions[name]?.env ?? {}) };
}

// dist/ is built by the global setup (test/support/build-bundles.ts).
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lbsync-serverless-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serverless.yml as committed', () => {
  it('passes every offline check, with the deployment values left to the environment', () => {
    const result = validate(committed);
    expect(result.errors).toEqual([]);
    expect(result.deployerEnv).toEqual(expect.arrayContaining(['RECONCILE_QUEUE_URL', 'LBSYNC_SCW_SECRET_KEY', 'INJECT_TOKEN']));
    // LBSYNC_TARGETS falls back to empty: a fleet whose targets the build ships (--targets) leaves it unset.
    expect(result.deployerEnv).not.toContain('LBSYNC_TARGETS');
    expect(result.resolved.provider.env.LBSYNC_TARGETS).toBe('');
  });

  it('warns when the code cache was made by another Node than the runtime (the functions would start without it)', () => {
    const major = Number(process.versions.node.split('.')[0]);
    const [same, other] = validateAll([
      mutated((c) => {
        c.provider.runtime = `node${major}`;
      }),
      mutated((c) => {
        c.provider.runtime = `node${major === 22 ? 20 : 22}`;
      }),
    ]);
    expect(same!.warnings).toEqual([]);
    expect(other!.ok).toBe(true);
    expect(other!.warnings).toEqual(
      expect.arrayContaining([expect.stringContaining(`dist/reconcile: the V8 code cache was made by Node ${process.version}`)]),
    );
  });

  it('refuses a handler that exports handle only to require() (a spread hides it from import()), or not at all', () => {
    const copy = join(dir, `root-${written++}`);
    cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
    writeFileSync(
      join(copy, 'dist', 'sweep', 'handler.js'),
      'const loaded = { handle: async () => ({ statusCode: 200 }) };\nmodule.exports = { ...loaded };\n',
    );
    writeFileSync(join(copy, 'dist', 'watch', 'handler.js'), 'module.exports = { codeCache: false };\n');
    const result = validate(committed, {}, ['--root', copy]);
    expect(result.errors).toEqual([
      'functions.sweep.handler: dist/sweep/handler.js exports "handle" to require() but not to import() (assign module.exports.handle by name): a runtime that imports handlers would start no function',
      'functions.watch.handler: dist/watch/handler.js does not export a function "handle"',
    ]);
  });

  it('sizes every function for the 128 MB tier, with the node options the code cache is made under', () => {
    const config = parse(committed) as Config;
    expect(Object.values(config.functions).map((f) => f.memoryLimit)).toEqual(Object.keys(config.functions).map(() => 128));
    const manifest = JSON.parse(readFileSync(join(root, 'dist', 'reconcile', 'bundle.cache.json'), 'utf8')) as { flags: string };
    expect(manifest.flags).toBe(config.provider.env.NODE_OPTIONS);
  });

  it('passes the pre-deploy check once the deployer environment is complete, and the functions accept what it gives them', () => {
    const result = validate(committed, deployEnv, ['--require-env']);
    expect(result.errors).toEqual([]);
    for (const name of ['reconcile', 'inject', 'sweep', 'watch']) {
      const env = { ...effectiveEnv(result, name), ...deployEnv };
      expect(() => runtimeConfigFromEnv(env)).not.toThrow();
      expect(loadTargets(env).map((t) => t.name)).toEqual(['prod.k8s.local']);
    }
    // The watch function gets the organization, and its own key (the deployer's LBSYNC_WATCH_* names).
    const watchEnv = effectiveEnv(result, 'watch');
    const watchSecrets = {
      LBSYNC_SCW_ACCESS_KEY: deployEnv.LBSYNC_WATCH_SCW_ACCESS_KEY,
      LBSYNC_SCW_SECRET_KEY: deployEnv.LBSYNC_WATCH_SCW_SECRET_KEY,
    };
    expect(auditTrailSettingsFromEnv({ ...watchEnv, ...watchSecrets })).toMatchObject({
      organizationId: deployEnv.SCW_DEFAULT_ORGANIZATION_ID,
      accessKey: deployEnv.LBSYNC_WATCH_SCW_ACCESS_KEY,
    });
    expect(runtimeConfigFromEnv(watchEnv).watch).toEqual({ periodMs: 60_000, overlapMs: 120_000 });
    expect(runtimeConfigFromEnv(effectiveEnv(result, 'sweep')).sweepSpreadMs).toBe(300_000);
    const input = result.resolved.functions.sweep?.events?.[0]?.schedule?.input;
    expect(sweepArgsSchema.safeParse(input).success).toBe(true);
    expect(watchArgsSchema.safeParse(result.resolved.functions.watch?.events?.[0]?.schedule?.input).success).toBe(true);
  });

  it('reports every missing deployment value under --require-env', () => {
    const result = validate(committed, {}, ['--require-env']);
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual(expect.arrayContaining([expect.stringContaining('INJECT_TOKEN is not set')]));
  });

  it('a serverless.yml without LBSYNC_TARGETS, while the build ships no targets, is told at once (no values needed to know)', () => {
    const result = validate(mutated((c) => delete c.provider.env.LBSYNC_TARGETS));
    expect(result.errors).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own variable syntax, not a JS template
      "serverless.yml does not provide LBSYNC_TARGETS and the build ships no targets (dist/targets.json): the functions would not start; add LBSYNC_TARGETS: ${env:LBSYNC_TARGETS, ''} under provider.env, or build with npm run build -- --targets FILE",
    ]);
  });

  it('under --require-env, no targets at all (LBSYNC_TARGETS unset and none shipped in dist/) is told with both ways to give them', () => {
    const { LBSYNC_TARGETS: _targets, ...withoutTargets } = deployEnv;
    const result = validate(committed, withoutTargets, ['--require-env']);
    expect(result.errors).toEqual([
      'LBSYNC_TARGETS is empty and the build ships no targets (dist/targets.json): the functions would not start; set LBSYNC_TARGETS, or build with npm run build -- --targets FILE',
    ]);
  });
});

describe("variables, resolved by the Serverless Framework's own resolver (osls)", () => {
  it('self:, chains of env: and fallbacks resolve as `serverless print` resolves them; an unset one is named; ssm: is refused offline', () => {
    const config = mutated((c) => {
      (c as Record<string, unknown>).custom = { logLevel: 'debug' };
      // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own variable syntax, not a JS template
      c.provider.env.LOG_LEVEL = '${self:custom.logLevel}';
      // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own variable syntax, not a JS template
      c.functions.sweep!.env!.LBSYNC_SWEEP_SPREAD_MS = "${env:SPREAD_FIRST, env:SPREAD_SECOND, '300000'}";
      // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own variable syntax, not a JS template
      c.functions.watch!.env!.LBSYNC_WATCH_OVERLAP_MS = '${ssm:/lbsync/overlap}';
    });
    const result = validate(config, { ...deployEnv, SPREAD_SECOND: '120000' }, ['--require-env']);
    expect(result.resolved.provider.env.LOG_LEVEL).toBe('debug');
    expect(effectiveEnv(result, 'sweep').LBSYNC_SWEEP_SPREAD_MS).toBe('120000');
    expect(result.errors).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own variable syntax, not a JS template
      expect.stringContaining('functions.watch.env.LBSYNC_WATCH_OVERLAP_MS: ${ssm:/lbsync/overlap} uses a variable source'),
    ]);
    const { INJECT_TOKEN, ...withoutToken } = deployEnv;
    const missing = validate(config, { ...withoutToken, SPREAD_SECOND: '120000' }, ['--require-env']);
    expect(missing.deployerEnv).toEqual(['INJECT_TOKEN']);
    expect(missing.errors).toEqual(
      expect.arrayContaining(['INJECT_TOKEN is not set in this environment (used at functions.inject.secret.INJECT_TOKEN)']),
    );
  });
});

describe('serverless.yml broken', () => {
  const cases: [string, (c: Config) => void, string][] = [
    [
      'a handler path with no bundle',
      (c) => {
        c.functions.inject!.handler = 'dist/inject/handlers.handle';
      },
      'functions.inject.handler',
    ],
    [
      'a handler pointing at another bundle',
      (c) => {
        c.functions.inject!.handler = 'dist/sweep/handler.handle';
      },
      'the bundle of inject is dist/inject/handler.handle',
    ],
    [
      "a handler export other than the bundle's",
      (c) => {
        c.functions.sweep!.handler = 'dist/sweep/handler.main';
      },
      'the bundle of sweep is dist/sweep/handler.handle',
    ],
    [
      'a reserved SCW_ name',
      (c) => {
        c.functions.reconcile!.secret = {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own ${env:...} variable syntax, not a JS template
          SCW_SECRET_KEY: '${env:LBSYNC_SCW_SECRET_KEY}',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own ${env:...} variable syntax, not a JS template
          LBSYNC_SCW_ACCESS_KEY: '${env:LBSYNC_SCW_ACCESS_KEY}',
        };
      },
      'SCW_* names are reserved',
    ],
    [
      'sweep args the handler refuses',
      (c) => {
        c.functions.sweep!.events = [{ schedule: { rate: '0 * * * *', input: { target: 'prod' } } }];
      },
      "the sweep's input accepts only targets, dryRun, spreadSeconds",
    ],
    [
      'a public inject',
      (c) => {
        c.functions.inject!.privacy = 'public';
      },
      'functions.inject.privacy must be "private"',
    ],
    [
      'a function above the tier the bench measured',
      (c) => {
        c.functions.reconcile!.memoryLimit = 256;
      },
      'functions.reconcile.memoryLimit is 256 MB; every function is sized for 128 MB',
    ],
    [
      'node options other than the code cache was made under',
      (c) => {
        c.provider.env.NODE_OPTIONS = '--max-old-space-size=64';
      },
      'provider.env.NODE_OPTIONS must be "--max-semi-space-size=1 --max-old-space-size=64"',
    ],
    [
      'no node options',
      (c) => {
        delete c.provider.env.NODE_OPTIONS;
      },
      'NODE_OPTIONS is required',
    ],
    [
      'a credential as a plain variable',
      (c) => {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own ${env:...} variable syntax, not a JS template
        c.provider.env.SQS_SECRET_ACCESS_KEY = '${env:SQS_SECRET_ACCESS_KEY}';
        delete c.provider.secret.SQS_SECRET_ACCESS_KEY;
      },
      'a credential; move it under "secret"',
    ],
    [
      'the LB credential on every function',
      (c) => {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own ${env:...} variable syntax, not a JS template
        c.provider.secret.LBSYNC_SCW_SECRET_KEY = '${env:LBSYNC_SCW_SECRET_KEY}';
      },
      'only reconcile, watch needs it',
    ],
    [
      'no watch function',
      (c) => {
        delete c.functions.watch;
      },
      'functions: missing watch',
    ],
    [
      'a watch without its organization',
      (c) => {
        delete c.functions.watch!.env!.LBSYNC_SCW_DEFAULT_ORGANIZATION_ID;
      },
      'LBSYNC_SCW_DEFAULT_ORGANIZATION_ID is required by the watch bundle',
    ],
    [
      'a watch every 5 minutes reading 1-minute windows',
      (c) => {
        c.functions.watch!.events = [{ schedule: { rate: '0,5,10,15,20,25,30,35,40,45,50,55 * * * *', input: {} } }];
      },
      'leaves up to 5 min between runs',
    ],
    [
      'a watch only during office hours',
      (c) => {
        c.functions.watch!.events = [{ schedule: { rate: '* 8-18 * * *', input: {} } }];
      },
      'must run every hour of every day',
    ],
    [
      'watch args the handler refuses',
      (c) => {
        c.functions.watch!.events = [{ schedule: { rate: '* * * * *', input: { spreadSeconds: 10 } } }];
      },
      "the watch's input accepts only targets, dryRun",
    ],
    [
      'a paced sweep longer than its timeout',
      (c) => {
        c.functions.sweep!.timeout = '120s';
      },
      'needs a timeout of at least 330s',
    ],
    [
      'a required variable left out',
      (c) => {
        delete c.provider.env.RECONCILE_QUEUE_URL;
      },
      'RECONCILE_QUEUE_URL is required',
    ],
    [
      'a misspelt variable',
      (c) => {
        c.provider.env.LBSYNC_TARGET = 'x';
      },
      'no bundle reads LBSYNC_TARGET',
    ],
    [
      'the local-only insecure switch',
      (c) => {
        c.functions.inject!.env = { LBSYNC_INJECT_INSECURE: 'true' };
      },
      'must not be deployed',
    ],
    [
      'a hold longer than the timeout allows',
      (c) => {
        c.functions.reconcile!.env!.LBSYNC_MAX_HOLD_MS = '50000';
      },
      'exceed the 60 s timeout',
    ],
    [
      'a timeout the function does not know',
      (c) => {
        c.functions.reconcile!.timeout = '120s';
      },
      "LBSYNC_FUNCTION_TIMEOUT_MS is 60000 but the timeout is 120 s; set it to '120000'",
    ],
    [
      'no LBSYNC_FUNCTION_TIMEOUT_MS',
      (c) => {
        delete c.functions.reconcile!.env!.LBSYNC_FUNCTION_TIMEOUT_MS;
      },
      "set env LBSYNC_FUNCTION_TIMEOUT_MS to '60000'",
    ],
    [
      'no queue trigger on reconcile',
      (c) => {
        c.functions.reconcile!.events = [];
      },
      'exactly one sqs trigger',
    ],
  ];

  let results: Validation[] = [];
  beforeAll(() => {
    results = validateAll(cases.map(([, change]) => mutated(change)));
  });

  it.each(cases.map((c, i) => [c[0], i, c[2]] as const))('%s', (_label, index, expected) => {
    const result = results[index]!;
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual(expect.arrayContaining([expect.stringContaining(expected)]));
  });

  it('a reconcile queue URL that is not the queue the trigger reads', () => {
    const env = { ...deployEnv, RECONCILE_QUEUE_URL: deployEnv.RECONCILE_QUEUE_URL!.replace('lbsync-reconcile', 'other-reconcile') };
    const result = validate(committed, env);
    expect(result.errors).toEqual(
      expect.arrayContaining([expect.stringContaining('the trigger reads "lbsync-reconcile" but RECONCILE_QUEUE_URL points at')]),
    );
  });

  it('targets longer than a plain variable may hold', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ kops: { cluster: `cluster-${i}.k8s.local`, zone: 'fr-par-1' } }));
    const result = validate(committed, { ...deployEnv, LBSYNC_TARGETS: JSON.stringify(many) });
    expect(result.errors).toEqual(expect.arrayContaining([expect.stringContaining('provider.env.LBSYNC_TARGETS')]));
  });
});

describe("a fleet: the targets' own keys, named by the targets", () => {
  const fleetTargets = JSON.stringify([
    { kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1' } },
    {
      kops: {
        cluster: 'team-b.k8s.local',
        zone: 'fr-par-1',
        credentials: { accessKeyEnv: 'TEAM_B_ACCESS_KEY', secretKeyEnv: 'TEAM_B_SECRET_KEY' },
      },
    },
  ]);
  const fleetEnv = {
    ...deployEnv,
    LBSYNC_TARGETS: fleetTargets,
    TEAM_B_ACCESS_KEY: 'SCW00000000000000TMB',
    TEAM_B_SECRET_KEY: '00000000-0000-4000-8000-0000000000fb',
  };
  /** The team's key under `kind` on each of these functions. */
  const withTeamKey = (functions: string[], kind: 'env' | 'secret' = 'secret', names = ['TEAM_B_ACCESS_KEY', 'TEAM_B_SECRET_KEY']) =>
    mutated((c) => {
      for (const name of functions) {
        const map = Object.fromEntries(names.map((n) => [n, `\${env:${n}}`]));
        const fn = c.functions[name] as Record<string, Record<string, unknown> | undefined>;
        fn[kind] = { ...(fn[kind] ?? {}), ...map };
      }
    });

  it('deployed as secrets on reconcile and watch: valid, offline and with the deployer environment', () => {
    const [offline] = validateAll([withTeamKey(['reconcile', 'watch'])]);
    expect(offline!.errors).toEqual([]);
    const complete = validate(withTeamKey(['reconcile', 'watch']), fleetEnv, ['--require-env']);
    expect(complete.errors).toEqual([]);
    // The secrets never appear in what the checker prints back.
    expect(JSON.stringify(complete)).not.toContain(fleetEnv.TEAM_B_SECRET_KEY);
  });

  it('each way of getting them wrong is named', () => {
    const cases: [string, string, string][] = [
      [
        withTeamKey(['reconcile']),
        'functions.watch: TEAM_B_ACCESS_KEY is named by target "team-b.k8s.local" (credentials.accessKeyEnv) and serverless.yml does not provide it under "secret"',
        'watch lacks it',
      ],
      [
        withTeamKey(['reconcile', 'watch'], 'secret', ['TEAM_B_ACCESS_KEY']),
        'functions.reconcile: TEAM_B_SECRET_KEY is named by target "team-b.k8s.local" (credentials.secretKeyEnv)',
        'one half missing',
      ],
      [
        withTeamKey(['reconcile', 'watch'], 'env'),
        'functions.reconcile.env.TEAM_B_SECRET_KEY: a credential named by target "team-b.k8s.local" (credentials.secretKeyEnv); move it under "secret"',
        'a plain variable',
      ],
      [
        withTeamKey(['reconcile', 'watch', 'sweep']),
        "functions.sweep.secret.TEAM_B_ACCESS_KEY: a target's key; only reconcile, watch need it",
        'on a function that reads none',
      ],
      [
        withTeamKey(['reconcile', 'watch'], 'secret', ['TEAM_B_ACCESS_KEY', 'TEAM_B_SECRET_KEY', 'TEAM_C_ACCESS_KEY']),
        "functions.reconcile.secret.TEAM_C_ACCESS_KEY: no bundle reads TEAM_C_ACCESS_KEY, and no target's credentials name it",
        'a key no target names',
      ],
    ];
    const results = validateAll(
      cases.map(([yaml]) => yaml),
      { ...fleetEnv, TEAM_C_ACCESS_KEY: 'SCW00000000000000TMC' },
    );
    cases.forEach(([, expected, label], i) => {
      expect(results[i]!.errors, label).toEqual(expect.arrayContaining([expect.stringContaining(expected)]));
    });
    // Offline (the targets unknown), a plain variable no bundle reads says it could be a target's key.
    const [offline] = validateAll([withTeamKey(['reconcile'], 'env')]);
    expect(offline!.errors).toEqual(
      expect.arrayContaining([expect.stringContaining("if a target's credentials name it, it is a credential")]),
    );
  });
});
