/**
 * Organizations, projects and their keys (emulator/tenancy.ts), driven by the real SDKs: a key is answered for its
 * own organization's resources only, with the 403 the real API gives for a resource out of a key's reach.
 */
import { AuditTrailv1alpha1 } from '@scaleway/sdk-audit-trail';
import { createClient, Errors } from '@scaleway/sdk-client';
import { Instancev1 } from '@scaleway/sdk-instance';
import { Ipamv1 } from '@scaleway/sdk-ipam';
import { Lbv1 } from '@scaleway/sdk-lb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../emulator';
import { jsonBody, readCassette } from '../../support/cassettes';
import { FLEET, fleetSeed, KEYS, ORG_A, ORG_B, PROJECT_A1, PROJECT_A2, PROJECT_B1 } from '../../support/fleet';

const UNBOUND = { accessKey: 'SCWUNBOUNDKEY0000009', secretKey: '99999999-9999-4999-8999-999999999999' };
const NO_AUDIT_TRAIL = { accessKey: 'SCWNOAUDITTRAIL00010', secretKey: '10101010-1010-4010-8010-101010101010' };

let emulator: EmulatorHandle;

function apis(key: { accessKey: string; secretKey: string }) {
  const client = createClient({ ...key, apiURL: emulator.url, defaultZone: 'fr-par-1', defaultRegion: 'fr-par' });
  return {
    lb: new Lbv1.ZonedAPI(client),
    instance: new Instancev1.API(client),
    ipam: new Ipamv1.API(client),
    auditTrail: new AuditTrailv1alpha1.API(client),
  };
}

async function refusal(promise: Promise<unknown>): Promise<Errors.PermissionsDeniedError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(Errors.PermissionsDeniedError);
    return error as Errors.PermissionsDeniedError;
  }
  throw new Error('expected a 403 permissions_denied');
}

const [alpha, beta, gamma] = FLEET as [(typeof FLEET)[number], (typeof FLEET)[number], (typeof FLEET)[number]];

beforeAll(async () => {
  const seed = fleetSeed();
  // Organization A also holds a key that lacks AuditTrailReadOnly.
  seed.organizations?.[0]?.apiKeys?.push({ secretKey: NO_AUDIT_TRAIL.secretKey });
  emulator = await startEmulator({
    seed,
    auditTrailDelayMs: 0,
    denyApis: [{ api: 'audit-trail', secretKey: NO_AUDIT_TRAIL.secretKey }],
  });
});
afterAll(async () => {
  await emulator.stop();
});
beforeEach(() => {
  emulator.loadSeed(fleetSeed());
  emulator.auditTrail.clear();
});

describe('organizations and their keys', () => {
  it("lists hold only the key's own organization's LBs, servers and IPAM addresses", async () => {
    const a = apis(KEYS.deployment);
    const b = apis(KEYS.teamB);
    const lbNames = async (api: ReturnType<typeof apis>, zone: 'fr-par-1' | 'fr-par-2') =>
      (await api.lb.listLbs({ zone }).all()).map((lb) => lb.name);
    expect(await lbNames(a, 'fr-par-1')).toEqual([`api.${alpha.cluster}`]);
    expect(await lbNames(a, 'fr-par-2')).toEqual([`api.${beta.cluster}`]);
    expect(await lbNames(b, 'fr-par-1')).toEqual([`api.${gamma.cluster}`]);
    expect(await lbNames(b, 'fr-par-2')).toEqual([]);

    const projects = async (api: ReturnType<typeof apis>) =>
      new Set((await api.instance.listServers({ zone: 'fr-par-1' }).all()).map((s) => s.project));
    expect(await projects(a)).toEqual(new Set([PROJECT_A1]));
    expect(await projects(b)).toEqual(new Set([PROJECT_B1]));
    // Project A2's key is organization A's: it sees A1's decoy in fr-par-2 as well (the project check is the reconciler's).
    expect(new Set((await apis(KEYS.teamA2).instance.listServers({ zone: 'fr-par-2' }).all()).map((s) => s.project))).toEqual(
      new Set([PROJECT_A1, PROJECT_A2]),
    );

    const ipProjects = async (api: ReturnType<typeof apis>) =>
      new Set((await api.ipam.listIPs({ region: 'fr-par' }).all()).map((ip) => ip.projectId));
    expect(await ipProjects(a)).toEqual(new Set([PROJECT_A1, PROJECT_A2]));
    expect(await ipProjects(b)).toEqual(new Set([PROJECT_B1]));
  });

  it("another organization's LB, backend or server is a 403 permissions_denied, shaped as the API's (flexibleip #24); nothing is written", async () => {
    const b = apis(KEYS.teamB);
    const read = await refusal(b.lb.getLb({ zone: 'fr-par-1', lbId: alpha.lbId }));
    expect(read.list).toEqual([{ action: 'read', resource: 'lbs' }]);
    const backendId = [...emulator.state.backends.values()].find((x) => x.lbId === alpha.lbId)?.id as string;
    const write = await refusal(b.lb.setBackendServers({ zone: 'fr-par-1', backendId, serverIp: ['51.15.21.1'] }));
    expect(write.list).toEqual([{ action: 'write', resource: 'lbs' }]);
    expect(emulator.state.backends.get(backendId)?.pool).toEqual([]);
    expect(emulator.history()).toEqual([]);
    const server = [...emulator.state.servers.values()].find((s) => s.projectId === PROJECT_A1) as { id: string };
    await refusal(b.instance.getServer({ zone: 'fr-par-1', serverId: server.id }));

    // The body is the recorded one, word for word but for the resource it names.
    const recorded = readCassette('flexibleip-data-source-flexible-ip-basic').find((i) => i.id === 24);
    expect(recorded?.code).toBe(403);
    expect(recorded?.method).toBe('GET');
    const raw = await fetch(`${emulator.url}/lb/v1/zones/fr-par-1/lbs/${alpha.lbId}`, {
      headers: { 'X-Auth-Token': KEYS.teamB.secretKey },
    });
    expect(raw.status).toBe(403);
    const body = (await raw.json()) as Record<string, unknown>;
    const expected = jsonBody(recorded?.responseBody ?? '') as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(Object.keys(expected).sort());
    expect({ ...body, details: undefined }).toEqual({ ...expected, details: undefined });
  });

  it('Audit Trail: a key reads its own organization, is refused another, and a key denied AuditTrailReadOnly is refused its own', async () => {
    emulator.serverAction([...emulator.state.servers.values()].find((s) => s.projectId === PROJECT_B1)?.id as string, 'reboot');
    emulator.serverAction([...emulator.state.servers.values()].find((s) => s.projectId === PROJECT_A2)?.id as string, 'reboot');
    const list = (key: { accessKey: string; secretKey: string }, organizationId: string) =>
      apis(key).auditTrail.listEvents({ region: 'fr-par', organizationId });
    // Each server's event is recorded in its own organization and project.
    expect((await list(KEYS.teamB, ORG_B)).events.map((e) => [e.organizationId, e.projectId])).toEqual([[ORG_B, PROJECT_B1]]);
    expect((await list(KEYS.deployment, ORG_A)).events.map((e) => [e.organizationId, e.projectId])).toEqual([[ORG_A, PROJECT_A2]]);
    expect((await refusal(list(KEYS.teamB, ORG_A))).list).toEqual([{ action: 'read', resource: 'events' }]);
    await refusal(list(NO_AUDIT_TRAIL, ORG_A));
  });

  it('a key no organization holds is answered as before organizations existed: everything', async () => {
    const names = (await apis(UNBOUND).lb.listLbs({ zone: 'fr-par-1' }).all()).map((lb) => lb.name).sort();
    expect(names).toEqual([`api.${alpha.cluster}`, `api.${gamma.cluster}`]);
    expect((await apis(UNBOUND).lb.getLb({ zone: 'fr-par-1', lbId: gamma.lbId })).id).toBe(gamma.lbId);
  });

  it('a seed naming a project no organization holds is refused, naming the project', () => {
    const seed = fleetSeed();
    seed.servers?.push({ name: 'orphan', zone: 'fr-par-1', tags: [], projectId: '00000000-0000-4000-8000-00000000dead' });
    expect(() => emulator.loadSeed(seed)).toThrow(/project 00000000-0000-4000-8000-00000000dead is in no organization/);
  });
});
