/**
 * The emulator's error bodies against the ones recorded behind the same API gateway (test/fixtures/scaleway-api,
 * ERROR_BODY_CASSETTE): the LB API's own 400, 401, 403, 409 and 412 are not recorded, other products' are, and the
 * gateway's errors share their shape (`type`, `message`, and the keys each type carries) and their generic messages.
 * What only the LB's own would tell (the `resource` a 409 names, a 412's precondition and help message) stays assumed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { faultBodies, startEmulator, type EmulatorHandle } from '../../../emulator';
import { cassetteNames, ERROR_BODY_CASSETTE, jsonBody, readCassette } from '../../support/cassettes';
import { convergedDemoSeed, DEMO_LB_ID, FAKE_SECRET_KEY } from '../../support/world';

type Json = Record<string, unknown>;

/** The first body a recording answered with this status. */
function recorded(cassette: string, status: number): Json {
  const interaction = readCassette(cassette).find((i) => i.code === status);
  const body = interaction && jsonBody(interaction.responseBody);
  if (!body) throw new Error(`${cassette} has no ${status} with a JSON body`);
  return body;
}

/** Every key path of a body; array items share the path `name[]`. */
function shape(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return [...new Set(value.flatMap((item) => shape(item, `${prefix}[]`)))];
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value)
    .flatMap(([key, child]) => shape(child, prefix === '' ? key : `${prefix}.${key}`))
    .sort();
}

let emulator: EmulatorHandle;
let backendId: string;

async function call(method: string, path: string, body?: unknown, auth = true): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { ...(auth && { 'X-Auth-Token': FAKE_SECRET_KEY }), 'Content-Type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const setServers = (ips: string[]) => call('PUT', `/lb/v1/zones/fr-par-1/backends/${backendId}/servers`, { server_ip: ips });

beforeAll(async () => {
  emulator = await startEmulator({ seed: convergedDemoSeed(), requireAuth: true });
});
afterAll(async () => {
  await emulator.stop();
});
beforeEach(() => {
  emulator.loadSeed(convergedDemoSeed());
  emulator.clearFaults();
  emulator.setBehaviours({ writesWhileTransient: 'refuse', writesWhileStopped: 'accept' });
  backendId = [...emulator.state.backends.values()][0]?.id ?? '';
});

describe('error bodies as the gateway answers them (recorded on other products)', () => {
  it('finds the five recordings kept for their error bodies', () => {
    expect(cassetteNames().filter((name) => ERROR_BODY_CASSETTE.test(name))).toEqual([
      'cli-alias-test-alias-delete-alias',
      'flexibleip-data-source-flexible-ip-basic',
      'sdk-go-instance-test-create-server-with-incorrect-body',
      'secret-secret-protected',
      'vpc-data-source-routes-basic',
    ]);
  });

  it('401 denied_authentication (cli-alias-test-alias-delete-alias #0): the same body', async () => {
    const answer = await call('GET', `/lb/v1/zones/fr-par-1/lbs/${DEMO_LB_ID}`, undefined, false);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(recorded('cli-alias-test-alias-delete-alias', 401));
    emulator.addFault({ operation: 'GetLb', status: 401 });
    expect((await call('GET', `/lb/v1/zones/fr-par-1/lbs/${DEMO_LB_ID}`)).body).toEqual(answer.body);
  });

  it('400 invalid_arguments (sdk-go-instance-test-create-server-with-incorrect-body #0): its shape, message and a required key', async () => {
    const theirs = recorded('sdk-go-instance-test-create-server-with-incorrect-body', 400);
    const answer = await call('POST', `/lb/v1/zones/fr-par-1/lbs/${DEMO_LB_ID}/backends`, { name: 'b', forward_port: 443 });
    expect(answer.status).toBe(400);
    expect(shape(answer.body)).toEqual(shape(theirs));
    expect([answer.body.type, answer.body.message]).toEqual([theirs.type, theirs.message]);
    const required = (body: Json) =>
      (body.details as Json[]).filter((d) => d.reason === 'required').map((d) => ({ reason: d.reason, help_message: d.help_message }));
    expect(required(answer.body)[0]).toEqual(required(theirs)[0]);
  });

  it('403 permissions_denied (flexibleip-data-source-flexible-ip-basic #24): a fault with no body answers its shape and message', async () => {
    const theirs = recorded('flexibleip-data-source-flexible-ip-basic', 403);
    emulator.addFault({ operation: 'SetBackendServers', status: 403 });
    const answer = await setServers([]);
    expect(answer.status).toBe(403);
    expect(shape(answer.body)).toEqual(shape(theirs));
    expect([answer.body.type, answer.body.message]).toEqual([theirs.type, theirs.message]);
    expect(shape(faultBodies.permissionsDenied().body)).toEqual(shape(theirs));
  });

  it('409 transient_state (vpc-data-source-routes-basic #18): a write while the LB is busy answers its shape and message', async () => {
    const theirs = recorded('vpc-data-source-routes-basic', 409);
    emulator.setLbStatus(DEMO_LB_ID, 'migrating');
    const answer = await setServers([]);
    expect(answer.status).toBe(409);
    expect(shape(answer.body)).toEqual(shape(theirs));
    expect([answer.body.type, answer.body.message]).toEqual([theirs.type, theirs.message]);
    expect(answer.body).toMatchObject({ resource: 'lb', resource_id: DEMO_LB_ID, current_state: 'migrating' });
    expect(shape(faultBodies.transientState(DEMO_LB_ID).body)).toEqual(shape(theirs));
  });

  it('412 precondition_failed (secret-secret-protected #8): the refused writes and a fault with no body answer its shape and message', async () => {
    const theirs = recorded('secret-secret-protected', 412);
    emulator.setBehaviours({ writesWhileStopped: 'refuse' });
    emulator.setLbStatus(DEMO_LB_ID, 'stopped');
    const refused = await setServers([]);
    emulator.setLbStatus(DEMO_LB_ID, 'ready');
    emulator.addFault({ operation: 'SetBackendServers', status: 412 });
    const fault = await setServers([]);
    for (const answer of [refused, fault]) {
      expect(answer.status).toBe(412);
      expect(shape(answer.body)).toEqual(shape(theirs));
      expect([answer.body.type, answer.body.message]).toEqual([theirs.type, theirs.message]);
    }
  });
});
