import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain .mjs build script without types
import { SHIPPED_TARGETS } from '../../../scripts/build.mjs';
import { SHIPPED_TARGETS_FILE, shippedTargetsPath } from '../../../shared/platform/shipped-targets';

describe('the targets file shipped in the archive', () => {
  it('is the file the build writes and the archive check expects', () => {
    expect(SHIPPED_TARGETS_FILE).toBe(SHIPPED_TARGETS);
    expect(SHIPPED_TARGETS_FILE).toBe('dist/targets.json');
  });

  it('is looked for only by a function bundle: from the sources, a dist/targets.json in the working directory is never read', () => {
    const cwd = process.cwd();
    const dir = mkdtempSync(join(tmpdir(), 'lbsync-cwd-'));
    try {
      mkdirSync(join(dir, 'dist'));
      writeFileSync(join(dir, 'dist', 'targets.json'), '[]');
      process.chdir(dir);
      expect(shippedTargetsPath()).toBeUndefined();
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
