import type * as z from 'zod';
import { callGateway, tryGateway } from '../adapters/api-failure';
import type { AuditTrailGateway, EventListing, WatchedResourceType } from '../adapters/audit-trail';
import type { EventQueue } from '../adapters/queue';
import type { AuditEvent, OwnIdentity, Relevance, TargetMatch } from '../core/audit-relevance';
import { relevantTargets, WATCHED_RESOURCE_TYPES } from '../core/audit-relevance';
import type { Contest, ForeignWrite } from '../core/contest';
import { CONTEST_WINDOW_MS, contests, contestWarning, foreignWrites } from '../core/contest';
import { regionOf } from '../core/locality';
import type { Logger } from '../platform/log';
import type { LineFields } from '../platform/log-schema';
import type { PlatformResponse } from '../platform/request-response';
import { jsonResponse } from '../platform/request-response';
import type { Target } from '../schemas/target';
import { cronArgsSchema, parseCronArgs, selectCronTargets } from './cron-args';
import { ENQUEUE_FAILURE_STATUS, enqueueEvents, newEvent } from './enqueue-events';

/** The cron trigger's JSON args: which targets to watch (all when omitted). */
export const watchArgsSchema = cronArgsSchema;

export interface WatchDeps {
  targets: readonly Target[];
  auditTrail: () => AuditTrailGateway;
  queue: () => EventQueue;
  reconcileQueueUrl: string;
  /** Each run reads [now - periodMs - overlapMs, now]: a late, slow or skipped run loses nothing. */
  window: { periodMs: number; overlapMs: number };
  own: OwnIdentity;
  /** The targets' project (SCW_DEFAULT_PROJECT_ID); unset: every project of the organization. */
  projectId?: string;
  logger: Logger;
  now?: () => Date;
  /** ListEvents pages one run reads at the most, shared out among its queries (default MAX_PAGES_PER_RUN). */
  maxPagesPerRun?: number;
}

/**
 * ListEvents pages one run reads at the most, over all its regions and resource types: 5,000 events in pages of
 * 250. The run holds every event it reads (relevance needs them all, in order); so bounded, its worst case peaks
 * near 90 MB on Node 22, inside the 96 MB the 128 MB tier leaves (docs/performance.md). A region left with pages
 * unread names all its targets, which costs one no-op reconcile each.
 */
export const MAX_PAGES_PER_RUN = 20;

/** The watch function's answer (docs/architecture.md, "The functions' answers"). */
export interface WatchReport {
  events: number;
  relevant: number;
  enqueued: number;
  targets: string[];
  window: { from: string; to: string };
  /** Pool and backend writes on a target's backends by anyone else, in the window, each with its writer named. */
  foreignWrites: { target: string; method: string; userAgent: string; at: string; writer: string }[];
  /** Writers scw-lb-sync kept reverting on a target (three times in 30 minutes): pool_contested. */
  contested: { target: string; writer: string; reverts: number; windowMinutes: number }[];
}

const PERMISSION_HINT =
  "The watch function's API key needs the AuditTrailReadOnly permission set at organization scope, and SCW_DEFAULT_ORGANIZATION_ID must be that organization.";

/** Every event of the window, per region and watched resource type; a truncated region names all its targets. */
async function readWindow(
  gateway: AuditTrailGateway,
  regions: string[],
  from: Date,
  to: Date,
  projectId: string | undefined,
  maxPagesPerRun: number,
) {
  const queries = regions.flatMap((region) =>
    WATCHED_RESOURCE_TYPES.map((resourceType: WatchedResourceType) => ({ region, resourceType })),
  );
  const maxPages = Math.max(1, Math.floor(maxPagesPerRun / queries.length));
  // Backend writes are read over the contest window too: a flap is three reverts in 30 minutes.
  const backendsFrom = new Date(Math.min(from.getTime(), to.getTime() - CONTEST_WINDOW_MS));
  const listings = await Promise.all(
    queries.map(async (q): Promise<EventListing & { region: string }> => {
      const after = q.resourceType === 'load_balancer_backend' ? backendsFrom : from;
      const listing = await callGateway({
        message: `listing Audit Trail ${q.resourceType} events in ${q.region}`,
        notFound: 'unknown_api_error',
        run: () => gateway.listEvents({ ...q, recordedAfter: after, recordedBefore: to, maxPages, ...(projectId && { projectId }) }),
      });
      return { ...listing, region: q.region };
    }),
  );
  const events: AuditEvent[] = listings.flatMap((l) => l.events);
  const truncatedRegions = [...new Set(listings.filter((l) => l.truncated).map((l) => l.region))];
  return { events, truncatedRegions, calls: listings.reduce((sum, l) => sum + l.pages, 0) };
}

function withTruncatedRegions(relevance: Relevance, targets: readonly Target[], truncatedRegions: string[], at: string): TargetMatch[] {
  if (truncatedRegions.length === 0) return relevance.matches;
  const byName = new Map(relevance.matches.map((m) => [m.target, m]));
  for (const target of targets.filter((t) => truncatedRegions.includes(regionOf(t.zone)))) {
    const match = byName.get(target.name) ?? { target: target.name, reasons: [], lastRecordedAt: at };
    match.reasons.push(`more events in ${regionOf(target.zone)} than one run reads: every target of the region`);
    byName.set(target.name, match);
  }
  return targets.flatMap((t) => byName.get(t.name) ?? []);
}

/** What one run did, for the function's answer and for `lbsync watch`. */
export interface WatchOutcome {
  /** 200 done; 502 Audit Trail failed; 503 the queue failed (the next run reads the window again). */
  status: 200 | 502 | 503;
  report: WatchReport;
  /** The targets named, with why (also those the queue then refused). */
  matches: TargetMatch[];
  ignored: Relevance['ignored'];
  error?: { code: string; message: string; hint?: string; failed?: { target: string; code: string; message: string }[] };
}

/** One run of the watcher: read the window, name the targets the events concern, enqueue each once. */
export async function watchOnce(args: z.output<typeof watchArgsSchema>, deps: WatchDeps): Promise<WatchOutcome> {
  const to = deps.now?.() ?? new Date();
  const from = new Date(to.getTime() - deps.window.periodMs - deps.window.overlapMs);
  const window = { from: from.toISOString(), to: to.toISOString() };

  const { selected } = selectCronTargets(args, deps.targets, deps.logger, 'watch');
  const regions = [...new Set(selected.map((t) => regionOf(t.zone)))];
  const report: WatchReport = { events: 0, relevant: 0, enqueued: 0, targets: [], window, foreignWrites: [], contested: [] };
  const dryRun = args.dryRun === true;
  if (regions.length === 0) {
    deps.logger.info(heartbeat(report, { dryRun }), summaryMessage(report));
    return { status: 200, report, matches: [], ignored: {} };
  }

  const answer = await tryGateway({
    message: 'listing Audit Trail events',
    notFound: 'unknown_api_error',
    run: () => readWindow(deps.auditTrail(), regions, from, to, deps.projectId, deps.maxPagesPerRun ?? MAX_PAGES_PER_RUN),
  });
  if ('error' in answer) {
    const failure = answer.error;
    const hint = ['permissions_denied', 'authentication_denied'].includes(failure.code) ? PERMISSION_HINT : failure.hint;
    deps.logger.error(heartbeat(report, { dryRun, code: failure.code, error: failure }), `watch: ${failure.message}`);
    return { status: 502, report, matches: [], ignored: {}, error: { code: failure.code, message: failure.message, hint } };
  }
  const read = answer.value;
  const scope = { own: deps.own, ...(deps.projectId && { projectId: deps.projectId }) };
  // The run's own window decides what to reconcile; the older backend writes only count towards contests.
  const inWindow = read.events.filter((e) => e.recordedAt >= window.from);
  const relevance = relevantTargets(inWindow, selected, scope);
  const matches = withTruncatedRegions(relevance, selected, read.truncatedRegions, window.to);
  const foreign = foreignWrites(inWindow, selected, scope);
  const contested = contests(read.events, selected, scope, to.getTime());
  report.foreignWrites = foreign.map(({ target, method, userAgent, at, writer }) => ({ target, method, userAgent, at, writer }));
  report.contested = contested.map(({ target, writer, reverts, windowMinutes }) => ({ target, writer, reverts, windowMinutes }));
  logWriters(deps.logger, foreign, contested, deps.own.ownerId);
  report.events = inWindow.length;
  report.relevant = relevance.relevant;
  const outcome = (status: WatchOutcome['status'], error?: WatchOutcome['error']): WatchOutcome => ({
    status,
    report,
    matches,
    ignored: relevance.ignored,
    ...(error && { error }),
  });

  const outgoing = matches.map((match) => ({
    event: newEvent({
      source: 'audit',
      target: match.target,
      occurredAt: match.lastRecordedAt || window.to,
      ...(args.dryRun !== undefined && { dryRun: args.dryRun }),
      // The reconcile answer says it too (pool_contested), naming the writer.
      contested: contested
        .filter((c) => c.target === match.target)
        .slice(0, 10)
        .map(({ writer, writerKind, owner, reverts, windowMinutes }) => ({
          writer,
          writerKind,
          ...(owner && { owner }),
          reverts,
          windowMinutes,
        })),
    }),
  }));
  const runFacts = { dryRun, ignored: relevance.ignored, listCalls: read.calls, truncatedRegions: read.truncatedRegions };
  const { sent, failure } = await enqueueEvents(deps, outgoing);
  report.targets = sent.map((event) => event.target);
  report.enqueued = report.targets.length;
  if (failure) {
    const { code, message, failed } = failure;
    if (failure.unreachable) deps.logger.error(heartbeat(report, { ...runFacts, code, error: failure.error }), 'watch could not enqueue');
    else deps.logger.error(heartbeat(report, { ...runFacts, code, failed }), `watch: the queue refused ${failed.length} event(s)`);
    return outcome(ENQUEUE_FAILURE_STATUS, { code, message, ...(failed.length > 0 && { failed }) });
  }
  for (const match of matches)
    deps.logger.info({ target: match.target, reasons: match.reasons.slice(0, 5) }, `watch: ${match.target}: ${match.reasons[0]}`);
  deps.logger.info(heartbeat(report, runFacts), summaryMessage(report));
  return outcome(200);
}

/** One `foreign_write` line per write someone else made on a target's backend, one `pool_contested` per flap. */
function logWriters(logger: Logger, foreign: readonly ForeignWrite[], contested: readonly Contest[], ownerId?: string): void {
  for (const w of foreign) {
    logger.info(
      {
        target: w.target,
        ...({
          log_type: 'foreign_write',
          method: w.method,
          user_agent: w.userAgent,
          writer: w.writer,
          writer_kind: w.writerKind,
          at: w.at,
          ...(w.principalId && { principal_id: w.principalId }),
          ...(w.backend && { backend: w.backend }),
          ...(w.lbId && { lb_id: w.lbId }),
        } satisfies LineFields<'foreign_write'>),
      },
      `watch: ${w.target}: ${w.method} on backend ${w.backend ?? '?'} by ${w.writer}`,
    );
  }
  for (const c of contested) {
    logger.warn(
      {
        target: c.target,
        ...({
          log_type: 'pool_contested',
          code: 'pool_contested',
          writer: c.writer,
          writer_kind: c.writerKind,
          user_agent: c.userAgent,
          reverts: c.reverts,
          window_minutes: c.windowMinutes,
          ...(c.owner && { owner: c.owner }),
        } satisfies LineFields<'pool_contested'>),
      },
      contestWarning(c, ownerId),
    );
  }
}

function summaryMessage(report: WatchReport): string {
  return `watch: ${report.events} event(s), ${report.relevant} relevant, ${report.enqueued} target(s) enqueued`;
}

interface RunFacts {
  dryRun: boolean;
  ignored?: Relevance['ignored'];
  listCalls?: number;
  truncatedRegions?: string[];
  /** Set when the run failed: why (Audit Trail's error code, or queue_unavailable), and what the queue refused. */
  code?: string;
  error?: unknown;
  failed?: { target: string; code: string; message: string }[];
}

/** The run's one heartbeat line (shared/platform/log-schema.ts): ok, or failed with its code. */
function heartbeat(report: WatchReport, facts: RunFacts): LineFields<'watch_heartbeat'> {
  return {
    log_type: 'watch_heartbeat',
    status: facts.code ? 'failed' : 'ok',
    ...(facts.code && { code: facts.code }),
    ...(facts.error !== undefined && { error: facts.error }),
    events_read: report.events,
    events_relevant: report.relevant,
    ignored: Object.fromEntries(Object.entries(facts.ignored ?? {}).filter((entry): entry is [string, number] => entry[1] !== undefined)),
    list_calls: facts.listCalls ?? 0,
    truncated_regions: facts.truncatedRegions ?? [],
    targets_enqueued: report.enqueued,
    ...(facts.failed && { failed: facts.failed }),
    window_from: report.window.from,
    window_to: report.window.to,
    dry_run: facts.dryRun,
  };
}

/** The cron trigger's request: 200 with the answer above; 400 bad args; 502 Audit Trail failed; 503 the queue failed. */
export async function handleWatchRequest(rawBody: string, deps: WatchDeps): Promise<PlatformResponse> {
  const parsed = parseCronArgs(rawBody, watchArgsSchema, '{} or {"targets":["prod"]}');
  if ('error' in parsed) return parsed.error;
  const result = await watchOnce(parsed.args, deps);
  if (result.status === 200) return jsonResponse(200, result.report);
  const { code, ...detail } = result.error ?? { code: 'unexpected', message: '' };
  return jsonResponse(result.status, { error: code, ...detail, ...result.report });
}
