/** The API routes the emulator serves (LB, Instance and its writes, IPAM, Audit Trail, IAM, Messaging), and every operation name they log. */
import type { AccountsWorld } from './accounts';
import type { AuditTrailLog } from './audit-trail';
import type { Route } from './http';
import { iamApiRoutes, mnqApiRoutes } from './routes/accounts';
import { auditTrailApiRoutes } from './routes/audit-trail';
import { instanceApiRoutes } from './routes/instance';
import { instanceWriteRoutes } from './routes/instance-writes';
import { ipamApiRoutes } from './routes/ipam';
import { lbApiRoutes } from './routes/lb';

/** What the call log names a request no route serves: a fault with this operation matches those. */
export const UNMATCHED_OPERATION = 'Unknown';

export function apiRoutes(auditTrail: () => AuditTrailLog, accounts: () => AccountsWorld): Route[] {
  return [
    ...lbApiRoutes,
    ...instanceApiRoutes,
    ...instanceWriteRoutes,
    ...ipamApiRoutes,
    ...auditTrailApiRoutes(auditTrail),
    ...iamApiRoutes(accounts),
    ...mnqApiRoutes(accounts),
  ];
}

/** Every operation a request can be logged and matched under, with the methods and paths that reach it. */
export function emulatedOperations(): { operation: string; routes: string[] }[] {
  const byOperation = new Map<string, string[]>();
  for (const route of apiRoutes(
    () => undefined as never,
    () => undefined as never,
  )) {
    const list = byOperation.get(route.operation) ?? [];
    list.push(`${route.method} ${route.pattern}`);
    byOperation.set(route.operation, list);
  }
  return [...byOperation].map(([operation, list]) => ({ operation, routes: list }));
}

/** The names a fault's `operation` may take: those of the call log, one spelling each. */
export const OPERATION_NAMES: readonly string[] = [...emulatedOperations().map((o) => o.operation), UNMATCHED_OPERATION];
