/**
 * ListBackendStats (`GET .../lbs/{lb_id}/backend-stats[?backend_id=]`): each backend server's state and last
 * health check, per LB instance. Assumed (no recording): shape from the SDK's types, health from
 * emulator/health.ts; an unknown `backend_id` answers like GetBackend's 404.
 */
import { apiErrors } from '../errors';
import { healthOfPool } from '../health';
import { pageOf, readPagination, type JsonAnswer, type RouteContext } from '../http';
import type { LbRecord } from '../model';
import { renderBackendServerStats } from '../wire/backend-stats';

const PAGINATION = { sizeParam: 'page_size', defaultSize: 20, maxSize: 100 };

export function listBackendStats(ctx: RouteContext, lb: LbRecord): JsonAnswer {
  const backendId = ctx.query.get('backend_id') ?? '';
  const backends = ctx.state.backendsOf(lb.id).filter((b) => backendId === '' || b.id === backendId);
  if (backendId !== '' && backends.length === 0) throw apiErrors.backendNotFound();
  const paging = readPagination(ctx.query, PAGINATION);
  const now = Date.now();
  const stats = backends.flatMap((backend) =>
    healthOfPool(ctx.state, backend, backend.pool, now).map((member) => renderBackendServerStats(lb.instance.id, backend.id, member)),
  );
  return { status: 200, body: { backend_servers_stats: pageOf(stats, paging), total_count: stats.length } };
}
