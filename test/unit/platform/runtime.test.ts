// The function runtime parses the targets once per process: the scrubber needs their key variables at cold start,
// and the reconcile needs the targets themselves; a shipped fleet parsed twice would cost every cold start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFunctionRuntime } from '../../../shared/platform/runtime';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function shippedFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'lbsync-runtime-'));
  dirs.push(dir);
  const path = join(dir, 'targets.json');
  writeFileSync(path, text);
  return path;
}

const SECRET = 'a-team-secret-key-value-0001';
const TARGET = {
  kops: {
    cluster: 'team-a.k8s.local',
    zone: 'fr-par-1',
    credentials: { accessKeyEnv: 'TEAM_A_ACCESS', secretKeyEnv: 'TEAM_A_SECRET' },
  },
};

describe('createFunctionRuntime', () => {
  it('reads the targets once: the scrubber knows their keys and the targets stay read after the file is gone', () => {
    const path = shippedFile(JSON.stringify([TARGET]));
    const runtime = createFunctionRuntime('lbsync-test', { LOG_LEVEL: 'silent', TEAM_A_SECRET: SECRET }, path);
    rmSync(path);
    expect(runtime.scrubber.text(`key ${SECRET}`)).not.toContain(SECRET);
    expect(runtime.targets().map((t) => t.name)).toEqual(['team-a.k8s.local']);
    expect([...runtime.targetsByName().keys()]).toEqual(['team-a.k8s.local']);
  });

  it('an invalid configuration is thrown each time the targets are asked for, never read again', () => {
    const path = shippedFile('[{"name": "x"}]');
    const runtime = createFunctionRuntime('lbsync-test', { LOG_LEVEL: 'silent' }, path);
    writeFileSync(path, JSON.stringify([TARGET]));
    const first = (() => {
      try {
        runtime.targets();
      } catch (error) {
        return error;
      }
    })();
    expect(first).toMatchObject({ code: 'invalid_config' });
    expect(() => runtime.targets()).toThrow(first as Error);
  });
});
