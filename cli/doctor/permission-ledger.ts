// The IAM permissions a key holds, as the calls doctor really made through the product's own steps prove them:
// the ledger wraps the gateway, records each read against the permission it needs (answered, refused with a 403, or
// failed otherwise), and refuses every write unsent. One line per permission comes out of what was recorded.
import { type ScalewayGateway, WRITE_CALLS } from '../../shared/adapters/scaleway';
import { tryGateway } from '../../shared/adapters/api-failure';
import { regionOf } from '../../shared/core/locality';
import type { LbSyncError } from '../../shared/errors/lbsync-error';
import { type Check, fail, ok, warn } from './check';

/** The IAM permission each read proves, and the permission set that grants it (docs/deploy.md §2). */
const PERMISSIONS = {
  'iam:lb-read': {
    calls: 'ListLbs / GetLb (and ListLbPrivateNetworks for ipam-private)',
    set: 'LoadBalancersFullAccess (or LoadBalancersReadOnly)',
  },
  'iam:lb-backends': { calls: 'ListBackends / ListBackendStats', set: 'LoadBalancersFullAccess (or LoadBalancersReadOnly)' },
  'iam:instance-servers': { calls: 'ListServers by tags', set: 'InstancesReadOnly' },
  'iam:ipam-read': { calls: 'IPAM ListIPs', set: 'IPAMReadOnly' },
} as const;
type Permission = keyof typeof PERMISSIONS;

/** A call of the gateway (its other members are its project and its call count). */
type GatewayCall = Exclude<keyof ScalewayGateway, 'projectId' | 'calls'>;

interface ReadUse {
  /** As the call log names it. */
  operation: string;
  permission: Permission;
  /** Where the call was made, from its first argument (a zone, or IPAM's region). */
  where: (locality: string) => string;
}

const inZone = (zone: string) => zone;

/**
 * Each read of the gateway: its operation, the permission it needs, and where it was made. The writes are the
 * gateway's WRITE_CALLS; a read added to the gateway needs its line here (test/integration/cli/permission-ledger.test.ts).
 */
export const READ_PERMISSIONS = {
  findLbsByName: { operation: 'ListLbs', permission: 'iam:lb-read', where: inZone },
  getLb: { operation: 'GetLb', permission: 'iam:lb-read', where: inZone },
  listLbPrivateNetworks: { operation: 'ListLbPrivateNetworks', permission: 'iam:lb-read', where: inZone },
  listBackends: { operation: 'ListBackends', permission: 'iam:lb-backends', where: inZone },
  listFrontends: { operation: 'ListFrontends', permission: 'iam:lb-backends', where: inZone },
  listBackendHealth: { operation: 'ListBackendStats', permission: 'iam:lb-backends', where: inZone },
  listServersByTags: { operation: 'ListServers', permission: 'iam:instance-servers', where: inZone },
  listPrivateNicIps: { operation: 'ListIPs', permission: 'iam:ipam-read', where: (region) => region },
  listZonalIpv4: { operation: 'ListIPs', permission: 'iam:ipam-read', where: regionOf },
} as const satisfies Partial<Record<GatewayCall, ReadUse>>;
type ReadMethod = keyof typeof READ_PERMISSIONS;

/**
 * API answers that still prove the key may make the call. A 404 proves nothing (anything on the way can answer one);
 * a verdict of ours on an answer (e.g. "no such LB", "not attached") comes after a read that succeeded, and is recorded so.
 */
const ANSWERED = new Set(['invalid_arguments', 'precondition_failed', 'resource_locked']);

export type CallOutcome = 'answered' | 'refused' | 'failed';

function outcomeOf(failure: LbSyncError): CallOutcome {
  if (failure.code === 'permissions_denied') return 'refused';
  return ANSWERED.has(failure.code) && failure.status !== 404 ? 'answered' : 'failed';
}

/** One read doctor made, as the ledger recorded it. */
export interface RecordedCall {
  operation: string;
  permission: Permission;
  where: string;
  outcome: CallOutcome;
  /** Why it was not answered, in the operation's words. */
  error?: LbSyncError;
}

export class PermissionLedger {
  private readonly recorded: RecordedCall[] = [];

  /** The gateway the checks read through: each read recorded against its permission; a write refused, never sent. */
  watch(gateway: ScalewayGateway): ScalewayGateway {
    const watched: Record<string, unknown> = { projectId: gateway.projectId, calls: () => gateway.calls() };
    for (const method of Object.keys(READ_PERMISSIONS) as ReadMethod[]) {
      const read = gateway[method] as (...args: unknown[]) => Promise<unknown>;
      watched[method] = (...args: unknown[]) => this.record(method, String(args[0]), () => read.apply(gateway, args));
    }
    for (const method of WRITE_CALLS)
      watched[method] = () => Promise.reject(new Error(`lbsync doctor never writes: ${method} was not sent`));
    return watched as unknown as ScalewayGateway;
  }

  /** Every read made, in order. */
  calls(): readonly RecordedCall[] {
    return this.recorded;
  }

  /** Whether any read got an answer from the API: only that proves the key was accepted. */
  anyAnswered(): boolean {
    return this.recorded.some((call) => call.outcome === 'answered');
  }

  /** One line per permission, named `iam:<permission>` and the key's suffix (`:<its access key variable>`, none for the deployment's). */
  checks(suffix = ''): Check[] {
    return (Object.keys(PERMISSIONS) as Permission[]).map((permission) => {
      const { calls, set } = PERMISSIONS[permission];
      const name = `${permission}${suffix}`;
      const whose = suffix === '' ? "the functions' key" : `the key of ${suffix.slice(1)}`;
      const made = this.recorded.filter((call) => call.permission === permission);
      const refused = made.find((call) => call.outcome === 'refused')?.error;
      if (refused)
        return fail(name, `${calls} refused (403): ${refused.message}`, `give ${whose} ${set} on the project (docs/deploy.md, step 2)`);
      if (made.length === 0) return warn(name, `${calls} not tried: no earlier check got far enough`);
      const answeredIn = [...new Set(made.filter((call) => call.outcome === 'answered').map((call) => call.where))];
      if (answeredIn.length === 0) return warn(name, `${calls} not proven: tried, but no read got an answer from the API`);
      return ok(name, `${calls} answered (${answeredIn.join(', ')})`);
    });
  }

  private async record<T>(method: ReadMethod, locality: string, read: () => Promise<T>): Promise<T> {
    const { operation, permission, where: whereOf } = READ_PERMISSIONS[method];
    const where = whereOf(locality);
    let thrown: unknown;
    const run = async () => {
      try {
        return await read();
      } catch (error) {
        thrown = error;
        throw error;
      }
    };
    const answer = await tryGateway({ message: `${operation} in ${where}`, notFound: 'unknown_api_error', run });
    if ('value' in answer) {
      this.recorded.push({ operation, permission, where, outcome: 'answered' });
      return answer.value;
    }
    this.recorded.push({ operation, permission, where, outcome: outcomeOf(answer.error), error: answer.error });
    // The step that made the call wraps the failure itself, in its own words, as it does in the functions.
    throw thrown;
  }
}
