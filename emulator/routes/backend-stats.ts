/**
 * Backend server health as the LB reports it: ListBackendStats (`GET .../lbs/{lb_id}/backend-stats[?backend_id=]`,
 * paginated, with `total_count`) and the older `GET .../lbs/{lb_id}/stats[?backend_id=]` (the same items, no
 * pagination, no `total_count`, as recorded in cli-lb-test-get-stats-simple #14). One item per pool address per
 * reporting LB instance (emulator/health.ts); an unknown `backend_id` answers like GetBackend's 404 (assumed).
 */
import { apiErrors } from '../errors';
import { reportsOfPool } from '../health';
import { pageOf, readPagination, type JsonAnswer, type RouteContext } from '../http';
import type { LbRecord } from '../records';
import { renderBackendServerStats } from '../wire/backend-stats';

const PAGINATION = { sizeParam: 'page_size', defaultSize: 20, maxSize: 100 };

function backendServerStats(ctx: RouteContext, lb: LbRecord): Record<string, unknown>[] {
  const backendId = ctx.query.get('backend_id') ?? '';
  const backends = ctx.state.backendsOf(lb.id).filter((b) => backendId === '' || b.id === backendId);
  if (backendId !== '' && backends.length === 0) throw apiErrors.backendNotFound();
  const now = Date.now();
  return backends.flatMap((backend) =>
    reportsOfPool(ctx.state, lb, backend, backend.pool, now).map((report) =>
      renderBackendServerStats(report.instanceId, backend.id, report.member),
    ),
  );
}

export function listBackendStats(ctx: RouteContext, lb: LbRecord): JsonAnswer {
  const paging = readPagination(ctx.query, PAGINATION);
  const stats = backendServerStats(ctx, lb);
  return { status: 200, body: { backend_servers_stats: pageOf(stats, paging), total_count: stats.length } };
}

export function getLbStats(ctx: RouteContext, lb: LbRecord): JsonAnswer {
  return { status: 200, body: { backend_servers_stats: backendServerStats(ctx, lb) } };
}
