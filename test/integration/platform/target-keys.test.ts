// The key each target's calls authenticate with (shared/platform/target-keys.ts), against the fleet's world where a
// key is answered for its own organization only: the wrong key finds nothing or is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../emulator';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import { secretValues } from '../../../shared/platform/config';
import { createScalewayGateway } from '../../../shared/adapters/scaleway';
import { keyIdOf, keyLabel } from '../../../shared/core/target-accounts';
import { type Env, gatewayPerKey, targetKeyPair } from '../../../shared/platform/target-keys';
import { findLb } from '../../../shared/reconcile/observe';
import { parseTargets, type Target } from '../../../shared/schemas/target';
import { FLEET, fleetSeed, fleetTargets, KEY_VARIABLES, KEYS, PROJECT_A1 } from '../../support/fleet';

let emulator: EmulatorHandle;
const targets = parseTargets(fleetTargets());
const [alpha, beta, gamma, delta] = targets as [Target, Target, Target, Target];
const env = { ...KEY_VARIABLES };

beforeAll(async () => {
  emulator = await startEmulator({ seed: fleetSeed() });
});
afterAll(async () => {
  await emulator.stop();
});

const deployment = () => ({ ...KEYS.deployment, apiUrl: emulator.url, projectId: PROJECT_A1 });
/** The reconcile function's way: the deployment's connection, the target's key. */
const targetGateways = (variables: Env) => gatewayPerKey(variables, (key) => createScalewayGateway({ ...deployment(), ...key }));

function failure(run: () => unknown): LbSyncError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LbSyncError);
    return error as LbSyncError;
  }
  throw new Error('expected an error');
}

describe("a target's key", () => {
  it("every target's calls go out with its own key: each finds its LB, which the deployment's key cannot reach", async () => {
    emulator.resetCalls();
    const gatewayFor = targetGateways(env);
    for (const [target, cluster] of targets.map((t, i) => [t, FLEET[i]] as const)) {
      const { lb } = await findLb(gatewayFor(target), target);
      expect(lb.id).toBe(cluster?.lbId);
    }
    // The deployment's key is organization A's: organization B's LBs are none of its business.
    await expect(findLb(targetGateways({})(alpha), gamma)).rejects.toMatchObject({ code: 'lb_not_found' });
  });

  it('one gateway per key pair: targets sharing a key share it, others get their own', () => {
    const gatewayFor = targetGateways(env);
    expect(gatewayFor(gamma)).toBe(gatewayFor(delta));
    expect(gatewayFor(gamma)).not.toBe(gatewayFor(beta));
    expect(gatewayFor(alpha)).not.toBe(gatewayFor(beta));
    expect([alpha, beta, gamma, delta].map((t) => keyIdOf(t))).toEqual([
      'deployment',
      'TEAM_A2_ACCESS_KEY/TEAM_A2_SECRET_KEY',
      'TEAM_B_ACCESS_KEY/TEAM_B_SECRET_KEY',
      'TEAM_B_ACCESS_KEY/TEAM_B_SECRET_KEY',
    ]);
    expect(keyLabel(gamma)).toBe('the key in TEAM_B_ACCESS_KEY / TEAM_B_SECRET_KEY');
  });

  it('an unset variable is invalid_config naming the target and the variable; the other targets still get theirs', () => {
    const { TEAM_B_SECRET_KEY: _gone, ...partial } = env;
    const gatewayFor = targetGateways(partial);
    const error = failure(() => gatewayFor(gamma));
    expect(error.code).toBe('invalid_config');
    expect(error.fieldErrors).toEqual([
      expect.objectContaining({ path: 'TEAM_B_SECRET_KEY', message: expect.stringContaining('target "gamma.k8s.local"') }),
    ]);
    expect(gatewayFor(beta)).toBeDefined();
    expect(gatewayFor(alpha)).toBeDefined();
  });

  it('a malformed key is invalid_credentials naming the variable and the target, never quoting the value', () => {
    const error = failure(() => targetKeyPair(gamma, { ...env, TEAM_B_ACCESS_KEY: 'not-a-key-4242' }));
    expect(error.code).toBe('invalid_credentials');
    expect(error.message).toContain('TEAM_B_ACCESS_KEY (credentials of target "gamma.k8s.local")');
    expect(error.message).not.toContain('not-a-key-4242');
  });

  it("the targets' key values are secrets: scrubbed from every line, answer and record", () => {
    const secrets = secretValues({ ...env, LBSYNC_TARGETS: JSON.stringify(fleetTargets()) });
    for (const value of Object.values(KEY_VARIABLES)) expect(secrets).toContain(value);
    // Targets that do not load name no variable: nothing is read for them.
    expect(secretValues({ ...env, LBSYNC_TARGETS: '[' })).not.toContain(KEYS.teamB.secretKey);
  });
});
