/**
 * A platform team's fleet in one emulated world (issue 26): N kOps clusters across P projects, O organizations and
 * the regions of `zones`, listed project by project as a team would write them, each project on its own API key
 * (the first on the deployment's), every key answered for its own organization only (emulator/tenancy.ts), and
 * one cluster in `twoLbEvery` with a second LB in another zone of its region. Every LB in sync.
 */
import type { EmulatorSeed, SeedLb, SeedServer } from '../../emulator';
import { regionOf } from '../../shared/core/locality';
import { parseTargets, type Target, type TargetInput } from '../../shared/schemas/target';
import { inSyncBackend, publicIp, uuid } from './fleet';

export interface TenantFleetOptions {
  targets: number;
  projects: number;
  organizations: number;
  /** One zone per region, the targets' zones in turn; the second LB of a two-LB target sits in `secondZones`. */
  zones: readonly string[];
  secondZones: readonly string[];
  /** Every n-th target of a project has two LBs (0: none). */
  twoLbEvery: number;
  controlPlanes?: number;
}

export const FLEET_SCALE: TenantFleetOptions = {
  targets: 1000,
  projects: 10,
  organizations: 2,
  zones: ['fr-par-1', 'nl-ams-1', 'pl-waw-1'],
  secondZones: ['fr-par-2', 'nl-ams-2', 'pl-waw-2'],
  twoLbEvery: 10,
};

export interface TenantProject {
  id: string;
  organizationId: string;
  /** The variables holding its key (undefined: the deployment's key) and the key itself. */
  keyVariables?: { accessKeyEnv: string; secretKeyEnv: string };
  key: { accessKey: string; secretKey: string };
}

export interface TenantCluster {
  name: string;
  project: TenantProject;
  zone: string;
  region: string;
  lbIds: string[];
}

export interface TenantFleet {
  seed: EmulatorSeed;
  /** As the configuration lists them, project by project: as written (kOps shorthands), and parsed. */
  inputs: TargetInput[];
  targets: Target[];
  clusters: TenantCluster[];
  projects: TenantProject[];
  /** The deployment's key, organization and project: SCW_* of the functions and the CLI. */
  deployment: TenantProject;
  /** The environment the functions and the CLI need beside bench-world's: the deployment's account, each project's key. */
  env: Record<string, string>;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const organizationId = (o: number) => `0f${hex(o, 6)}-0000-4000-8000-${hex(o, 12)}`;

/** Project j, in organization `organization`; the first serves on the deployment's key, each other on its own. */
function project(j: number, organization: number): TenantProject {
  const own = j > 0;
  return {
    id: `9a${hex(j, 6)}-0000-4000-8000-${hex(j, 12)}`,
    organizationId: organizationId(organization),
    ...(own && { keyVariables: { accessKeyEnv: `TEAM_P${j}_ACCESS_KEY`, secretKeyEnv: `TEAM_P${j}_SECRET_KEY` } }),
    key: { accessKey: `SCWBENCHPROJECTKEY${String(j).padStart(2, '0')}`, secretKey: `5ec0${hex(j, 4)}-0000-4000-8000-${hex(j, 12)}` },
  };
}

export function buildTenantFleet(options: TenantFleetOptions): TenantFleet {
  const cps = options.controlPlanes ?? 3;
  // Projects are split evenly between the organizations, in order.
  const projects = Array.from({ length: options.projects }, (_, j) =>
    project(j, Math.floor((j * options.organizations) / options.projects)),
  );
  const deployment = projects[0] as TenantProject;
  const lbs: SeedLb[] = [];
  const servers: SeedServer[] = [];
  const clusters: TenantCluster[] = [];
  const inputs: TargetInput[] = [];
  const perProject = Math.ceil(options.targets / options.projects);
  for (let i = 0; i < options.targets; i += 1) {
    const p = projects[Math.floor(i / perProject)] as TenantProject;
    const rank = i % perProject;
    const zoneIndex = rank % options.zones.length;
    const zone = options.zones[zoneIndex] as string;
    const name = `c${i}.p${projects.indexOf(p)}.fleet.local`;
    const tags = [`noprefix=kops.k8s.io/cluster=${name}`, 'noprefix=kops.k8s.io/role=ControlPlane'];
    const ips = Array.from({ length: cps }, (_, j) => publicIp('cp', i, j));
    ips.forEach((ip, j) => {
      servers.push({ id: uuid(2, i, j), name: `control-plane-${i}-${j}`, zone, projectId: p.id, state: 'running', publicIps: [ip], tags });
    });
    const places = [{ name: `api.${name}`, zone, id: uuid(1, i, 0) }];
    if (options.twoLbEvery > 0 && rank % options.twoLbEvery === options.twoLbEvery - 1)
      places.push({ name: `api-fallback.${name}`, zone: options.secondZones[zoneIndex] as string, id: uuid(5, i, 0) });
    for (const place of places) lbs.push({ ...place, projectId: p.id, status: 'ready', tags, backends: [inSyncBackend([...ips].sort())] });
    const account = {
      ...(p !== deployment && { projectId: p.id }),
      ...(p.organizationId !== deployment.organizationId && { organizationId: p.organizationId }),
      ...(p.keyVariables && { credentials: p.keyVariables }),
    };
    const shorthand: TargetInput = { kops: { cluster: name, zone, ...account } } as TargetInput;
    if (places.length === 1) inputs.push(shorthand);
    else {
      // The shorthand names one LB: a two-LB target is written in full, as the shorthand expands.
      const kops = parseTargets([shorthand])[0] as Target;
      const { loadBalancer: _one, ...rest } = kops;
      inputs.push({ ...rest, loadBalancers: places.map(({ name: lb, zone: z }) => ({ name: lb, zone: z })) } as TargetInput);
    }
    clusters.push({ name, project: p, zone, region: regionOf(zone), lbIds: places.map((x) => x.id) });
  }
  const byOrganization = new Map<string, TenantProject[]>();
  for (const p of projects) byOrganization.set(p.organizationId, [...(byOrganization.get(p.organizationId) ?? []), p]);
  const seed: EmulatorSeed = {
    projectId: deployment.id,
    organizationId: deployment.organizationId,
    organizations: [...byOrganization].map(([id, ps]) => ({
      id,
      projects: ps.map((p) => p.id),
      apiKeys: ps.map((p) => ({ secretKey: p.key.secretKey })),
    })),
    lbs,
    servers,
  };
  const env: Record<string, string> = {
    SCW_ACCESS_KEY: deployment.key.accessKey,
    SCW_SECRET_KEY: deployment.key.secretKey,
    SCW_DEFAULT_PROJECT_ID: deployment.id,
    SCW_DEFAULT_ORGANIZATION_ID: deployment.organizationId,
  };
  for (const p of projects)
    if (p.keyVariables)
      Object.assign(env, { [p.keyVariables.accessKeyEnv]: p.key.accessKey, [p.keyVariables.secretKeyEnv]: p.key.secretKey });
  return { seed, inputs, targets: parseTargets(inputs), clusters, projects, deployment, env };
}
