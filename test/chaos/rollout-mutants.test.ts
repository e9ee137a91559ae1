// The chaos run has no blind spot for the rules that guard a pool: a copy of the code with one rule broken must
// fail `npm run chaos` on the CI seed and size (the unbroken code passes it: test/chaos/chaos.test.ts). The schedule
// builds what each rule guards (chaos/schedule.ts): for shared/core/rollout.ts, two or more passing members leaving
// while every desired member passes (surge) and a pool drained to its last passing member (drain); for
// shared/core/discovery-check.ts, a middle third played under a ListServers tags filter that matches any one tag; for
// shared/core/desired.ts' leaving servers, kOps' rolling update (a control plane deregistered and marked
// needs-update while the others pass, a reconcile during its drain). Two more rules every reconcile keeps: no write of
// what is there already (shared/core/plan.ts; judged by what the emulator records each write changed) and no
// `applied` before the LB shows the write applied (shared/reconcile/reconcile-target.ts; judged by the LB the emulator
// showed the reconcile's reads after its write).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = realpathSync(new URL('../../', import.meta.url));
/** What `npm run chaos` loads: the run, the emulator, the local stack, the functions and the code they share. */
const COPIED = ['chaos', 'cli', 'emulator', 'functions', 'local', 'shared', 'package.json', 'tsconfig.json'];
const SEED = '20261129';
const copies: string[] = [];

afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the code with `find` replaced by `replace` in `file` (exactly once). */
function mutatedCopy(file: string, find: string, replace: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'lbsync-mutant-'));
  copies.push(dir);
  for (const entry of COPIED) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'));
  const path = join(dir, file);
  const source = readFileSync(path, 'utf8');
  expect(source.split(find), `the rule to break is in ${file} once: ${find}`).toHaveLength(2);
  writeFileSync(path, source.replace(find, replace));
  return dir;
}

const ROLLOUT = 'shared/core/rollout.ts';
const DISCOVERY_CHECK = 'shared/core/discovery-check.ts';
const DESIRED = 'shared/core/desired.ts';
const PLAN = 'shared/core/plan.ts';
const RECONCILE = 'shared/reconcile/reconcile-target.ts';

describe('npm run chaos fails a copy of the code with one pool rule broken', () => {
  it.each([
    [
      'a rollout that ignores maxUnavailable (every serving member may leave in one write)',
      ROLLOUT,
      'if (taken >= input.maxUnavailable) {',
      'if (false) {',
      'unsafe_shrinks',
      /^VIOLATION: \d+ unsafe shrink\(s\): /m,
    ],
    [
      'a rollout that removes the last passing member',
      ROLLOUT,
      '} else if (passing && passingLeft <= 1) {',
      '} else if (false) {',
      'unsafe_shrinks',
      /^VIOLATION: \d+ unsafe shrink\(s\): /m,
    ],
    [
      "a discovery that takes the API's word for the tags (no check of each server's own tags)",
      DISCOVERY_CHECK,
      'const missing = scope.tags.filter((tag) => !server.tags.includes(tag));',
      'const missing: string[] = [];',
      'bad_pool_writes',
      /^VIOLATION: \d+ bad pool write\(s\)/m,
    ],
    [
      'a discovery that ignores the leaving mark (needs-update servers are members like any other)',
      DESIRED,
      '    if (tag !== undefined) {',
      '    if (false) {',
      'bad_pool_writes',
      /^VIOLATION: \d+ bad pool write\(s\) adding a leaving server: /m,
    ],
    [
      'a planner that writes the pool even when it is in sync',
      PLAN,
      '  if (!samePool(pool, observed.pool)) {',
      '  if (true) {',
      'needless_writes',
      /^VIOLATION: \d+ needless write\(s\): /m,
    ],
    [
      'a reconcile that answers applied without waiting until the LB has applied its write',
      RECONCILE,
      '    await waitUntilApplied(gateway, view.zone, lb, options.waitBudgetMs, context);\n',
      '',
      'early_applied',
      /^VIOLATION: \d+ early answer\(s\) applied, before the LB showed the write applied: /m,
    ],
  ])(
    '%s: exit 1, its counter > 0',
    (_what, file, find, replace, counter, violation) => {
      const dir = mutatedCopy(file, find, replace);
      const run = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'chaos/main.ts', '--seed', SEED, '--events', '60', '--targets', '4', '--quiet'],
        { cwd: dir, encoding: 'utf8', timeout: 170_000, env: { ...process.env, CHAOS_DUMP: join(dir, 'dump.json') } },
      );
      const summary = run.stdout.split('\n').find((line) => line.startsWith(`chaos: seed=${SEED} events=`)) ?? '';
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(1);
      expect(summary).toMatch(new RegExp(` ${counter}=[1-9]\\d*( |$)`));
      expect(run.stdout).toMatch(violation);
      expect(run.stdout).toContain(`dump: ${join(dir, 'dump.json')}`);
    },
    180_000,
  );
});
