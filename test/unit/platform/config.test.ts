import { describe, expect, it } from 'vitest';
import { defaultMaxAttempts } from '../../../shared/core/retry-horizon';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import {
  auditTrailSettingsFromEnv,
  injectSettingsFromEnv,
  loadTargets,
  queueConnectionFromEnv,
  runtimeConfigFromEnv,
  runtimeDefaults,
  scalewaySettingsFromEnv,
} from '../../../shared/platform/config';
import { ENVIRONMENT_CATALOGUE } from '../../../shared/platform/environment-catalogue';

const KEYS = { SCW_ACCESS_KEY: 'SCWXXXXXXXXXXXXXXXXX', SCW_SECRET_KEY: '11111111-2222-4333-8444-555555555555' };
const ORG = '23b8c1e9-3924-46de-beb1-3b9046685257';

function fieldErrors(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LbSyncError);
    return (error as LbSyncError).fieldErrors ?? [];
  }
  throw new Error('expected a configuration error');
}

describe('the Scaleway key, missing', () => {
  it('a function names the LBSYNC_SCW_* variable it reads (SCW_* is reserved there), the CLI SCW_*; both halves at once', () => {
    const inFunction = fieldErrors(() => scalewaySettingsFromEnv({}, { function: true }));
    expect(inFunction).toEqual([
      expect.objectContaining({ path: 'LBSYNC_SCW_ACCESS_KEY', message: 'is not set', fix: expect.stringContaining('serverless.yml') }),
      expect.objectContaining({ path: 'LBSYNC_SCW_SECRET_KEY', message: 'is not set' }),
    ]);
    expect(fieldErrors(() => scalewaySettingsFromEnv({ SCW_ACCESS_KEY: KEYS.SCW_ACCESS_KEY }))).toEqual([
      expect.objectContaining({ path: 'SCW_SECRET_KEY', fix: expect.stringContaining('LBSYNC_SCW_SECRET_KEY in a deployed function') }),
    ]);
    expect(fieldErrors(() => auditTrailSettingsFromEnv({ ...KEYS }, { function: true }))).toEqual([
      expect.objectContaining({ path: 'LBSYNC_SCW_DEFAULT_ORGANIZATION_ID', message: 'is not set' }),
    ]);
  });
});

describe("the watcher's configuration", () => {
  it('reads the organization from LBSYNC_SCW_DEFAULT_ORGANIZATION_ID (a function) before SCW_DEFAULT_ORGANIZATION_ID (the CLI)', () => {
    expect(auditTrailSettingsFromEnv({ ...KEYS, SCW_DEFAULT_ORGANIZATION_ID: ORG })).toMatchObject({
      organizationId: ORG,
      ownPrincipalIds: [],
    });
    const other = '00000000-0000-4000-8000-000000000001';
    expect(
      auditTrailSettingsFromEnv({ ...KEYS, SCW_DEFAULT_ORGANIZATION_ID: ORG, LBSYNC_SCW_DEFAULT_ORGANIZATION_ID: other }).organizationId,
    ).toBe(other);
  });

  it('a missing or malformed organization id is a field error naming the variable and the fix', () => {
    const missing = fieldErrors(() => auditTrailSettingsFromEnv({ ...KEYS }));
    expect(missing).toEqual([
      expect.objectContaining({
        path: 'SCW_DEFAULT_ORGANIZATION_ID',
        message: 'is not set',
        fix: expect.stringContaining('LBSYNC_SCW_DEFAULT_ORGANIZATION_ID'),
      }),
    ]);
    const malformed = fieldErrors(() => auditTrailSettingsFromEnv({ ...KEYS, SCW_DEFAULT_ORGANIZATION_ID: 'my-org' }));
    expect(malformed).toEqual([
      expect.objectContaining({ path: 'SCW_DEFAULT_ORGANIZATION_ID', message: 'must be a UUID', received: 'my-org' }),
    ]);
  });

  it('own principal ids: a comma-separated list of UUIDs', () => {
    const ids = '7d3c1a90-5b2e-4f1c-8a6d-2e9f0b4c1d11, 8d3c1a90-5b2e-4f1c-8a6d-2e9f0b4c1d12';
    expect(
      auditTrailSettingsFromEnv({ ...KEYS, SCW_DEFAULT_ORGANIZATION_ID: ORG, LBSYNC_WATCH_OWN_PRINCIPAL_IDS: ids }).ownPrincipalIds,
    ).toHaveLength(2);
    expect(
      fieldErrors(() =>
        auditTrailSettingsFromEnv({ ...KEYS, SCW_DEFAULT_ORGANIZATION_ID: ORG, LBSYNC_WATCH_OWN_PRINCIPAL_IDS: 'lbsync-functions' }),
      ),
    ).toEqual([expect.objectContaining({ path: 'LBSYNC_WATCH_OWN_PRINCIPAL_IDS', received: 'lbsync-functions' })]);
  });

  it('window and spread: defaults, and bad values named', () => {
    expect(runtimeConfigFromEnv({})).toMatchObject({ watch: { periodMs: 60_000, overlapMs: 120_000 }, sweepSpreadMs: 300_000 });
    expect(runtimeConfigFromEnv({ LBSYNC_WATCH_OVERLAP_MS: '300000', LBSYNC_SWEEP_SPREAD_MS: '0' })).toMatchObject({
      watch: { overlapMs: 300_000 },
      sweepSpreadMs: 0,
    });
    expect(fieldErrors(() => runtimeConfigFromEnv({ LBSYNC_SWEEP_SPREAD_MS: '1000000' })).map((e) => e.path)).toEqual([
      'LBSYNC_SWEEP_SPREAD_MS',
    ]);
    expect(fieldErrors(() => runtimeConfigFromEnv({ LBSYNC_WATCH_PERIOD_MS: 'every minute' })).map((e) => e.path)).toEqual([
      'LBSYNC_WATCH_PERIOD_MS',
    ]);
  });
});

function configError(fn: () => unknown): LbSyncError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(LbSyncError);
    return error as LbSyncError;
  }
  throw new Error('expected a validation error');
}

describe('loadTargets', () => {
  it('names the variable when nothing is configured', () => {
    expect(configError(() => loadTargets({})).message).toMatch(/LBSYNC_TARGETS/);
  });
  it('explains broken JSON', () => {
    const error = configError(() => loadTargets({ LBSYNC_TARGETS: '[{"kops": ' }));
    expect(error.fieldErrors?.[0]?.path).toBe('LBSYNC_TARGETS');
    expect(error.message).toMatch(/not valid JSON/);
  });
  it('reads a config file holding {targets: [...]}', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const dir = mkdtempSync(`${(await import('node:os')).tmpdir()}/lbsync-`);
    writeFileSync(`${dir}/t.json`, JSON.stringify({ targets: [{ kops: { cluster: 'c.k8s.local', zone: 'fr-par-1' } }] }));
    expect(loadTargets({ LBSYNC_CONFIG: `${dir}/t.json` })[0]?.name).toBe('c.k8s.local');
    expect(configError(() => loadTargets({ LBSYNC_CONFIG: `${dir}/missing.json` })).message).toMatch(/cannot read/);
  });
  it("the errors of a {targets: [...]} file are under .targets, not at the file's root", async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const dir = mkdtempSync(`${(await import('node:os')).tmpdir()}/lbsync-`);
    writeFileSync(`${dir}/t.json`, JSON.stringify({ targets: [{ kops: { cluster: 'c.k8s.local', zone: 'fr-pra-1' } }] }));
    expect(configError(() => loadTargets({ LBSYNC_CONFIG: `${dir}/t.json` })).fieldErrors?.map((e) => e.path)).toEqual([
      'LBSYNC_CONFIG.targets[0].kops.zone',
    ]);
    writeFileSync(`${dir}/a.json`, JSON.stringify([{ kops: { cluster: 'c.k8s.local', zone: 'fr-pra-1' } }]));
    expect(configError(() => loadTargets({ LBSYNC_CONFIG: `${dir}/a.json` })).fieldErrors?.map((e) => e.path)).toEqual([
      'LBSYNC_CONFIG[0].kops.zone',
    ]);
  });
  it('LBSYNC_TARGETS set to nothing is told as set and empty, not as unset', () => {
    for (const value of ['', '  ']) {
      expect(configError(() => loadTargets({ LBSYNC_TARGETS: value })).fieldErrors).toEqual([
        expect.objectContaining({ path: 'LBSYNC_TARGETS', message: 'is set but empty' }),
      ]);
    }
    expect(configError(() => loadTargets({})).fieldErrors).toEqual([expect.objectContaining({ message: 'is not set' })]);
  });
});

describe('loadTargets with a targets file shipped in the bundle (npm run build -- --targets FILE)', () => {
  const shippedFile = async (content: unknown): Promise<string> => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const dir = mkdtempSync(`${(await import('node:os')).tmpdir()}/lbsync-shipped-`);
    writeFileSync(`${dir}/targets.json`, typeof content === 'string' ? content : JSON.stringify(content));
    return `${dir}/targets.json`;
  };
  const FLEET = { targets: [{ kops: { cluster: 'shipped.k8s.local', zone: 'fr-par-1' } }] };
  const INLINE = JSON.stringify([{ kops: { cluster: 'inline.k8s.local', zone: 'fr-par-1' } }]);

  it('reads it when no variable gives targets, and when LBSYNC_TARGETS is set but empty (serverless.yml sends it so)', async () => {
    const shipped = await shippedFile(FLEET);
    for (const env of [{}, { LBSYNC_TARGETS: '' }, { LBSYNC_TARGETS: ' ', LBSYNC_CONFIG: '' }])
      expect(loadTargets(env, undefined, shipped).map((t) => t.name)).toEqual(['shipped.k8s.local']);
  });
  it('refuses it beside LBSYNC_TARGETS or LBSYNC_CONFIG, naming the variable, the shipped file and how to keep one', async () => {
    const shipped = await shippedFile(FLEET);
    for (const [variable, env] of [
      ['LBSYNC_TARGETS', { LBSYNC_TARGETS: INLINE }],
      ['LBSYNC_CONFIG', { LBSYNC_CONFIG: shipped }],
    ] as const) {
      const error = configError(() => loadTargets(env, undefined, shipped));
      expect(error.code).toBe('invalid_config');
      expect(error.fieldErrors).toEqual([
        expect.objectContaining({
          path: variable,
          message: expect.stringContaining('the bundle ships its own targets (dist/targets.json'),
          fix: expect.stringMatching(new RegExp(`${variable} unset or empty.*rebuild without --targets`)),
        }),
      ]);
    }
  });
  it('its errors are named after dist/targets.json (a file the build checked, so only a broken archive gets there)', async () => {
    const shipped = await shippedFile([{ kops: { cluster: 'c.k8s.local', zone: 'fr-pra-1' } }]);
    expect(configError(() => loadTargets({}, undefined, shipped)).fieldErrors?.map((e) => e.path)).toEqual([
      'dist/targets.json[0].kops.zone',
    ]);
    const gone = configError(() => loadTargets({}, undefined, `${shipped}.gone`));
    expect(gone.message).toMatch(/^dist\/targets.json is invalid/);
    expect(gone.fieldErrors?.[0]?.fix).toMatch(/rebuild/);
  });
  it('without a shipped file, LBSYNC_TARGETS set but empty is still told so, and the fix names the shipped file', () => {
    expect(configError(() => loadTargets({ LBSYNC_TARGETS: '' })).fieldErrors).toEqual([
      expect.objectContaining({ message: 'is set but empty', fix: expect.stringContaining('npm run build -- --targets FILE') }),
    ]);
  });
});

describe('the runtime settings', () => {
  it('the margin must leave time to work', () => {
    expect(() => runtimeConfigFromEnv({ LBSYNC_FUNCTION_TIMEOUT_MS: '10000', LBSYNC_DEADLINE_MARGIN_MS: '10000' })).toThrow(
      /LBSYNC_DEADLINE_MARGIN_MS/,
    );
    expect(() => runtimeConfigFromEnv({ LBSYNC_FUNCTION_TIMEOUT_MS: '999' })).toThrow(/LBSYNC_FUNCTION_TIMEOUT_MS/);
    expect(runtimeConfigFromEnv({})).toMatchObject({ functionTimeoutMs: 60_000, deadlineMarginMs: 10_000 });
  });

  it('unset, every variable takes its default from the environment catalogue, which the serverless.yml checker reads too', async () => {
    // The checker's own reading (plain node), to see it judges with the functions' defaults.
    const checker = new URL('../../../scripts/serverless-check/env-catalog.mjs', import.meta.url).href;
    const { RUNTIME_DEFAULTS } = (await import(checker)) as { RUNTIME_DEFAULTS: Record<string, unknown> };
    const file = Object.fromEntries(
      ENVIRONMENT_CATALOGUE.flatMap(([name, variable]) => (variable.default === undefined ? [] : [[name, variable.default]])),
    ) as Record<string, unknown>;
    const { SQS_REGION, ...runtimeOnes } = file;
    expect(runtimeDefaults()).toEqual(runtimeOnes);
    expect(queueConnectionFromEnv({ SQS_ACCESS_KEY_ID: 'key-id', SQS_SECRET_ACCESS_KEY: 'secret-key' }).region).toBe(SQS_REGION);
    expect(RUNTIME_DEFAULTS).toEqual(file);
    const config = runtimeConfigFromEnv({});
    expect(config).toMatchObject({
      retry: {
        baseMs: file.LBSYNC_RETRY_BASE_MS,
        capMs: file.LBSYNC_RETRY_CAP_MS,
        horizonMs: file.LBSYNC_RETRY_HORIZON_MS,
        // No default of its own: a safety cap sized from the horizon (test/unit/core/retry-horizon.test.ts).
        maxAttempts: defaultMaxAttempts({
          baseMs: file.LBSYNC_RETRY_BASE_MS as number,
          capMs: file.LBSYNC_RETRY_CAP_MS as number,
          horizonMs: file.LBSYNC_RETRY_HORIZON_MS as number,
        }),
      },
      maxHoldMs: file.LBSYNC_MAX_HOLD_MS,
      waitBudgetMs: file.LBSYNC_WAIT_BUDGET_MS,
      transientWaitMs: file.LBSYNC_TRANSIENT_WAIT_MS,
      requestTimeoutMs: file.LBSYNC_REQUEST_TIMEOUT_MS,
      duplicateGraceMs: file.LBSYNC_DUPLICATE_GRACE_MS,
      delayMode: file.QUEUE_DELAY_MODE,
    });
  });
});

describe("the inject function's settings", () => {
  it('INJECT_TOKEN trimmed, unset when empty; LBSYNC_INJECT_INSECURE only when exactly "true"', () => {
    expect(injectSettingsFromEnv({ INJECT_TOKEN: '  s3cret-token  ' })).toEqual({ token: 's3cret-token', insecure: false });
    expect(injectSettingsFromEnv({ INJECT_TOKEN: '   ' })).toEqual({ insecure: false });
    expect(injectSettingsFromEnv({})).toEqual({ insecure: false });
    expect(injectSettingsFromEnv({ LBSYNC_INJECT_INSECURE: 'true' })).toEqual({ insecure: true });
    for (const value of ['1', 'yes', 'TRUE', ' true'])
      expect(injectSettingsFromEnv({ LBSYNC_INJECT_INSECURE: value }).insecure, value).toBe(false);
  });
});

describe('integer variables: decimal digits only', () => {
  // Every LBSYNC_* integer the runtime reads, from its schema (a new one is held to the rule too).
  const integers = Object.keys(runtimeDefaults()).filter(
    (name) => typeof runtimeDefaults()[name as keyof ReturnType<typeof runtimeDefaults>] === 'number',
  );

  it.each(['0x10', '1e3', '-1', '+5', '1.5', '10_000', '1,000', '0b1', 'Infinity', '12ms'])(
    '%s is refused, named with its fix',
    (value) => {
      for (const name of [...integers, 'LBSYNC_MAX_ATTEMPTS']) {
        expect(
          fieldErrors(() => runtimeConfigFromEnv({ [name]: value })),
          name,
        ).toEqual([
          expect.objectContaining({
            path: name,
            message: expect.stringContaining('decimal digits'),
            received: JSON.stringify(value),
            fix: expect.stringContaining('digits only'),
          }),
        ]);
      }
    },
  );

  it('digits are read as the number they write, blanks around them dropped', () => {
    expect(runtimeConfigFromEnv({ LBSYNC_REQUEST_TIMEOUT_MS: '015000', LBSYNC_MAX_HOLD_MS: ' 2000 ' })).toMatchObject({
      requestTimeoutMs: 15_000,
      maxHoldMs: 2_000,
    });
  });
});

describe('the retry horizon has a floor: a transient wait and one backoff step', () => {
  it('0, or anything below LBSYNC_TRANSIENT_WAIT_MS + LBSYNC_RETRY_BASE_MS, is refused naming the floor', () => {
    // Defaults: a 5000 ms transient wait, a 2000 ms base.
    for (const horizon of ['0', '1', '6999']) {
      expect(fieldErrors(() => runtimeConfigFromEnv({ LBSYNC_RETRY_HORIZON_MS: horizon }))).toEqual([
        expect.objectContaining({
          path: 'LBSYNC_RETRY_HORIZON_MS',
          message: expect.stringContaining('less than its floor of 7000 ms'),
          received: horizon,
          fix: expect.stringContaining('at least 7000'),
        }),
      ]);
    }
    expect(runtimeConfigFromEnv({ LBSYNC_RETRY_HORIZON_MS: '7000' }).retry.horizonMs).toBe(7000);
    const quick = { LBSYNC_TRANSIENT_WAIT_MS: '0', LBSYNC_RETRY_BASE_MS: '50' };
    expect(runtimeConfigFromEnv({ ...quick, LBSYNC_RETRY_HORIZON_MS: '50' }).retry.horizonMs).toBe(50);
    expect(() => runtimeConfigFromEnv({ ...quick, LBSYNC_RETRY_HORIZON_MS: '49' })).toThrow(/floor of 50 ms/);
  });
});
