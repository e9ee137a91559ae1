// `npm run package` (scripts/package-check.mjs): serverless.yml through the real osls and
// serverless-scaleway-functions, offline. The committed file packages exactly the bundles, passes the plugin's
// own validation in a dry-run deploy, and creates what it says; each way of breaking the deployment is caught.
// The archive it builds, unpacked into an empty folder, is loaded as the platform may load it: each handler under
// require() and under import(), on Node 20 and on Node 22 where a node22 binary is found.
// dist/ is built by the global setup (test/support/build-bundles.ts).
import { execFile } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  findNode22,
  type HandlerLoad,
  loadHandler,
  type NodeBinary,
  type PlatformRequest,
  unzipInto,
} from '../../support/unpacked-handlers';

const root = join(import.meta.dirname, '..', '..', '..');
const committed = readFileSync(join(root, 'serverless.yml'), 'utf8');
const RUN_TIMEOUT = 180_000;

interface DeployedFunction {
  name: string;
  runtime: string;
  memoryMb: number;
  timeout: string;
  scale: [number, number];
  privacy: string;
  httpOption: string;
  sandbox: string;
  env: string[];
  sentEmpty: string[];
  secrets: string[];
  triggers: string[];
}
interface PackageCheck {
  ok: boolean;
  errors: string[];
  archive?: { path: string; bytes: number; entries: string[] };
  functions: DeployedFunction[];
}
type ServerlessFunction = Record<string, unknown> & {
  memoryLimit?: number;
  timeout?: string;
  description?: string;
  env?: Record<string, unknown>;
  events?: unknown[];
};
type Config = { service: string; package: { patterns: string[] }; functions: Record<string, ServerlessFunction> };

// Plain .mjs modules without type declarations, loaded by URL.
const load = (path: string): Promise<Record<string, unknown>> =>
  import(new URL(path, import.meta.url).href) as Promise<Record<string, unknown>>;
let readZip: (archive: Buffer) => Promise<Map<string, Buffer>>;
let placeholderEnv: (config: unknown) => { env: Record<string, string> };
let outputs: { FUNCTION_OUTPUTS: string[]; SHARED_OUTPUTS: string[] };

async function packageCheck(dir: string): Promise<PackageCheck> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'scripts/package-check.mjs'), '--root', dir, '--json'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as PackageCheck;
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (failed.code !== 1 || !failed.stdout)
      throw new Error(`package-check could not run (exit ${failed.code}): ${failed.stderr ?? String(error)}`);
    return JSON.parse(failed.stdout) as PackageCheck;
  }
}

const copies: string[] = [];
/** A service directory like the repository's (serverless.yml, dist/, node_modules), to break without touching the repository. */
function serviceCopy(change: (config: Config) => void, files: (dir: string) => void = () => {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'lbsync-package-'));
  copies.push(dir);
  const config = parse(committed) as Config;
  change(config);
  writeFileSync(join(dir, 'serverless.yml'), stringify(config));
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  files(dir);
  return dir;
}

beforeAll(async () => {
  ({ readZip } = (await load('../../../scripts/serverless-check/zip.mjs')) as { readZip: typeof readZip });
  ({ placeholderEnv } = (await load('../../../scripts/serverless-check/placeholders.mjs')) as { placeholderEnv: typeof placeholderEnv });
  outputs = (await load('../../../scripts/build.mjs')) as typeof outputs;
});

afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

describe('npm run package on the committed serverless.yml, in the repository', () => {
  const config = parse(committed) as Config;
  let result: PackageCheck;
  beforeAll(async () => {
    result = await packageCheck(root);
  }, RUN_TIMEOUT);

  it('passes: the archive, the plugin validation and what the plugin would create', () => {
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('ships the bundle of every function and dist/package.json, byte for byte what npm run build wrote, and nothing else', async () => {
    const expected = [
      ...outputs.SHARED_OUTPUTS,
      ...Object.keys(config.functions).flatMap((name) => outputs.FUNCTION_OUTPUTS.map((file) => `dist/${name}/${file}`)),
    ].sort();
    expect(expected).toEqual(
      expect.arrayContaining([
        'dist/package.json',
        'dist/reconcile/handler.js',
        'dist/inject/handler.js',
        'dist/sweep/handler.js',
        'dist/watch/handler.js',
      ]),
    );
    const archive = readFileSync(join(root, '.serverless', `${config.service}.zip`));
    const files = await readZip(archive);
    expect([...files.keys()].sort()).toEqual(expected);
    expect(result.archive?.entries).toEqual(expected);
    for (const [path, content] of files) expect(content.equals(readFileSync(join(root, path))), path).toBe(true);
    // The deployment's values are never in the code: not one of the values serverless package was given.
    const placeholders = Object.values(placeholderEnv(parse(committed)).env);
    expect(placeholders.length).toBeGreaterThan(10);
    for (const value of placeholders) expect(archive.includes(value), value).toBe(false);
  });

  it('creates every function as serverless.yml sets it, private, on node22, with its secrets as secrets', () => {
    expect(result.functions.map((f) => f.name)).toEqual(Object.keys(config.functions));
    for (const fn of result.functions) {
      const declared = config.functions[fn.name]!;
      expect(fn).toMatchObject({
        runtime: 'node22',
        privacy: 'private',
        memoryMb: declared.memoryLimit,
        timeout: declared.timeout,
        httpOption: 'redirected',
        sandbox: 'v2',
      });
      expect(fn.env.filter((name) => fn.secrets.includes(name))).toEqual([]);
      expect(fn.secrets).toEqual(expect.arrayContaining(['SQS_ACCESS_KEY_ID', 'SQS_SECRET_ACCESS_KEY']));
    }
    const byName = Object.fromEntries(result.functions.map((f) => [f.name, f]));
    expect(byName.reconcile?.triggers).toEqual(['queue lbsync-reconcile (fr-par)']);
    expect(byName.inject?.triggers).toEqual([]);
    expect(byName.sweep?.triggers).toEqual(['cron "0,5,10,15,20,25,30,35,40,45,50,55 * * * *" args {}']);
    expect(byName.watch?.triggers).toEqual(['cron "* * * * *" args {}']);
    // Least privilege: the LB key only where it is used, inject's token only in inject.
    expect(byName.reconcile?.secrets).toEqual(expect.arrayContaining(['LBSYNC_SCW_ACCESS_KEY', 'LBSYNC_SCW_SECRET_KEY']));
    expect(byName.inject?.secrets).toEqual(['INJECT_TOKEN', 'SQS_ACCESS_KEY_ID', 'SQS_SECRET_ACCESS_KEY']);
    expect(byName.sweep?.secrets).toEqual(['SQS_ACCESS_KEY_ID', 'SQS_SECRET_ACCESS_KEY']);
  });

  it('sends LBSYNC_TARGETS, left unset by the deployer, as a string that is set and empty (a fleet ships its targets in the archive)', () => {
    for (const fn of result.functions) {
      expect(fn.env, fn.name).toContain('LBSYNC_TARGETS');
      expect(fn.sentEmpty, fn.name).toContain('LBSYNC_TARGETS');
    }
  });
});

/** The minimal environment each function needs to answer a request that is refused before any I/O. */
const INJECT_TOKEN = 'inject-token-0123456789abcdef';
const QUEUES = {
  SQS_ACCESS_KEY_ID: 'SCWQUEUESKEY00000000',
  SQS_SECRET_ACCESS_KEY: 'queues-secret-0123456789abcdef',
  RECONCILE_QUEUE_URL: 'https://sqs.mnq.fr-par.scaleway.com/project-00000000-0000-4000-8000-000000000000/lbsync-reconcile',
  DEAD_LETTER_QUEUE_URL: 'https://sqs.mnq.fr-par.scaleway.com/project-00000000-0000-4000-8000-000000000000/lbsync-dead-letter',
};
const TARGETS = { LBSYNC_TARGETS: JSON.stringify([{ kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1' } }]) };
const API_KEY = {
  LBSYNC_SCW_ACCESS_KEY: 'SCWXXXXXXXXXXXXXXXXX',
  LBSYNC_SCW_SECRET_KEY: '11111111-2222-4333-8444-555555555555',
  LBSYNC_SCW_DEFAULT_ORGANIZATION_ID: '66666666-7777-4888-8999-000000000000',
};
const platformPost = (body: string, headers: Record<string, string> = {}): PlatformRequest => ({
  httpMethod: 'POST',
  path: '/',
  headers: { 'content-type': 'application/json', ...headers },
  body,
  isBase64Encoded: false,
});

/** A 400 naming the bad field, answered before any connection is tried. */
const refusedBeforeIo =
  (error: string, path: string) =>
  ({ answer, connections }: HandlerLoad) => {
    expect(answer?.status).toBe(400);
    expect(answer?.body).toMatchObject({ error, errors: [expect.objectContaining({ path })] });
    expect(connections).toEqual([]);
  };

/** Per function: a request, the environment, and the documented answer it gets before touching the network. */
const INVOCATIONS: Record<string, { request: PlatformRequest; env: Record<string, string>; expect: (load: HandlerLoad) => void }> = {
  reconcile: {
    // Not JSON: dead-lettered as invalid_event. The network is blocked, so the dead letter cannot be sent: the
    // documented answer is then 500 (the platform redelivers), naming the dead-letter queue it could not reach.
    request: platformPost('{"version":1,'),
    // Its API key is read before the message (a missing or malformed one is the function's own failure).
    env: { ...TARGETS, ...QUEUES, ...API_KEY },
    expect: ({ answer, connections }) => {
      expect(answer?.status).toBe(500);
      expect(answer?.body).toMatchObject({ outcome: 'handoff_failed', error: { code: 'queue_unavailable' } });
      expect(JSON.stringify(answer?.body.error)).toContain('lbsync-dead-letter');
      expect(connections.length).toBeGreaterThan(0);
      for (const to of connections) expect(to).toBe('sqs.mnq.fr-par.scaleway.com:443');
    },
  },
  inject: {
    request: platformPost('{"target":42}', { authorization: `Bearer ${INJECT_TOKEN}` }),
    env: { ...TARGETS, ...QUEUES, INJECT_TOKEN },
    expect: refusedBeforeIo('invalid_event', 'event.target'),
  },
  sweep: {
    request: platformPost('{"targets":"prod.k8s.local"}'),
    env: { ...TARGETS, ...QUEUES },
    expect: refusedBeforeIo('invalid_args', 'args.targets'),
  },
  watch: {
    request: platformPost('{"dryRun":"yes"}'),
    env: { ...TARGETS, ...QUEUES, ...API_KEY },
    expect: refusedBeforeIo('invalid_args', 'args.dryRun'),
  },
};

describe('the archive npm run package built, unpacked into an empty folder (no repository, no node_modules)', () => {
  const config = parse(committed) as Config;
  const names = Object.keys(config.functions);
  const node22 = findNode22();
  const nodes: { label: string; binary?: NodeBinary }[] = [
    { label: `Node ${process.version} (this node)`, binary: { path: process.execPath, version: process.version } },
    {
      label: node22 ? `Node ${node22.version} (${node22.path})` : 'Node 22: skipped, no node22 binary found (PATH, LBSYNC_NODE22)',
      ...(node22 && { binary: node22 }),
    },
  ];
  let folder: string;
  let nodeOptions: string[];
  let cacheV8: Record<string, string>;

  beforeAll(async () => {
    // The archive the first describe's `npm run package` wrote: packaged once for both.
    folder = mkdtempSync(join(tmpdir(), 'lbsync-unpacked-'));
    copies.push(folder);
    const files = await unzipInto(join(root, '.serverless', `${config.service}.zip`), folder);
    expect(files).toEqual(expect.arrayContaining(names.map((name) => `dist/${name}/handler.js`)));
    expect(readdirSync(folder)).toEqual(['dist']);
    nodeOptions = ((await load('../../../scripts/function-sizing.mjs')) as { FUNCTION_NODE_OPTIONS: string }).FUNCTION_NODE_OPTIONS.split(
      ' ',
    );
    cacheV8 = Object.fromEntries(
      names.map((name) => [name, (JSON.parse(readFileSync(join(folder, 'dist', name, 'bundle.cache.json'), 'utf8')) as { v8: string }).v8]),
    );
  });

  for (const { label, binary } of nodes) {
    describe.skipIf(!binary)(label, () => {
      for (const name of names) {
        it.each(['require', 'import'] as const)(
          `${name}: handle is a named export under %s(), and answers as documented without the network`,
          async (how) => {
            const invocation = INVOCATIONS[name];
            if (!invocation) throw new Error(`no request for the function ${name}: add one to INVOCATIONS`);
            const loaded = await loadHandler({
              node: (binary as NodeBinary).path,
              nodeOptions,
              folder,
              handler: join(folder, 'dist', name, 'handler.js'),
              how,
              request: invocation.request,
              env: invocation.env,
            });
            expect(loaded.handle).toBe('function');
            expect(loaded.exports).toEqual(expect.arrayContaining(['handle', 'codeCache']));
            expect(loaded.outside).toEqual([]);
            // The code cache is kept under either loader: used by the V8 that made it, not even read by another.
            const sameV8 = loaded.v8.split('-')[0] === cacheV8[name]?.split('-')[0];
            expect(loaded.codeCache).toBe(sameV8 ? 'accepted' : 'other-v8');
            invocation.expect(loaded);
          },
          RUN_TIMEOUT,
        );
      }
    });
  }
});

describe('npm run package catches', () => {
  it(
    'an archive that gains files (a source map, a stale function, sources, a deployment value) or loses a bundle',
    async () => {
      const dir = serviceCopy(
        (c) => {
          c.package.patterns = [...c.package.patterns, 'shared/**'];
        },
        (d) => {
          writeFileSync(join(d, 'dist/reconcile/handler.js.map'), '{}');
          mkdirSync(join(d, 'dist/old'));
          writeFileSync(join(d, 'dist/old/handler.js'), 'exports.handle = () => {};\n');
          mkdirSync(join(d, 'shared/core'), { recursive: true });
          writeFileSync(join(d, 'shared/core/model.ts'), 'export {};\n');
          unlinkSync(join(d, 'dist/inject/handler.js'));
          appendFileSync(join(d, 'dist/sweep/handler.js'), `\n// ${placeholderEnv(parse(committed)).env.INJECT_TOKEN}\n`);
        },
      );
      const result = await packageCheck(dir);
      expect(result.ok).toBe(false);
      expect(result.errors).toEqual(
        expect.arrayContaining([
          expect.stringContaining('archive: dist/inject/handler.js is missing from the archive'),
          expect.stringContaining('archive: dist/reconcile/handler.js.map is in the archive but is not a build output'),
          expect.stringContaining('archive: dist/old/handler.js is in the archive but is not a build output'),
          expect.stringContaining('archive: shared/core/model.ts is in the archive but is not a build output'),
          expect.stringContaining('archive: the value given to INJECT_TOKEN while packaging is inside the archive (dist/sweep/handler.js)'),
          // The plugin's own validation, in the dry-run deploy.
          expect.stringContaining('Handler file defined for function inject does not exist'),
        ]),
      );
      expect(result.archive?.entries).toContain('dist/old/handler.js');
      expect(result.archive?.entries).not.toContain('dist/inject/handler.js');
    },
    RUN_TIMEOUT,
  );

  it(
    'what the plugin itself refuses: a step cron',
    async () => {
      const dir = serviceCopy((c) => {
        c.functions.sweep!.events = [{ schedule: { rate: '*/5 * * * *', input: {} } }];
      });
      const result = await packageCheck(dir);
      expect(result.ok).toBe(false);
      expect(result.errors).toEqual([
        expect.stringMatching(
          /^serverless deploy \(dry run against the Functions API stand-in\) failed[\s\S]*Trigger Schedule is invalid: \*\/5 \* \* \* \*/,
        ),
      ]);
    },
    RUN_TIMEOUT,
  );

  it(
    'what the plugin itself refuses: a null fallback for LBSYNC_TARGETS (why serverless.yml falls back to an empty string)',
    async () => {
      const dir = serviceCopy((c) => {
        const provider = (c as unknown as { provider: { env: Record<string, unknown> } }).provider;
        // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own ${env:...} variable syntax, not a JS template
        provider.env.LBSYNC_TARGETS = '${env:LBSYNC_TARGETS, null}';
      });
      const result = await packageCheck(dir);
      expect(result.ok).toBe(false);
      expect(result.errors).toEqual([
        expect.stringContaining('Variable LBSYNC_TARGETS: variable is invalid, environment variables may only be strings'),
      ]);
    },
    RUN_TIMEOUT,
  );

  it(
    'what the plugin would send wrong: a number as a variable, a misspelt setting, a secret in a plain field',
    async () => {
      const dir = serviceCopy((c) => {
        c.functions.reconcile!.env!.LBSYNC_MAX_ATTEMPTS = 8;
        delete c.functions.inject!.memoryLimit;
        c.functions.inject!.memorySize = 128;
        // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own ${env:...} variable syntax, not a JS template
        c.functions.inject!.description = '${env:INJECT_TOKEN}';
      });
      const result = await packageCheck(dir);
      expect(result.ok).toBe(false);
      expect(result.errors).toEqual(
        expect.arrayContaining([
          'deploy: functions.reconcile: the plugin sends LBSYNC_MAX_ATTEMPTS as a number; the API takes strings only (quote it in serverless.yml)',
          'deploy: functions.inject: the plugin sent no memory_limit; serverless.yml must set memoryLimit (a misspelt key is dropped without a word)',
          'deploy: the value of INJECT_TOKEN is sent in POST functions (inject) description, not as a secret: move it under "secret"',
        ]),
      );
      expect(result.errors.filter((e) => e.startsWith('archive:'))).toEqual([]);
    },
    RUN_TIMEOUT,
  );
});
