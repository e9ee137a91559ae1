// A platform team's fleet in one emulated world: two organizations, three projects, four kOps clusters, each
// project served by its own API key (the deployment's key serves the first). Keys are bound to their organization
// (emulator/tenancy.ts), so a call made with the wrong key finds nothing or is refused: the tests see it.
import type { EmulatorSeed, SeedServer } from '../../emulator';
import type { LB_ZONES } from '../../shared/schemas/primitives';
import { CONTROL_PLANE_ROLE_TAG } from './world';

export const ORG_A = '0a0a0a0a-0000-4000-8000-00000000000a';
export const ORG_B = '0b0b0b0b-0000-4000-8000-00000000000b';
/** The deployment's own project (SCW_DEFAULT_PROJECT_ID), in organization A. */
export const PROJECT_A1 = 'a1a1a1a1-0000-4000-8000-0000000000a1';
export const PROJECT_A2 = 'a2a2a2a2-0000-4000-8000-0000000000a2';
export const PROJECT_B1 = 'b1b1b1b1-0000-4000-8000-0000000000b1';

/** Recognisable fake keys (the SDK checks their shape); each is answered for its organization only. */
export const KEYS = {
  /** The deployment's key (SCW_ACCESS_KEY / SCW_SECRET_KEY), organization A. */
  deployment: { accessKey: 'SCWFLEETDEPLOYMENTK1', secretKey: 'd0d0d0d0-1111-4111-8111-d0d0d0d0d0d0' },
  /** Project A2's own key, organization A. */
  teamA2: { accessKey: 'SCWFLEETTEAMA2KEY002', secretKey: 'a2a2a2a2-2222-4222-8222-a2a2a2a2a2a2' },
  /** Organization B's key. */
  teamB: { accessKey: 'SCWFLEETTEAMBKEY0003', secretKey: 'b3b3b3b3-3333-4333-8333-b3b3b3b3b3b3' },
  /** Another key of organization B, without AuditTrailReadOnly (the emulator's `denyApis`: FLEET_DENIALS). */
  teamBNoAuditTrail: { accessKey: 'SCWFLEETTEAMBNOAUDIT', secretKey: 'b4b4b4b4-4444-4444-8444-b4b4b4b4b4b4' },
} as const;

/** The emulator's permission switches for the fleet: organization B's second key may not read Audit Trail. */
export const FLEET_DENIALS = [{ api: 'audit-trail' as const, secretKey: KEYS.teamBNoAuditTrail.secretKey }];

/** The variables the targets name for their keys, as a deployment would set them (secrets). */
export const KEY_VARIABLES = {
  TEAM_A2_ACCESS_KEY: KEYS.teamA2.accessKey,
  TEAM_A2_SECRET_KEY: KEYS.teamA2.secretKey,
  TEAM_B_ACCESS_KEY: KEYS.teamB.accessKey,
  TEAM_B_SECRET_KEY: KEYS.teamB.secretKey,
} as const;

export interface FleetCluster {
  cluster: string;
  zone: (typeof LB_ZONES)[number];
  project: string;
  organization: string;
  lbId: string;
  /** The control planes' public IPv4s (their zonal IPAM entries too). */
  controlPlanes: string[];
}

export const FLEET: readonly FleetCluster[] = [
  {
    cluster: 'alpha.k8s.local',
    zone: 'fr-par-1',
    project: PROJECT_A1,
    organization: ORG_A,
    lbId: 'a1000000-0000-4000-8000-00000000a001',
    controlPlanes: ['51.15.11.1', '51.15.11.2', '51.15.11.3'],
  },
  {
    cluster: 'beta.k8s.local',
    zone: 'fr-par-2',
    project: PROJECT_A2,
    organization: ORG_A,
    lbId: 'a2000000-0000-4000-8000-00000000a002',
    controlPlanes: ['51.15.12.1', '51.15.12.2', '51.15.12.3'],
  },
  {
    cluster: 'gamma.k8s.local',
    zone: 'fr-par-1',
    project: PROJECT_B1,
    organization: ORG_B,
    lbId: 'b1000000-0000-4000-8000-00000000b001',
    controlPlanes: ['51.15.21.1', '51.15.21.2', '51.15.21.3'],
  },
  {
    cluster: 'delta.k8s.local',
    zone: 'nl-ams-1',
    project: PROJECT_B1,
    organization: ORG_B,
    lbId: 'b2000000-0000-4000-8000-00000000b002',
    controlPlanes: ['51.15.22.1', '51.15.22.2', '51.15.22.3'],
  },
];

/** A decoy in project A1 carrying beta's tags: beta's servers are those of project A2 only. */
export const DECOY_IP = '51.15.12.99';

/** The targets, kOps shorthands: alpha on the deployment's key and project, the others on their own. */
export function fleetTargets() {
  const own = (c: FleetCluster, key: 'TEAM_A2' | 'TEAM_B') => ({
    projectId: c.project,
    ...(c.organization !== ORG_A && { organizationId: c.organization }),
    credentials: { accessKeyEnv: `${key}_ACCESS_KEY`, secretKeyEnv: `${key}_SECRET_KEY` },
  });
  const [alpha, beta, gamma, delta] = FLEET as [FleetCluster, FleetCluster, FleetCluster, FleetCluster];
  return [
    { kops: { cluster: alpha.cluster, zone: alpha.zone } },
    { kops: { cluster: beta.cluster, zone: beta.zone, ...own(beta, 'TEAM_A2') } },
    { kops: { cluster: gamma.cluster, zone: gamma.zone, ...own(gamma, 'TEAM_B') } },
    { kops: { cluster: delta.cluster, zone: delta.zone, ...own(delta, 'TEAM_B') } },
  ];
}

function controlPlane(c: FleetCluster, ip: string, i: number, project = c.project): SeedServer {
  return {
    name: `control-plane-${c.zone}-${i}`,
    zone: c.zone,
    projectId: project,
    tags: [`noprefix=kops.k8s.io/cluster=${c.cluster}`, CONTROL_PLANE_ROLE_TAG],
    publicIps: [ip],
  };
}

/** The fleet's world: every LB with an empty `lb-backend-https`, every cluster's control planes, and beta's decoy. */
export function fleetSeed(): EmulatorSeed {
  const beta = FLEET[1] as FleetCluster;
  return {
    projectId: PROJECT_A1,
    organizationId: ORG_A,
    organizations: [
      {
        id: ORG_A,
        projects: [PROJECT_A1, PROJECT_A2],
        apiKeys: [{ secretKey: KEYS.deployment.secretKey }, { secretKey: KEYS.teamA2.secretKey }],
      },
      {
        id: ORG_B,
        projects: [PROJECT_B1],
        apiKeys: [{ secretKey: KEYS.teamB.secretKey }, { secretKey: KEYS.teamBNoAuditTrail.secretKey }],
      },
    ],
    lbs: FLEET.map((c) => ({
      id: c.lbId,
      name: `api.${c.cluster}`,
      zone: c.zone,
      projectId: c.project,
      backends: [{ name: 'lb-backend-https', forward_port: 443, pool: [] }],
    })),
    servers: [
      ...FLEET.flatMap((c) => c.controlPlanes.map((ip, i) => controlPlane(c, ip, i))),
      { ...controlPlane(beta, DECOY_IP, 9, PROJECT_A1), name: 'decoy-in-a1' },
    ],
  };
}
