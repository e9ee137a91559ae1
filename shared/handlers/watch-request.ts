import type * as z from 'zod';
import { tryGateway } from '../adapters/api-failure';
import type { AuditTrailGateway, EventListing, WatchedResourceType } from '../adapters/audit-trail';
import type { EventQueue } from '../adapters/queue';
import type { AuditEvent, IgnoreReason, OwnIdentity, Relevance, TargetMatch } from '../core/audit-relevance';
import { relevantTargets, WATCHED_RESOURCE_TYPES } from '../core/audit-relevance';
import type { Contest, ForeignWrite } from '../core/contest';
import { CONTEST_WINDOW_MS, contests, contestWarning, foreignWrites } from '../core/contest';
import type { TrailGroup } from '../core/target-accounts';
import { keyLabel, trailGroups } from '../core/target-accounts';
import type { LbSyncError } from '../errors/lbsync-error';
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
  /**
   * The Audit Trail gateway for this target's key (its credentials, else the watch function's own key), one per key
   * pair. The organization is given per query. Throws an LbSyncError when that key cannot be read.
   */
  auditTrail: (keyHolder: Target) => AuditTrailGateway;
  /** The organization of the targets that name none (SCW_DEFAULT_ORGANIZATION_ID). */
  organizationId: string;
  queue: () => EventQueue;
  reconcileQueueUrl: string;
  /** Each run reads [now - periodMs - overlapMs, now]: a late, slow or skipped run loses nothing. */
  window: { periodMs: number; overlapMs: number };
  own: OwnIdentity;
  /** The project of the targets that name none (SCW_DEFAULT_PROJECT_ID); unset: every project of the organization. */
  projectId?: string;
  logger: Logger;
  now?: () => Date;
  /** The most ListEvents pages one run reads, shared among its queries (default MAX_PAGES_PER_RUN). */
  maxPagesPerRun?: number;
}

/**
 * The most ListEvents pages one run reads, over all its (organization, region) pairs and resource types: 5,000
 * events in pages of 250. The run keeps every event it reads in memory, because relevance needs them all, in order.
 * With this bound its worst case peaks near 90 MB on Node 22, inside the 96 MB the 128 MB tier leaves
 * (docs/performance.md). A pair with pages left unread names all its targets, at the cost of one no-op reconcile each.
 */
export const MAX_PAGES_PER_RUN = 20;

/** An (organization, region) pair no key could read: its targets are left to the sweep until one may. */
export interface UnreadTrail {
  organizationId: string;
  region: string;
  targets: string[];
  code: string;
  message: string;
  hint: string;
}

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
  /** Audit Trails that none of their targets' keys may read: a warning, as long as another pair was read. */
  unread: UnreadTrail[];
}

const PERMISSION_HINT =
  "The watch function's API key needs the AuditTrailReadOnly permission set at organization scope, and SCW_DEFAULT_ORGANIZATION_ID must be that organization.";

/** A key's own failure: the next key of the pair is tried, and without one the pair is left unread. */
const KEY_REFUSED = new Set(['permissions_denied', 'authentication_denied', 'invalid_config', 'invalid_credentials']);

function unreadHint(group: TrailGroup): string {
  const keys = group.keyHolders.map((t) => keyLabel(t, "the watch function's own key")).join(', or ');
  return `Give ${keys} the AuditTrailReadOnly permission set on organization ${group.organizationId} (and check that the targets' organizationId is theirs); until then only the sweep reconciles ${group.targets.map((t) => t.name).join(', ')}.`;
}

/** Every event of one pair's window, per watched resource type; `truncated` when pages were left unread. */
async function readWindow(gateway: AuditTrailGateway, group: TrailGroup, from: Date, to: Date, maxPages: number) {
  // Backend writes are read over the contest window too: a flap is three reverts in 30 minutes.
  const backendsFrom = new Date(Math.min(from.getTime(), to.getTime() - CONTEST_WINDOW_MS));
  const listings = await Promise.all(
    WATCHED_RESOURCE_TYPES.map(
      (resourceType: WatchedResourceType): Promise<EventListing> =>
        gateway.listEvents({
          region: group.region,
          organizationId: group.organizationId,
          resourceType,
          recordedAfter: resourceType === 'load_balancer_backend' ? backendsFrom : from,
          recordedBefore: to,
          maxPages,
          ...(group.projectId && { projectId: group.projectId }),
        }),
    ),
  );
  return {
    events: listings.flatMap((l): AuditEvent[] => l.events),
    truncated: listings.some((l) => l.truncated),
    calls: listings.reduce((sum, l) => sum + l.pages, 0),
  };
}

/** One pair's trail as read (with the key that could read it), or the refusal and every key tried (`by`). */
export type TrailOutcome<T> = { group: TrailGroup; read: T } | { group: TrailGroup; refused: LbSyncError; by: string[] };

/**
 * Reads one pair's trail once, with the first of its targets' keys that may read it (`auditTrail` gives a key's
 * gateway). If a key is refused (or unset), the next one tries. A failure of Audit Trail itself is thrown.
 */
export async function readTrail<T>(
  group: TrailGroup,
  auditTrail: (keyHolder: Target) => AuditTrailGateway,
  read: (gateway: AuditTrailGateway) => Promise<T>,
): Promise<TrailOutcome<T>> {
  const refusals: { by: string; error: LbSyncError }[] = [];
  for (const holder of group.keyHolders) {
    const by = keyLabel(holder, "the watch function's own key");
    const answer = await tryGateway({
      message: `listing Audit Trail events of organization ${group.organizationId} in ${group.region} with ${by}`,
      notFound: 'unknown_api_error',
      run: () => read(auditTrail(holder)),
    });
    if ('value' in answer) return { group, read: answer.value };
    if (!KEY_REFUSED.has(answer.error.code)) throw answer.error;
    refusals.push({ by, error: answer.error });
  }
  return { group, refused: (refusals[0] as { error: LbSyncError }).error, by: refusals.map((r) => r.by) };
}

function truncatedMatches(relevance: Relevance, group: TrailGroup, at: string): TargetMatch[] {
  const byName = new Map(relevance.matches.map((m) => [m.target, m]));
  for (const target of group.targets) {
    const match = byName.get(target.name) ?? { target: target.name, reasons: [], lastRecordedAt: at };
    match.reasons.push(`more events in ${group.region} than one run reads: every target of the region`);
    byName.set(target.name, match);
  }
  return group.targets.flatMap((t) => byName.get(t.name) ?? []);
}

/** What the pairs that were read say: the targets to enqueue (in the targets' order), the writers, the counts. */
function judge(
  reads: { group: TrailGroup; read: Awaited<ReturnType<typeof readWindow>> }[],
  deps: WatchDeps,
  window: { from: string; to: string },
  to: Date,
) {
  const scope = { own: deps.own, ...(deps.projectId && { projectId: deps.projectId }) };
  const matches: TargetMatch[] = [];
  const ignored: Relevance['ignored'] = {};
  const foreign: ForeignWrite[] = [];
  const contested: Contest[] = [];
  let events = 0;
  let relevant = 0;
  for (const { group, read } of reads) {
    // The run's own window decides what to reconcile; the older backend writes only count towards contests.
    const inWindow = read.events.filter((e) => e.recordedAt >= window.from);
    const relevance = relevantTargets(inWindow, group.targets, scope);
    matches.push(...(read.truncated ? truncatedMatches(relevance, group, window.to) : relevance.matches));
    for (const [reason, n] of Object.entries(relevance.ignored))
      ignored[reason as IgnoreReason] = (ignored[reason as IgnoreReason] ?? 0) + (n ?? 0);
    foreign.push(...foreignWrites(inWindow, group.targets, scope));
    contested.push(...contests(read.events, group.targets, scope, to.getTime()));
    events += inWindow.length;
    relevant += relevance.relevant;
  }
  const order = new Map(deps.targets.map((t, i) => [t.name, i]));
  matches.sort((a, b) => (order.get(a.target) ?? 0) - (order.get(b.target) ?? 0));
  return { matches, ignored, foreign, contested, events, relevant };
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

/**
 * One run of the watcher. It reads each (organization, region) pair's window once, with a key of its targets that may
 * read it. It names the targets the events concern, and enqueues each once. A pair no key may read is a warning for
 * its targets. The run fails (502) only when no pair could be read, or Audit Trail itself failed.
 */
export async function watchOnce(args: z.output<typeof watchArgsSchema>, deps: WatchDeps): Promise<WatchOutcome> {
  const to = deps.now?.() ?? new Date();
  const from = new Date(to.getTime() - deps.window.periodMs - deps.window.overlapMs);
  const window = { from: from.toISOString(), to: to.toISOString() };

  const { selected } = selectCronTargets(args, deps.targets, deps.logger, 'watch');
  const groups = trailGroups(selected, { organizationId: deps.organizationId, ...(deps.projectId && { projectId: deps.projectId }) });
  const report: WatchReport = { events: 0, relevant: 0, enqueued: 0, targets: [], window, foreignWrites: [], contested: [], unread: [] };
  const dryRun = args.dryRun === true;
  if (groups.length === 0) {
    deps.logger.info(heartbeat(report, { dryRun }), summaryMessage(report));
    return { status: 200, report, matches: [], ignored: {} };
  }

  const maxPages = Math.max(1, Math.floor((deps.maxPagesPerRun ?? MAX_PAGES_PER_RUN) / (groups.length * WATCHED_RESOURCE_TYPES.length)));
  const answer = await tryGateway({
    message: 'listing Audit Trail events',
    notFound: 'unknown_api_error',
    run: () =>
      Promise.all(groups.map((group) => readTrail(group, deps.auditTrail, (gateway) => readWindow(gateway, group, from, to, maxPages)))),
  });
  if ('error' in answer) {
    const failure = answer.error;
    const hint = ['permissions_denied', 'authentication_denied'].includes(failure.code) ? PERMISSION_HINT : failure.hint;
    deps.logger.error(heartbeat(report, { dryRun, code: failure.code, error: failure }), `watch: ${failure.message}`);
    return { status: 502, report, matches: [], ignored: {}, error: { code: failure.code, message: failure.message, hint } };
  }
  const reads = answer.value.flatMap((o) => ('read' in o ? [o] : []));
  report.unread = answer.value.flatMap((o) =>
    'refused' in o
      ? [
          {
            organizationId: o.group.organizationId,
            region: o.group.region,
            targets: o.group.targets.map((t) => t.name),
            code: o.refused.code,
            message: `Audit Trail of organization ${o.group.organizationId} in ${o.group.region} not read: ${o.refused.message} (tried ${o.by.join(', ')})`,
            hint: unreadHint(o.group),
          },
        ]
      : [],
  );
  const listCalls = reads.reduce((sum, r) => sum + r.read.calls, 0);
  const truncatedRegions = [...new Set(reads.filter((r) => r.read.truncated).map((r) => r.group.region))];
  if (reads.length === 0) {
    // No pair could be read at all: the watcher is blind, which is a failed run (as with a single organization).
    const [first] = report.unread as [UnreadTrail];
    const facts = { dryRun, code: first.code, unread: report.unread, listCalls };
    deps.logger.error(heartbeat(report, facts), `watch: ${first.message}`);
    const hint = ['permissions_denied', 'authentication_denied'].includes(first.code) ? PERMISSION_HINT : first.hint;
    return { status: 502, report, matches: [], ignored: {}, error: { code: first.code, message: first.message, hint } };
  }
  for (const u of report.unread)
    deps.logger.warn(
      { code: u.code, organization_id: u.organizationId, region: u.region, targets: u.targets },
      `watch: ${u.message}; ${u.hint}`,
    );

  const { matches, ignored, foreign, contested, events, relevant } = judge(reads, deps, window, to);
  report.foreignWrites = foreign.map(({ target, method, userAgent, at, writer }) => ({ target, method, userAgent, at, writer }));
  report.contested = contested.map(({ target, writer, reverts, windowMinutes }) => ({ target, writer, reverts, windowMinutes }));
  logWriters(deps.logger, foreign, contested, deps.own.ownerId);
  report.events = events;
  report.relevant = relevant;
  const outcome = (status: WatchOutcome['status'], error?: WatchOutcome['error']): WatchOutcome => ({
    status,
    report,
    matches,
    ignored,
    ...(error && { error }),
  });

  const outgoing = matches.map((match) => ({
    event: newEvent({
      source: 'audit',
      target: match.target,
      occurredAt: match.lastRecordedAt || window.to,
      ...(args.dryRun !== undefined && { dryRun: args.dryRun }),
      // Carried in the event so the reconcile answer warns too (pool_contested), naming the writer.
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
  const runFacts = { dryRun, ignored, listCalls, truncatedRegions, unread: report.unread };
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
  unread?: UnreadTrail[];
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
    unread_targets: (facts.unread ?? []).flatMap((u) => u.targets),
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
