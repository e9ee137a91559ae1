// Where each target lives and which key serves it, by name only: its organization, its project and its key pair
// (its own credentials' variables, else the deployment's key). Also the Audit Trail reads a watch run makes: one per
// (organization, region), with the keys of that pair's targets. Pure.
import type { Target } from '../schemas/target';
import { regionOf } from './locality';

/** The key of every target without credentials. */
export const DEPLOYMENT_KEY = 'deployment';

/** Which key serves a target, by name only: `deployment`, or its variables `ACCESS_VAR/SECRET_VAR`. */
export function keyIdOf(target: Pick<Target, 'credentials'>): string {
  const c = target.credentials;
  return c ? `${c.accessKeyEnv}/${c.secretKeyEnv}` : DEPLOYMENT_KEY;
}

/** The key as messages name it: its variables, never its value. */
export function keyLabel(target: Pick<Target, 'credentials'>, deploymentLabel = "the deployment's key"): string {
  const c = target.credentials;
  return c ? `the key in ${c.accessKeyEnv} / ${c.secretKeyEnv}` : deploymentLabel;
}

/** The deployment's own organization and project (SCW_DEFAULT_ORGANIZATION_ID, SCW_DEFAULT_PROJECT_ID). */
export interface DeploymentAccount {
  organizationId: string;
  projectId?: string;
}

/** The project a target's servers are in: its own, else the deployment's; undefined: any project. */
export function projectOf(target: Pick<Target, 'projectId'>, deploymentProject: string | undefined): string | undefined {
  return target.projectId ?? deploymentProject;
}

/** Whether an event recorded in `eventProject` may concern the target (an event naming no project may). */
export function inTargetProject(
  target: Pick<Target, 'projectId'>,
  eventProject: string | undefined,
  deploymentProject: string | undefined,
): boolean {
  const project = projectOf(target, deploymentProject);
  return eventProject === undefined || project === undefined || project === eventProject;
}

/** One Audit Trail read of a watch run: an organization's trail in one region, for the targets that live there. */
export interface TrailGroup {
  organizationId: string;
  region: string;
  targets: Target[];
  /** One target per key among them, the deployment's key first: the keys tried, in order, until one may read. */
  keyHolders: Target[];
  /** The project to filter on when all its targets share one; undefined: every project (each target checks its own). */
  projectId?: string;
}

/** The selected targets by (organization, region), in the order each pair first appears. */
export function trailGroups(targets: readonly Target[], deployment: DeploymentAccount): TrailGroup[] {
  const groups = new Map<string, TrailGroup>();
  for (const target of targets) {
    const organizationId = target.organizationId ?? deployment.organizationId;
    const region = regionOf(target.zone);
    const id = `${organizationId}/${region}`;
    const group = groups.get(id) ?? { organizationId, region, targets: [], keyHolders: [] };
    group.targets.push(target);
    groups.set(id, group);
  }
  return [...groups.values()].map((group) => {
    const byKey = new Map<string, Target>();
    for (const target of group.targets) if (!byKey.has(keyIdOf(target))) byKey.set(keyIdOf(target), target);
    const holders = [...byKey.values()].sort((a, b) => Number(!!a.credentials) - Number(!!b.credentials));
    const projects = new Set(group.targets.map((t) => projectOf(t, deployment.projectId)));
    const [only] = projects;
    return { ...group, keyHolders: holders, ...(projects.size === 1 && only !== undefined && { projectId: only }) };
  });
}
