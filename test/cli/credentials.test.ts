// Credentials like the scw CLI (profile file, SCW_* over it, key by key) and colour rules.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveScalewayCredentials } from '../../cli/credentials';
import { colorsFor } from '../../cli/output';
import type { LbSyncError } from '../../shared/errors/lbsync-error';

const dir = mkdtempSync(join(tmpdir(), 'lbsync-scw-'));
const config = join(dir, 'config.yaml');
writeFileSync(
  config,
  `# scw config
access_key: SCWDEFAULTACCESSKEY0
secret_key: 11111111-1111-4111-8111-111111111111
default_project_id: 22222222-2222-4222-8222-222222222222
default_zone: fr-par-1
profiles:
  staging:
    access_key: SCWSTAGINGACCESSKEY0
    secret_key: 33333333-3333-4333-8333-333333333333
    api_url: https://api.example.test
`,
);

const SCW_VARS = [
  'SCW_ACCESS_KEY',
  'SCW_SECRET_KEY',
  'SCW_API_URL',
  'SCW_DEFAULT_PROJECT_ID',
  'SCW_DEFAULT_ZONE',
  'SCW_PROFILE',
  'SCW_CONFIG_PATH',
  'SCW_DEFAULT_ORGANIZATION_ID',
  'SCW_DEFAULT_REGION',
];
const saved = Object.fromEntries([...SCW_VARS, 'HOME', 'XDG_CONFIG_HOME'].map((k) => [k, process.env[k]]));
function setEnv(values: Record<string, string>) {
  for (const k of SCW_VARS) delete process.env[k];
  Object.assign(process.env, values);
}
afterEach(() => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

function failure(fn: () => unknown): LbSyncError {
  try {
    fn();
  } catch (error) {
    return error as LbSyncError;
  }
  throw new Error('expected a failure');
}

describe('Scaleway credentials', () => {
  it('reads the default profile of SCW_CONFIG_PATH', () => {
    setEnv({ SCW_CONFIG_PATH: config });
    const { settings, source } = resolveScalewayCredentials();
    expect(settings).toMatchObject({
      accessKey: 'SCWDEFAULTACCESSKEY0',
      secretKey: '11111111-1111-4111-8111-111111111111',
      projectId: '22222222-2222-4222-8222-222222222222',
      defaultZone: 'fr-par-1',
    });
    expect(source).toBe(`profile "default" in ${config}`);
  });

  it('SCW_PROFILE picks a named profile; SCW_* variables override it key by key', () => {
    setEnv({ SCW_CONFIG_PATH: config, SCW_PROFILE: 'staging', SCW_API_URL: 'http://127.0.0.1:8090' });
    expect(resolveScalewayCredentials().settings).toMatchObject({ accessKey: 'SCWSTAGINGACCESSKEY0', apiUrl: 'http://127.0.0.1:8090' });
    setEnv({ SCW_CONFIG_PATH: config, SCW_ACCESS_KEY: 'SCWENVACCESSKEY00000', SCW_SECRET_KEY: '44444444-4444-4444-8444-444444444444' });
    const { settings, source } = resolveScalewayCredentials();
    expect(settings).toMatchObject({
      accessKey: 'SCWENVACCESSKEY00000',
      secretKey: '44444444-4444-4444-8444-444444444444',
      defaultZone: 'fr-par-1',
    });
    expect(source).toBe('environment');
  });

  it('names the missing variable and the fix, never a secret', () => {
    setEnv({ SCW_CONFIG_PATH: join(dir, 'absent.yaml') });
    expect(failure(() => resolveScalewayCredentials()).fieldErrors?.[0]).toMatchObject({
      path: 'SCW_CONFIG_PATH',
      message: expect.stringContaining('does not exist'),
    });
    setEnv({ SCW_CONFIG_PATH: config, SCW_PROFILE: 'prod' });
    expect(failure(() => resolveScalewayCredentials()).fieldErrors?.[0]).toMatchObject({
      path: 'SCW_PROFILE',
      message: expect.stringContaining("'prod'"),
    });
    setEnv({ HOME: dir, SCW_SECRET_KEY: '55555555-5555-4555-8555-555555555555' });
    process.env.XDG_CONFIG_HOME = join(dir, 'xdg');
    const error = failure(() => resolveScalewayCredentials());
    delete process.env.XDG_CONFIG_HOME;
    expect(error.fieldErrors?.[0]).toMatchObject({
      path: 'SCW_ACCESS_KEY',
      message: expect.stringContaining('is not set'),
      fix: expect.stringContaining('scw init'),
    });
    expect(JSON.stringify(error.fieldErrors) + error.message).not.toContain('55555555');
    expect(error.message).toMatch(/^the Scaleway API key is invalid:\n {2}- SCW_ACCESS_KEY: is not set/);
  });
});

describe('colours', () => {
  it('only on a TTY, never with NO_COLOR', () => {
    expect(colorsFor({ write: () => true, isTTY: true }, {}).red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(colorsFor({ write: () => true, isTTY: true }, { NO_COLOR: '1' }).red('x')).toBe('x');
    expect(colorsFor({ write: () => true }, {}).red('x')).toBe('x');
    expect(colorsFor({ write: () => true, isTTY: true }, {}, true).enabled).toBe(false);
  });
});
