/**
 * Organizations, their projects and their API keys, as a seed names them (`organizations`). A key an organization
 * holds is answered for that organization's resources only: its lists hold nothing else, and a request for another
 * organization's LB, backend or server, or for its Audit Trail, is a 403 `permissions_denied` (the body as recorded:
 * mnq-sqs-credentials-basic #3; a resource out of the key's reach answering 403, not 404:
 * flexibleip-data-source-flexible-ip-basic #22). A key no organization names is unscoped, as every key was before
 * organizations existed: a seed without `organizations` behaves as it always did.
 */
import type { EmulatorSeed } from './contract';
import type { Ownership } from './seed';
import type { EmulatorState } from './state';

/** The organization owning the LB, backend or server a route's path names; undefined when it names none (or none exists). */
export function organizationOfPath(state: EmulatorState, params: Record<string, string>): string | undefined {
  const backend = params.backendId === undefined ? undefined : state.backends.get(params.backendId);
  const lbId = params.lbId ?? backend?.lbId;
  if (lbId !== undefined) return state.lbs.get(lbId)?.organizationId;
  if (params.serverId !== undefined) return state.servers.get(params.serverId)?.organizationId;
  return undefined;
}

export class Tenancy {
  private readonly organizationOfProject = new Map<string, string>();
  /** By secret key: the SDK authenticates with `X-Auth-Token: <secret key>` only. */
  private readonly organizationOfKey = new Map<string, string>();

  constructor(private owner: Ownership) {
    this.organizationOfProject.set(owner.projectId, owner.organizationId);
  }

  /** The seed's organizations, projects and keys; the seed's own project belongs to the seed's own organization. */
  load(seed: EmulatorSeed, owner: Ownership): void {
    this.owner = owner;
    this.organizationOfProject.clear();
    this.organizationOfKey.clear();
    this.organizationOfProject.set(owner.projectId, owner.organizationId);
    for (const organization of seed.organizations ?? []) {
      for (const project of organization.projects) {
        const known = this.organizationOfProject.get(project);
        if (known !== undefined && known !== organization.id)
          throw new Error(`seed: project ${project} is in two organizations (${known} and ${organization.id})`);
        this.organizationOfProject.set(project, organization.id);
      }
      for (const key of organization.apiKeys ?? []) {
        const known = this.organizationOfKey.get(key.secretKey);
        if (known !== undefined && known !== organization.id) throw new Error('seed: one API key is in two organizations');
        this.organizationOfKey.set(key.secretKey, organization.id);
      }
    }
  }

  /** Who owns what is made in this project: the seed's own project when none is named. Throws for a project no organization holds. */
  ownership(projectId?: string): Ownership {
    if (projectId === undefined) return this.owner;
    const organizationId = this.organizationOfProject.get(projectId);
    if (organizationId === undefined)
      throw new Error(`seed: project ${projectId} is in no organization; list it under "organizations" (or use the seed's projectId)`);
    return { projectId, organizationId };
  }

  /** The organization a key is answered for; undefined: any (a key no organization names). */
  scopeOf(secretKey: string | undefined): string | undefined {
    return secretKey === undefined ? undefined : this.organizationOfKey.get(secretKey);
  }

  /** The organization of a project (undefined for one no organization holds). */
  organizationOf(projectId: string): string | undefined {
    return this.organizationOfProject.get(projectId);
  }
}
