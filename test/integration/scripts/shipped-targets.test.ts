// Targets shipped in the deployment archive (issue 26): a fleet of 1,000 targets (~300 KB of JSON) outgrows any
// variable (1,000 characters; a secret 64 KiB). End to end, on a copy of the repository (the worktree's dist/ is
// left to the other tests): `node scripts/build.mjs --targets FILE` checks FILE with the functions' own loader and
// writes dist/targets.json; `npm run package` ships it and sends LBSYNC_TARGETS empty; the archive, unpacked
// elsewhere, runs in a fresh node with no LBSYNC_TARGETS and another working directory: the sweep enqueues every
// target of the file, the reconcile writes one with the key its credentials name. An invalid file fails the build
// naming the field, and writes nothing; a variable beside the shipped file is refused.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startFleetWorld } from '../../../bench/fleet-scale';
import type { BenchWorld } from '../../../bench/support/bench-world';
import { uuid } from '../../../bench/support/fleet';
import { FLEET_SCALE, type TenantFleet } from '../../../bench/support/tenant-fleet';
// @ts-expect-error: plain .mjs module without types
import { FUNCTION_NODE_OPTIONS } from '../../../scripts/function-sizing.mjs';
// @ts-expect-error: plain .mjs module without types
import { MAX_SECRET_BYTES } from '../../../scripts/serverless-check/scaleway-limits.mjs';
import { runBundle } from '../../support/run-bundle';
import { unzipInto } from '../../support/unpacked-handlers';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const DEPLOYED_FLAGS = (FUNCTION_NODE_OPTIONS as string).split(' ');
const RUN_TIMEOUT = 180_000;
const run = promisify(execFile);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}
/** A node script of the clone, its exit code and output (a failure is an answer, not a throw). */
async function node(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      maxBuffer: 32 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** What a build needs of the repository (the build finds its root from its own place), and serverless.yml. */
function cloneRepository(into: string, fleet: TenantFleet): void {
  for (const part of ['functions', 'shared', 'scripts', 'package.json', 'tsconfig.json'])
    cpSync(join(ROOT, part), join(into, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(into, 'node_modules'));
  // The deployer gives reconcile and watch the keys the targets' credentials name, as secrets (docs/configuration.md).
  const config = parse(readFileSync(join(ROOT, 'serverless.yml'), 'utf8')) as {
    functions: Record<string, { secret?: Record<string, string> }>;
  };
  const keyVariables = fleet.projects.flatMap((p) => (p.keyVariables ? [p.keyVariables.accessKeyEnv, p.keyVariables.secretKeyEnv] : []));
  for (const name of ['reconcile', 'watch']) {
    const fn = config.functions[name] as { secret?: Record<string, string> };
    fn.secret = { ...fn.secret, ...Object.fromEntries(keyVariables.map((v) => [v, `\${env:${v}}`])) };
  }
  writeFileSync(join(into, 'serverless.yml'), stringify(config));
}

/** Every file under dir with its modification time: what a build that writes nothing leaves as it was. */
function snapshot(dir: string): Record<string, number> {
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .map((entry) => join(dir, entry))
      .filter((path) => statSync(path).isFile())
      .map((path) => [path, statSync(path).mtimeMs]),
  );
}

const post = (body: unknown) => ({
  httpMethod: 'POST',
  path: '/',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
  isBase64Encoded: false,
});

let world: BenchWorld;
let fleet: TenantFleet;
/** The functions' environment: the fleet's accounts, keys and queues, and no targets. */
let env: Record<string, string>;
const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
let clone: string;
let given: string;
let built: Ran;
let packaged: Ran;
let unpacked: string;
let elsewhere: string;

beforeAll(async () => {
  let worldEnv: Record<string, string>;
  ({ world, fleet, env: worldEnv } = await startFleetWorld(FLEET_SCALE));
  const { LBSYNC_CONFIG: _file, ...rest } = worldEnv;
  env = rest;
  clone = tempDir('lbsync-shipped-clone-');
  cloneRepository(clone, fleet);
  // The platform team's file, as written by hand (indented), kept outside the clone.
  given = join(tempDir('lbsync-shipped-given-'), 'fleet.json');
  writeFileSync(given, JSON.stringify({ targets: fleet.inputs }, null, 2));
  built = await node(clone, ['scripts/build.mjs', '--only', 'functions', '--targets', given]);
  packaged = await node(clone, ['scripts/package-check.mjs', '--json']);
  unpacked = tempDir('lbsync-shipped-unpacked-');
  if (packaged.code === 0) await unzipInto(join(clone, '.serverless', 'scw-lb-sync.zip'), unpacked);
  elsewhere = tempDir('lbsync-shipped-cwd-');
  mkdirSync(join(elsewhere, 'dist'));
}, RUN_TIMEOUT);

afterAll(async () => {
  await world?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('npm run build -- --targets FILE', () => {
  it('checks the file with the functions loader and ships its targets, compact, in dist/targets.json', () => {
    expect(built.stderr).toBe('');
    expect(built.code).toBe(0);
    expect(built.stdout).toMatch(/^dist\/targets\.json {2}1000 target\(s\), \d+\.\d KiB$/m);
    const shipped = readFileSync(join(clone, 'dist', 'targets.json'), 'utf8');
    expect(JSON.parse(shipped)).toEqual({ targets: fleet.inputs });
    expect(shipped).toBe(`${JSON.stringify({ targets: fleet.inputs })}\n`);
    // More than any variable may hold, even a secret: this fleet has no other way to reach the functions.
    expect(Buffer.byteLength(shipped)).toBeGreaterThan(MAX_SECRET_BYTES as number);
  });

  it('an invalid file fails the build naming the file, the field and the fix, and writes nothing', async () => {
    const broken = structuredClone(fleet.inputs) as { kops: { zone: string } }[];
    (broken[537] as { kops: { zone: string } }).kops.zone = 'nl-ams-9';
    const bad = join(tempDir('lbsync-shipped-bad-'), 'fleet.json');
    writeFileSync(bad, JSON.stringify({ targets: broken }));
    const before = snapshot(join(clone, 'dist'));
    const failed = await node(clone, ['scripts/build.mjs', '--only', 'functions', '--targets', bad]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`build: ${bad}.targets is invalid:`);
    expect(failed.stderr).toContain(
      `${bad}.targets[537].kops.zone: must be a zone where Scaleway offers Load Balancers (got "nl-ams-9"); fix: did you mean "nl-ams-1"?`,
    );
    expect(failed.stderr).toContain(`nothing was built: fix ${bad} and build again`);
    expect(snapshot(join(clone, 'dist'))).toEqual(before);
  });
});

describe('npm run package with the targets shipped', () => {
  interface PackageCheck {
    ok: boolean;
    errors: string[];
    archive: { entries: string[] };
    functions: { name: string; env: string[]; sentEmpty: string[] }[];
  }
  it('passes, ships dist/targets.json in the archive, and sends LBSYNC_TARGETS set and empty to every function', () => {
    const result = JSON.parse(packaged.stdout) as PackageCheck;
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.archive.entries).toContain('dist/targets.json');
    expect(readFileSync(join(unpacked, 'dist', 'targets.json'))).toEqual(readFileSync(join(clone, 'dist', 'targets.json')));
    expect(result.functions.map((f) => f.name).sort()).toEqual(['inject', 'reconcile', 'sweep', 'watch']);
    for (const fn of result.functions) expect(fn.sentEmpty, fn.name).toContain('LBSYNC_TARGETS');
  });

  it('an archive that leaves the shipped file out fails the check (package.patterns dropping it)', async () => {
    const dir = tempDir('lbsync-shipped-patterns-');
    const config = parse(readFileSync(join(clone, 'serverless.yml'), 'utf8')) as { package: { patterns: string[] } };
    config.package.patterns = [...config.package.patterns, '!dist/targets.json'];
    writeFileSync(join(dir, 'serverless.yml'), stringify(config));
    cpSync(join(clone, 'package.json'), join(dir, 'package.json'));
    cpSync(join(clone, 'dist'), join(dir, 'dist'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const checked = await node(ROOT, ['scripts/package-check.mjs', '--root', dir, '--json']);
    expect(checked.code).toBe(1);
    expect((JSON.parse(checked.stdout) as { errors: string[] }).errors).toEqual([
      'archive: dist/targets.json is missing from the archive (npm run build writes it; package.patterns must keep it)',
    ]);
  });

  it('is refused beside LBSYNC_TARGETS by the pre-deploy check (validate-serverless), naming both', async () => {
    const targets = JSON.stringify([{ kops: { cluster: 'inline.k8s.local', zone: 'fr-par-1' } }]);
    const checked = await node(clone, ['scripts/validate-serverless.mjs', '--json'], { LBSYNC_TARGETS: targets });
    expect(checked.code).toBe(1);
    expect((JSON.parse(checked.stdout) as { errors: string[] }).errors).toEqual([
      'provider.env.LBSYNC_TARGETS: set, and the build ships targets too (dist/targets.json, npm run build -- --targets): the functions refuse both; leave LBSYNC_TARGETS unset (serverless.yml sends it empty) or rebuild without --targets',
    ]);
  });
});

describe('the unpacked archive, in a fresh node with no LBSYNC_TARGETS and another working directory', () => {
  const handler = (name: string) => join(unpacked, 'dist', name, 'handler.js');
  const target = fleetTargetName(537);

  it(
    'the sweep enqueues one event per target of the shipped file',
    async () => {
      const result = await runBundle(handler('sweep'), [post({ spreadSeconds: 0 })], { ...env, LBSYNC_TARGETS: '' }, DEPLOYED_FLAGS, {
        cwd: elsewhere,
      });
      expect(result.codeCache).toBe('accepted');
      expect(result.answers[0]?.status).toBe(200);
      expect(result.answers[0]?.body).toMatchObject({ selected: 1000, enqueued: 1000, unknownTargets: [] });
      const names = new Set(fleet.targets.map((t) => t.name));
      const received = await world.events?.receive(world.reconcileQueueUrl, { maxMessages: 10 });
      expect(received?.length).toBeGreaterThan(0);
      for (const message of received ?? []) expect(names.has((JSON.parse(message.body) as { target: string }).target)).toBe(true);
    },
    RUN_TIMEOUT,
  );

  it(
    'the reconcile writes a target of the file with the key its credentials name (a replaced control plane)',
    async () => {
      const cluster = fleet.clusters[537] as TenantFleet['clusters'][number];
      world.emulator.replaceServer(uuid(2, 537, 0), {
        name: 'control-plane-537-new',
        zone: cluster.zone,
        projectId: cluster.project.id,
        state: 'running',
        tags: [`noprefix=kops.k8s.io/cluster=${target}`, 'noprefix=kops.k8s.io/role=ControlPlane'],
        publicIps: ['51.15.250.250'],
      } as Parameters<BenchWorld['emulator']['replaceServer']>[1]);
      const event = post({ version: 1, id: 'shipped-1', source: 'manual', target, occurredAt: new Date().toISOString() });
      const result = await runBundle(handler('reconcile'), [event], env, DEPLOYED_FLAGS, { cwd: elsewhere });
      expect(result.answers[0]?.status).toBe(200);
      expect(result.answers[0]?.body).toMatchObject({ outcome: 'applied', target });
      expect(result.answers[0]?.body.actions).toEqual(expect.arrayContaining(['SetBackendServers']));
    },
    RUN_TIMEOUT,
  );

  it(
    'beside LBSYNC_TARGETS the shipped file is refused, both named: no function picks one silently',
    async () => {
      const inline = JSON.stringify([{ kops: { cluster: 'inline.k8s.local', zone: 'fr-par-1' } }]);
      const result = await runBundle(handler('sweep'), [post({})], { ...env, LBSYNC_TARGETS: inline }, DEPLOYED_FLAGS, { cwd: elsewhere });
      expect(result.answers[0]?.status).toBe(500);
      expect(result.answers[0]?.body).toMatchObject({ error: 'invalid_config' });
      expect(result.answers[0]?.body.message).toMatch(/LBSYNC_TARGETS: is set, and the bundle ships its own targets \(dist\/targets\.json/);
    },
    RUN_TIMEOUT,
  );
});

describe('the lbsync CLI reads the same file', () => {
  it('targets validate --file dist/targets.json: the 1,000 targets the functions read, all 1.7 MB of --json through a pipe', async () => {
    const checked = await node(ROOT, ['bin/lbsync.mjs', 'targets', 'validate', '--file', join(clone, 'dist', 'targets.json'), '--json']);
    expect(checked.code).toBe(0);
    const answer = JSON.parse(checked.stdout) as { ok: boolean; targets: { name: string }[] };
    expect(answer.ok).toBe(true);
    expect(answer.targets.map((t) => t.name)).toEqual(fleet.targets.map((t) => t.name));
  });
});

describe('lbsync doctor', () => {
  it('says where it read the targets: the shipped file given with --file', async () => {
    const file = join(clone, 'dist', 'targets.json');
    const checked = await node(ROOT, ['bin/lbsync.mjs', 'doctor', '--file', file, '-o', 'json'], { HOME: elsewhere });
    const report = JSON.parse(checked.stdout) as { checks: { name: string; status: string; detail: string }[] };
    const config = report.checks.find((c) => c.name === 'config');
    expect(config?.status).toBe('ok');
    expect(config?.detail).toMatch(new RegExp(`^1000 target\\(s\\) from ${file.replaceAll('.', '\\.')}: c0\\.p0\\.fleet\\.local, `));
  });
});

/** The name of the fleet's i-th target (as bench/support/tenant-fleet.ts names them). */
function fleetTargetName(i: number): string {
  return `c${i}.p${Math.floor(i / Math.ceil(FLEET_SCALE.targets / FLEET_SCALE.projects))}.fleet.local`;
}
