import { readFileSync } from 'node:fs';
import type { ScalewayGateway, ScalewaySettings } from '../../shared/adapters/scaleway';
import { createScalewayGateway } from '../../shared/adapters/scaleway';
import type { Target } from '../../shared/schemas/target';
import { parseTargets } from '../../shared/schemas/target';
import type { EmulatorHandle, EmulatorSeed, SeedBackend, SeedFrontend, SeedLb, SeedLbPrivateNetwork, SeedServer } from '../../emulator';
import { startEmulator } from '../../emulator';

export const DEMO_CLUSTER = 'demo.k8s.local';
export const DEMO_CONTROL_PLANE_IPS = ['51.15.100.11', '51.15.100.12', '51.15.100.13'];
export const DEMO_WORKER_IPS = ['51.15.100.21', '51.15.100.22'];
export const DEMO_LB_ID = 'bd9c66b3-ad3c-4d6d-9a3d-1fa7bc8960a9';
export const DEMO_CP0_ID = '972a8469-1641-4f82-8b9d-2434e465e150';
/** The demo control planes' server ids, in the order of DEMO_CONTROL_PLANE_IPS (emulator/seeds/demo.json). */
export const DEMO_CONTROL_PLANE_IDS = [DEMO_CP0_ID, '9a1de644-815e-46d1-bb8f-aa1837f8a88b', '6b65a6a4-8b81-48f6-b38a-088ca65ed389'];
/** The tags kOps puts on the demo cluster's control planes: the cluster's, and the role. */
export const DEMO_CLUSTER_TAG = `noprefix=kops.k8s.io/cluster=${DEMO_CLUSTER}`;
export const CONTROL_PLANE_ROLE_TAG = 'noprefix=kops.k8s.io/role=ControlPlane';

export function demoSeed(): EmulatorSeed {
  return JSON.parse(readFileSync(new URL('../../emulator/seeds/demo.json', import.meta.url), 'utf8')) as EmulatorSeed;
}

/** The demo cluster's two neighbours in fr-par-1 (a looser ListServers tags filter returns them): name, address block. */
export const NEIGHBOUR_CLUSTERS = [
  { cluster: 'staging.k8s.local', block: 101 },
  // Its cluster tag begins with the demo cluster's: a prefix-matching filter returns its servers.
  { cluster: 'demo.k8s.local2', block: 102 },
] as const;

/**
 * The servers of the demo cluster's neighbours: each with three control planes (51.15.<block>.1x, private
 * 10.1.<block>.1x) and two workers (51.15.<block>.2x). None of them may ever be in a demo pool.
 */
export function neighbourServers(): SeedServer[] {
  return NEIGHBOUR_CLUSTERS.flatMap(({ cluster, block }) => {
    const tag = `noprefix=kops.k8s.io/cluster=${cluster}`;
    const server = (name: string, tags: string[], host: number): SeedServer => ({
      name: `${name}.${cluster}`,
      zone: 'fr-par-1',
      tags,
      publicIps: [`51.15.${block}.${host}`],
      privateNics: [{ ipamAddresses: [`10.1.${block}.${host}/22`] }],
    });
    return [
      ...[0, 1, 2].map((i) => server(`control-plane-${i}`, [tag, 'noprefix=kops.k8s.io/role=ControlPlane'], 10 + i)),
      ...[0, 1].map((i) => server(`nodes-${i}`, [tag], 20 + i)),
    ];
  });
}

/** The private network the demo servers' NICs are on, and the demo LB attached to (emulator/seeds/demo.json). */
export const DEMO_PRIVATE_NETWORK_ID = 'bdd640fb-0667-4ad1-9c80-317fa3b1799d';

/** The demo seed with the demo LB's backends, frontends or private-network attachments replaced, and more LBs beside it. */
export function demoSeedWith(patch: {
  backends?: SeedBackend[];
  frontends?: SeedFrontend[];
  privateNetworks?: SeedLbPrivateNetwork[];
  moreLbs?: SeedLb[];
}): EmulatorSeed {
  const seed = demoSeed();
  const [lb, ...rest] = seed.lbs ?? [];
  if (!lb) throw new Error('the demo seed has no LB');
  return {
    ...seed,
    lbs: [
      {
        ...lb,
        backends: patch.backends ?? lb.backends ?? [],
        frontends: patch.frontends ?? lb.frontends ?? [],
        privateNetworks: patch.privateNetworks ?? lb.privateNetworks ?? [],
      },
      ...rest,
      ...(patch.moreLbs ?? []),
    ],
  };
}

/** The demo backend as `lb-backend-https` would be created for the demo target, with this pool. */
export function demoBackend(pool: readonly string[] = DEMO_CONTROL_PLANE_IPS, patch: Partial<SeedBackend> = {}): SeedBackend {
  return {
    name: 'lb-backend-https',
    forward_port: 443,
    pool: [...pool],
    health_check: { port: 443, check_delay: 3000, check_timeout: 1000, check_max_retries: 5, tcp_config: {} },
    ...patch,
  } as SeedBackend;
}

/** The demo seed converged: its LB's `lb-backend-https` holds the three control planes. */
export function convergedDemoSeed(): EmulatorSeed {
  return demoSeedWith({ backends: [demoBackend()] });
}

/** The pool of the demo LB's `lb-backend-https` as the emulator holds it now; undefined when it has none. */
export function demoPool(emulator: Pick<EmulatorHandle, 'dumpState'>): string[] | undefined {
  return poolOf(emulator, DEMO_LB_ID);
}

export function demoTarget(overrides: Record<string, unknown> = {}): Target {
  if (Object.keys(overrides).length === 0) return parseTargets([{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }])[0] as Target;
  const [base] = parseTargets([{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }]);
  return parseTargets([{ ...base, ...overrides }])[0] as Target;
}

/** A fallback LB for the demo cluster in fr-par-2 (its servers are in fr-par-1), as Cluster API's extra LBs are. */
export const FALLBACK_LB_ID = 'fb0c66b3-ad3c-4d6d-9a3d-1fa7bc8960b2';
export const FALLBACK_LB_NAME = 'api-fallback.demo.k8s.local';

/** The demo seed with the fallback LB beside the main one: each LB's backends (default: none), the fallback's attachments. */
export function twoLbSeed(
  patch: { main?: SeedBackend[]; fallback?: SeedBackend[]; fallbackNetworks?: SeedLbPrivateNetwork[] } = {},
): EmulatorSeed {
  return demoSeedWith({
    backends: patch.main ?? [],
    moreLbs: [
      {
        id: FALLBACK_LB_ID,
        name: FALLBACK_LB_NAME,
        zone: 'fr-par-2',
        backends: patch.fallback ?? [],
        privateNetworks: patch.fallbackNetworks ?? [],
      },
    ],
  });
}

/** Both LBs with the demo backend holding the three control planes. */
export function convergedTwoLbSeed(): EmulatorSeed {
  return twoLbSeed({ main: [demoBackend()], fallback: [demoBackend()] });
}

/**
 * The demo target with its main LB (fr-par-1, by name) and the fallback (fr-par-2, by name) under `loadBalancers`;
 * `overrides` replaces fields of the full target (e.g. other loadBalancers).
 */
export function twoLbTarget(overrides: Record<string, unknown> = {}): Target {
  const { loadBalancer: _one, ...base } = demoTarget();
  const loadBalancers = [
    { name: `api.${DEMO_CLUSTER}`, zone: 'fr-par-1' },
    { name: FALLBACK_LB_NAME, zone: 'fr-par-2' },
  ];
  return parseTargets([{ ...base, loadBalancers, ...overrides }])[0] as Target;
}

/** The pool of an LB's `lb-backend-https` as the emulator holds it now; undefined when it has none. */
export function poolOf(emulator: Pick<EmulatorHandle, 'dumpState'>, lbId: string): string[] | undefined {
  const state = emulator.dumpState() as { lbs: { id: string; backends: { name: string; pool: string[] }[] }[] };
  return state.lbs.find((lb) => lb.id === lbId)?.backends.find((b) => b.name === 'lb-backend-https')?.pool;
}

export const FAKE_ACCESS_KEY = 'SCWTESTACCESSKEY0001';
export const FAKE_SECRET_KEY = '11111111-2222-4333-8444-555555555555';

/**
 * The emulator's own answer to a GET (its real wire shape), for a test to change and serve back with a fault: how an
 * answer nobody has seen from the real API is scripted (docs/emulator.md, "Answers nobody has seen").
 */
export async function wireAnswer<T = Record<string, unknown>>(emulator: Pick<EmulatorHandle, 'url'>, path: string): Promise<T> {
  const response = await fetch(`${emulator.url}${path}`, { headers: { 'X-Auth-Token': FAKE_SECRET_KEY } });
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

export interface World {
  emulator: EmulatorHandle;
  /** A gateway to the emulator; `settings` adds to the defaults (e.g. a projectId, as SCW_DEFAULT_PROJECT_ID sets it). */
  gateway(requestTimeoutMs?: number, settings?: Partial<ScalewaySettings>): ScalewayGateway;
  /** The emulator's view of a backend (API wire shape). */
  backends(): Record<string, unknown>[];
  writes(): string[];
  stop(): Promise<void>;
}

export async function startWorld(options: { instancePendingMs?: number; seed?: EmulatorSeed } = {}): Promise<World> {
  const emulator = await startEmulator({ seed: options.seed ?? demoSeed(), instancePendingMs: options.instancePendingMs ?? 30 });
  return {
    emulator,
    gateway: (requestTimeoutMs = 5_000, settings = {}) =>
      createScalewayGateway({
        accessKey: FAKE_ACCESS_KEY,
        secretKey: FAKE_SECRET_KEY,
        apiUrl: emulator.url,
        defaultZone: 'fr-par-1',
        requestTimeoutMs,
        ...settings,
      }),
    backends: () => {
      const state = emulator.dumpState() as { lbs: { backends: Record<string, unknown>[] }[] };
      return state.lbs.flatMap((lb) => lb.backends);
    },
    writes: () =>
      emulator
        .calls()
        .filter((c) => c.write)
        .map((c) => c.operation),
    stop: () => emulator.stop(),
  };
}
