// `lbsync doctor` over a fleet (the real bin): each key pair checked against the targets it serves, the key named
// for each target by its variables, a bad key failing its own targets' lines only, and no key value ever printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../emulator';
import { FLEET_DENIALS, fleetSeed, fleetTargets, KEY_VARIABLES, KEYS, ORG_A, PROJECT_A1 } from '../support/fleet';
import { runBin } from './support';

interface Report {
  ok: boolean;
  checks: { name: string; status: 'ok' | 'fail' | 'warn'; detail: string; hint?: string }[];
}

/** Organization B's key without LB read (and the one without Audit Trail, from the fleet's switches). */
const NO_LB = { accessKey: 'SCWFLEETTEAMBNOLB005', secretKey: 'b5b5b5b5-5555-4555-8555-b5b5b5b5b5b5' };

let emulator: EmulatorHandle;
let env: Record<string, string>;

beforeAll(async () => {
  const seed = fleetSeed();
  seed.organizations?.[1]?.apiKeys?.push({ secretKey: NO_LB.secretKey });
  emulator = await startEmulator({ seed, denyApis: [...FLEET_DENIALS, { api: 'lb', secretKey: NO_LB.secretKey }] });
  env = {
    SCW_ACCESS_KEY: KEYS.deployment.accessKey,
    SCW_SECRET_KEY: KEYS.deployment.secretKey,
    SCW_DEFAULT_PROJECT_ID: PROJECT_A1,
    SCW_DEFAULT_ORGANIZATION_ID: ORG_A,
    SCW_API_URL: emulator.url,
    LBSYNC_TARGETS: JSON.stringify(fleetTargets()),
    ...KEY_VARIABLES,
  };
});
afterAll(async () => {
  await emulator?.stop();
});

async function doctor(overrides: Record<string, string> = {}, without: string[] = []) {
  const run = await runBin(
    ['doctor', '--no-queue', '-o', 'json'],
    Object.fromEntries(Object.entries({ ...env, ...overrides }).filter(([k]) => !without.includes(k))),
  );
  const text = await runBin(
    ['doctor', '--no-queue'],
    Object.fromEntries(Object.entries({ ...env, ...overrides }).filter(([k]) => !without.includes(k))),
  );
  // No key's value is ever printed, whatever went wrong.
  for (const value of [...Object.values(KEYS).flatMap((k) => [k.accessKey, k.secretKey]), NO_LB.accessKey, NO_LB.secretKey]) {
    expect(run.stdout + run.stderr + text.stdout + text.stderr).not.toContain(value);
  }
  const report = JSON.parse(run.stdout) as Report;
  const check = (name: string) => report.checks.find((c) => c.name === name);
  return { code: run.code, report, check, text: text.stdout };
}

describe('lbsync doctor over a fleet', () => {
  it('checks each key pair against its targets and says which key serves which target; all ok', async () => {
    const { code, report, check, text } = await doctor();
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(code).toBe(0);
    expect(check('credentials')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/it serves alpha\.k8s\.local$/) });
    expect(check('credentials:TEAM_A2_ACCESS_KEY')).toMatchObject({
      status: 'ok',
      detail: 'the API accepted the key from TEAM_A2_ACCESS_KEY / TEAM_A2_SECRET_KEY; it serves beta.k8s.local',
    });
    expect(check('credentials:TEAM_B_ACCESS_KEY')?.detail).toBe(
      'the API accepted the key from TEAM_B_ACCESS_KEY / TEAM_B_SECRET_KEY; it serves gamma.k8s.local, delta.k8s.local',
    );
    for (const suffix of ['', ':TEAM_A2_ACCESS_KEY', ':TEAM_B_ACCESS_KEY'])
      expect(check(`iam:lb-read${suffix}`)?.status, `iam:lb-read${suffix}`).toBe('ok');
    // Every target found its LB and its servers with its own key, in its own project (beta's decoy in A1 left out).
    for (const cluster of ['alpha', 'beta', 'gamma', 'delta']) {
      expect(check(`target:${cluster}.k8s.local:lb`)?.status).toBe('ok');
      expect(check(`target:${cluster}.k8s.local:servers`)?.detail).toMatch(/^3 server\(s\)/);
    }
    expect(check('target:beta.k8s.local:servers')).toMatchObject({ status: 'warn', detail: expect.stringContaining('is in project') });
    // Every organization's trail read with a key of its own.
    for (const cluster of ['alpha', 'beta', 'gamma', 'delta']) expect(check(`target:${cluster}.k8s.local:writers`)?.status).toBe('ok');
    expect(text).toContain('credentials:TEAM_B_ACCESS_KEY');
  });

  it("a target's key variable unset: its key's line fails naming the variable and its targets; the others are checked", async () => {
    const { code, report, check } = await doctor({}, ['TEAM_B_SECRET_KEY']);
    expect(code).toBe(1);
    expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.name)).toEqual(['credentials:TEAM_B_ACCESS_KEY']);
    expect(check('credentials:TEAM_B_ACCESS_KEY')).toMatchObject({
      detail: expect.stringContaining('TEAM_B_SECRET_KEY: is not set; target "gamma.k8s.local" names it in credentials.secretKeyEnv'),
      hint: expect.stringContaining('set TEAM_B_SECRET_KEY'),
    });
    expect(check('target:alpha.k8s.local:plan')?.status).toBe('ok');
    expect(check('target:beta.k8s.local:plan')?.status).toBe('ok');
    expect(check('target:gamma.k8s.local:lb')).toBeUndefined();
  });

  it("a key without LB read: that key's iam line fails and names it in the hint; a key without Audit Trail: its targets' writers skipped", async () => {
    const { code, check } = await doctor({ TEAM_B_ACCESS_KEY: NO_LB.accessKey, TEAM_B_SECRET_KEY: NO_LB.secretKey });
    expect(code).toBe(1);
    expect(check('iam:lb-read:TEAM_B_ACCESS_KEY')).toMatchObject({
      status: 'fail',
      hint: expect.stringContaining('give the key of TEAM_B_ACCESS_KEY'),
    });
    expect(check('iam:lb-read')?.status).toBe('ok');
    expect(check('iam:lb-read:TEAM_A2_ACCESS_KEY')?.status).toBe('ok');

    const noTrail = await doctor({
      TEAM_B_ACCESS_KEY: KEYS.teamBNoAuditTrail.accessKey,
      TEAM_B_SECRET_KEY: KEYS.teamBNoAuditTrail.secretKey,
    });
    expect(noTrail.check('target:gamma.k8s.local:writers')).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/^skipped: Audit Trail not read/),
    });
    expect(noTrail.check('target:alpha.k8s.local:writers')?.status).toBe('ok');
    expect(noTrail.code).toBe(0);
  });
});
