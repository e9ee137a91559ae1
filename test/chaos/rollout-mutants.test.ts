// The chaos run has no blind spot for the rolling-update rules: a copy of the code with one rule of
// shared/core/rollout.ts broken must fail `npm run chaos` on the CI seed and size (the unbroken code passes it:
// test/chaos/chaos.test.ts). The schedule builds what the rules guard (chaos/schedule.ts: surge, drain): two or
// more passing members leaving while every desired member passes, and a pool drained to its last passing member.
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

/** A copy of the code with `find` replaced by `replace` in shared/core/rollout.ts (exactly once). */
function mutatedCopy(find: string, replace: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'lbsync-mutant-'));
  copies.push(dir);
  for (const entry of COPIED) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'));
  const file = join(dir, 'shared/core/rollout.ts');
  const source = readFileSync(file, 'utf8');
  expect(source.split(find), `the rule to break is in rollout.ts once: ${find}`).toHaveLength(2);
  writeFileSync(file, source.replace(find, replace));
  return dir;
}

describe('npm run chaos fails a rollout with one of its rules broken', () => {
  it.each([
    ['ignores maxUnavailable (every serving member may leave in one write)', 'if (taken >= input.maxUnavailable) {', 'if (false) {'],
    ['removes the last passing member', '} else if (passing && passingLeft <= 1) {', '} else if (false) {'],
  ])(
    'a rollout that %s: exit 1, unsafe_shrinks > 0',
    (_what, find, replace) => {
      const dir = mutatedCopy(find, replace);
      const run = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'chaos/main.ts', '--seed', SEED, '--events', '60', '--targets', '4', '--quiet'],
        { cwd: dir, encoding: 'utf8', timeout: 170_000, env: { ...process.env, CHAOS_DUMP: join(dir, 'dump.json') } },
      );
      const summary = run.stdout.split('\n').find((line) => line.startsWith(`chaos: seed=${SEED} events=`)) ?? '';
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(1);
      expect(summary).toMatch(/ unsafe_shrinks=[1-9]\d* /);
      expect(run.stdout).toMatch(/^VIOLATION: \d+ unsafe shrink\(s\): /m);
      expect(run.stdout).toContain(`dump: ${join(dir, 'dump.json')}`);
    },
    180_000,
  );
});
