import { describe, expect, it } from 'vitest';
import { auditTrailSettingsFromEnv, runtimeConfigFromEnv } from '../../../shared/platform/config';
import { LbSyncError } from '../../../shared/errors/lbsync-error';

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

describe('the watcher\'s configuration', () => {
  it('reads the organization from LBSYNC_SCW_DEFAULT_ORGANIZATION_ID (a function) before SCW_DEFAULT_ORGANIZATION_ID (the CLI)', () => {
    expect(auditTrailSettingsFromEnv({ ...KEYS, SCW_DEFAULT_ORGANIZATION_ID: ORG })).toMatchObject({ organizationId: ORG, ownPrincipalIds: [] });
    const other = '00000000-0000-4000-8000-000000000001';
    expect(auditTrailSettingsFromEnv({ ...KEYS, SCW_DEFAULT_ORGANIZATION_ID: ORG, LBSYNC_SCW_DEFAULT_ORGANIZATION_ID: other }).organizationId).toBe(other);
  });

  it('a missing or malformed organization id is a field error naming the variable and the fix', () => {
    const missing = fieldErrors(() => auditTrailSettingsFromEnv({ ...KEYS }));
    expect(missing).toEqual([expect.objectContaining({ path: 'SCW_DEFAULT_ORGANIZATION_ID', message: 'is not set', fix: expect.stringContaining('LBSYNC_SCW_DEFAULT_ORGANIZATION_ID') })]);
    const malformed = fieldErrors(() => auditTrailSettingsFromEnv({ ...KEYS, SCW_DEFAULT_ORGANIZATION_ID: 'my-org' }));
    expect(malformed).toEqual([expect.objectContaining({ path: 'SCW_DEFAULT_ORGANIZATION_ID', message: 'must be a UUID', received: 'my-org' })]);
  });

  it('own principal ids: a comma-separated list of UUIDs', () => {
    const ids = '7d3c1a90-5b2e-4f1c-8a6d-2e9f0b4c1d11, 8d3c1a90-5b2e-4f1c-8a6d-2e9f0b4c1d12';
    expect(auditTrailSettingsFromEnv({ ...KEYS, SCW_DEFAULT_ORGANIZATION_ID: ORG, LBSYNC_WATCH_OWN_PRINCIPAL_IDS: ids }).ownPrincipalIds).toHaveLength(2);
    expect(fieldErrors(() => auditTrailSettingsFromEnv({ ...KEYS, SCW_DEFAULT_ORGANIZATION_ID: ORG, LBSYNC_WATCH_OWN_PRINCIPAL_IDS: 'lbsync-functions' }))).toEqual([
      expect.objectContaining({ path: 'LBSYNC_WATCH_OWN_PRINCIPAL_IDS', received: 'lbsync-functions' }),
    ]);
  });

  it('window and spread: defaults, and bad values named', () => {
    expect(runtimeConfigFromEnv({})).toMatchObject({ watch: { periodMs: 60_000, overlapMs: 120_000 }, sweepSpreadMs: 300_000 });
    expect(runtimeConfigFromEnv({ LBSYNC_WATCH_OVERLAP_MS: '300000', LBSYNC_SWEEP_SPREAD_MS: '0' })).toMatchObject({ watch: { overlapMs: 300_000 }, sweepSpreadMs: 0 });
    expect(fieldErrors(() => runtimeConfigFromEnv({ LBSYNC_SWEEP_SPREAD_MS: '1000000' })).map((e) => e.path)).toEqual(['LBSYNC_SWEEP_SPREAD_MS']);
    expect(fieldErrors(() => runtimeConfigFromEnv({ LBSYNC_WATCH_PERIOD_MS: 'every minute' })).map((e) => e.path)).toEqual(['LBSYNC_WATCH_PERIOD_MS']);
  });
});
