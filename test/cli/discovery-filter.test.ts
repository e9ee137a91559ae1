// `lbsync plan`, `reconcile` and `doctor` (the real bin) against an emulator whose ListServers tags filter is one
// notch looser than documented (`serverTagsFilter: any`), in a zone the demo cluster shares with two others: the API
// then answers the demo's workers and every cluster's control planes. What the operator sees and what is written
// must hold the demo's control planes only, and name what the API answered beyond them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../emulator';
import { DEMO_CLUSTER, DEMO_CONTROL_PLANE_IPS, DEMO_WORKER_IPS, demoSeed, FAKE_SECRET_KEY, neighbourServers } from '../support/world';
import { demoApiEnv, runBin } from './support';

let emulator: EmulatorHandle;
let env: Record<string, string>;

/** What the looser filter returns beyond the demo's control planes. */
const FOREIGN = [
  'nodes-fr-par-1-0',
  'nodes-fr-par-1-1',
  ...neighbourServers()
    .filter((s) => s.tags.includes('noprefix=kops.k8s.io/role=ControlPlane'))
    .map((s) => s.name),
];
const FOREIGN_IPS = [
  ...DEMO_WORKER_IPS,
  ...neighbourServers().flatMap((s) => s.publicIps ?? []),
  ...neighbourServers().flatMap((s) => (s.privateNics ?? []).flatMap((n) => n.ipamAddresses.map((a) => a.split('/')[0] as string))),
];

beforeAll(async () => {
  const seed = demoSeed();
  emulator = await startEmulator({
    seed: { ...seed, servers: [...(seed.servers ?? []), ...neighbourServers()] },
    instancePendingMs: 50,
    behaviours: { serverTagsFilter: 'any' },
  });
  env = {
    ...demoApiEnv(emulator.url),
    LBSYNC_WAIT_BUDGET_MS: '5000',
  };
});
afterAll(async () => {
  await emulator?.stop();
});

const mismatchOf = (warnings: string[]) => warnings.filter((w) => w.startsWith('[discovery_filter_mismatch] '));

function expectNamesEveryForeignServer(warning: string | undefined): void {
  for (const name of FOREIGN) expect(warning, name).toContain(`server ${name} (`);
  expect(warning).not.toMatch(/server control-plane-fr-par-1-\d/);
}

describe('a looser ListServers tags filter (serverTagsFilter any), seen through the CLI', () => {
  it('plan: the desired pool is the control planes; every other server the API answered is named, once', async () => {
    const json = await runBin(['plan', '-o', 'json'], env);
    expect(json.code).toBe(2);
    const [target] = (
      JSON.parse(json.stdout) as {
        targets: { desiredPool: string[]; serverCount: number; warnings: string[]; backends: { poolChanges: { ip: string }[] }[] }[];
      }
    ).targets;
    expect(target?.desiredPool).toEqual(DEMO_CONTROL_PLANE_IPS);
    expect(target?.serverCount).toBe(3);
    expect(target?.backends.flatMap((b) => b.poolChanges.map((c) => c.ip)).filter((ip) => FOREIGN_IPS.includes(ip))).toEqual([]);
    const reported = mismatchOf(target?.warnings ?? []);
    expect(reported).toHaveLength(1);
    expectNamesEveryForeignServer(reported[0]);

    const text = await runBin(['plan'], env);
    expect(text.stdout).toContain('warning: [discovery_filter_mismatch] the API answered 8 item(s)');
    expect(text.stdout).toContain('from 3 servers matching the tags');
    for (const ip of FOREIGN_IPS) expect(text.stdout).not.toContain(`+ ${ip} `);
  });

  it('doctor: the servers line warns, naming them, with the hint; the run still passes', async () => {
    const run = await runBin(['doctor', '--no-queue', '-o', 'json'], env);
    expect(run.code).toBe(0);
    const { checks } = JSON.parse(run.stdout) as { checks: { name: string; status: string; detail: string; hint?: string }[] };
    const servers = checks.find((c) => c.name === `target:${DEMO_CLUSTER}:servers`);
    expect(servers?.status).toBe('warn');
    expect(servers?.detail).toMatch(/^3 server\(s\) carry .*; the pool would be \[51\.15\.100\.11, 51\.15\.100\.12, 51\.15\.100\.13\]/);
    expect(servers?.detail).toContain('; [discovery_filter_mismatch] the API answered 8 item(s)');
    expectNamesEveryForeignServer(servers?.detail);
    expect(servers?.hint).toMatch(/left out of every pool/);
  });

  it('reconcile: every pool write holds the control planes only (the emulator pool history)', async () => {
    emulator.resetHistory();
    const run = await runBin(['reconcile', '-o', 'json'], env);
    expect(run.code).toBe(0);
    const history = emulator.history();
    expect(history.map((w) => w.operation)).toEqual(['CreateBackend']);
    expect(history.flatMap((w) => w.pool)).toEqual(DEMO_CONTROL_PLANE_IPS);
    const [target] = (JSON.parse(run.stdout) as { targets: { warnings: string[] }[] }).targets;
    expect(mismatchOf(target?.warnings ?? [])).toHaveLength(1);
  });
});

describe('a ListLbs answer holding an exact namesake of the LB in another zone, seen through doctor', () => {
  it('the lb line warns and names it with the hint; the LB of the target’s zone is the one checked', async () => {
    const response = await fetch(`${emulator.url}/lb/v1/zones/fr-par-1/lbs`, { headers: { 'X-Auth-Token': FAKE_SECRET_KEY } });
    const { lbs } = (await response.json()) as { lbs: Record<string, unknown>[] };
    const own = lbs.find((lb) => lb.name === `api.${DEMO_CLUSTER}`) as Record<string, unknown>;
    const elsewhere = { ...own, id: '00000000-0000-4000-8000-0000000000a3', zone: 'nl-ams-1', region: 'nl-ams' };
    emulator.addFault({ operation: 'ListLbs', status: 200, body: { lbs: [own, elsewhere], total_count: 2 }, count: -1 });
    try {
      const run = await runBin(['doctor', '--no-queue', '-o', 'json'], env);
      expect(run.code).toBe(0);
      const { checks } = JSON.parse(run.stdout) as { checks: { name: string; status: string; detail: string; hint?: string }[] };
      const lb = checks.find((c) => c.name === `target:${DEMO_CLUSTER}:lb`);
      expect(lb?.status).toBe('warn');
      expect(lb?.detail).toBe(
        `api.${DEMO_CLUSTER} (${String(own.id)}) is ready; the only LB named exactly so in fr-par-1; [discovery_filter_mismatch] the API answered 1 item(s) its request did not ask for, left out of every pool and backend: load-balancer api.${DEMO_CLUSTER} (00000000-0000-4000-8000-0000000000a3): is in zone nl-ams-1, not fr-par-1`,
      );
      expect(lb?.hint).toMatch(/left out of every pool/);
    } finally {
      emulator.clearFaults();
    }
  });
});
