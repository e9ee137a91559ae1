/**
 * IAM as the emulator plays it. An API key may be denied one API (LB, Instance, IPAM or Audit Trail), and then every
 * call it makes there is answered 403 `permissions_denied`, as a key whose policy lacks that permission set would be
 * (Audit Trail: a key without AuditTrailReadOnly). Off unless asked for (EmulatorOptions.denyApis,
 * `lbsync emulator --deny ipam:<secret key>`). A key an organization holds (emulator/tenancy.ts) is also refused
 * another organization's resources.
 *
 * The SDK authenticates with `X-Auth-Token: <secret key>` only, so a key is told apart by its secret key.
 * The 403 body is recorded (mnq-sqs-credentials-basic #3, flexibleip-data-source-flexible-ip-basic #24); the
 * `resource` each API names in it is assumed.
 */
import { ApiError, faultBodies } from './errors';

export const EMULATED_APIS = ['lb', 'instance', 'ipam', 'audit-trail'] as const;
export type EmulatedApi = (typeof EMULATED_APIS)[number];

export interface ApiDenial {
  /** The secret key of the API key (what X-Auth-Token carries). */
  secretKey: string;
  api: EmulatedApi;
}

/** The resource named in the 403 body, per API. */
const RESOURCE: Record<EmulatedApi, string> = { lb: 'lbs', instance: 'instance_servers', ipam: 'ipam_ips', 'audit-trail': 'events' };

export function apiOfPath(path: string): EmulatedApi | undefined {
  const first = path.split('/')[1];
  return (EMULATED_APIS as readonly string[]).includes(first ?? '') ? (first as EmulatedApi) : undefined;
}

/** The 403 the API answers a key for a call it may not make on this path. */
export function permissionsDenied(method: string, path: string): ApiError {
  const { status, body } = faultBodies.permissionsDenied(RESOURCE[apiOfPath(path) ?? 'lb'], method === 'GET' ? 'read' : 'write');
  return new ApiError(status, body);
}

/** "ipam:<secret key>" (the CLI's --deny) -> a denial; throws with the allowed forms otherwise. */
export function parseDenial(text: string): ApiDenial {
  const at = text.indexOf(':');
  const api = text.slice(0, at);
  const secretKey = text.slice(at + 1);
  if (at <= 0 || secretKey === '' || !(EMULATED_APIS as readonly string[]).includes(api)) {
    throw new Error(`expected <api>:<secret key> with <api> one of ${EMULATED_APIS.join(', ')}`);
  }
  return { api: api as EmulatedApi, secretKey };
}

export class PermissionRules {
  private readonly denied: ReadonlySet<string>;

  constructor(denials: readonly ApiDenial[] = []) {
    this.denied = new Set(denials.map((d) => `${d.api} ${d.secretKey}`));
  }

  /** The 403 to answer, or undefined when the key may call this API. */
  refusal(token: string | undefined, method: string, path: string): ApiError | undefined {
    const api = apiOfPath(path);
    if (this.denied.size === 0 || token === undefined || api === undefined || !this.denied.has(`${api} ${token}`)) return undefined;
    return permissionsDenied(method, path);
  }
}
