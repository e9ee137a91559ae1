/**
 * 14. One deployment serving a fleet (issue 26): N kOps clusters across 10 projects, 2 organizations and 3 regions,
 * a tenth with a second LB (bench/support/tenant-fleet.ts), every key answered for its own organization only.
 * Counted from the emulator's call log, each function served by its deployed bundle one request at a time:
 *   - one sweep over its period (hold mode on a virtual clock, bench/support/paced-sweep.ts), each event it sent
 *     then reconciled when it left: events sent and API reads per project, per second, peak window vs mean;
 *   - a watcher tick: its reads, and its Audit Trail listings per (organization, region);
 *   - peak RSS of an instance of each function with the whole fleet configured;
 *   - `lbsync status` and `lbsync plan` over the whole fleet: wall time and reads.
 * The targets reach every process as the JSON file LBSYNC_CONFIG names: the whole fleet outgrows one variable.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallRecord } from '../emulator';
import { WATCHED_RESOURCE_TYPES } from '../shared/core/audit-relevance';
import { timed } from './cli-start';
import { type Instance, post, startInstance } from './sequential';
import { type BenchWorld, startBenchWorld } from './support/bench-world';
import { DEPLOYED_NODE_FLAGS, distHandler, type FunctionName, REPO } from './support/bundles';
// @ts-expect-error: plain .mjs module without types
import { MAX_ENV_CHARS, MAX_SECRET_BYTES } from '../scripts/serverless-check/scaleway-limits.mjs';
import { pacedSweep } from './support/paced-sweep';
import { platformEvent } from './support/platform-events';
import { round } from './support/stats';
import { buildTenantFleet, type TenantFleet, type TenantFleetOptions } from './support/tenant-fleet';

/** The spread bar: a project's busiest window at most this many times its mean over the period. */
export const PEAK_OVER_MEAN_BAR = 1.5;
/** Memory per instance: what the 128 MB tier leaves (docs/performance.md). */
export const MEMORY_BAR_MB = 96;
/** A rate's window holds this many of one project's events on average: shorter, and one event more or less is the peak. */
const EVENTS_PER_WINDOW = 5;

export interface Rate {
  /** The window the peak is taken over (whole seconds dividing the period). */
  windowS: number;
  meanPerS: number;
  peakPerS: number;
  peakOverMean: number;
  /** The most in any one second. */
  peakIn1s: number;
}

/** An instance's memory at its end: peak RSS (VmHWM, the bar) and the V8 heap committed and used. */
export interface InstanceMemory {
  peakMB: number;
  heapTotalMB: number;
  heapUsedMB: number;
}

const instanceMemory = async (instance: Instance): Promise<InstanceMemory> => {
  const m = await instance.memory();
  return { peakMB: round(m.peakMB), heapTotalMB: round(m.heapTotalMB), heapUsedMB: round(m.heapUsedMB) };
};

export interface ProjectRow {
  project: string;
  organization: string;
  targets: number;
  lbs: number;
  sent: Rate;
  reads: Rate;
  readsTotal: number;
  writesTotal: number;
}

export interface SweepByProject {
  spreadS: number;
  enqueued: number;
  sendBatches: number;
  /** SendMessageBatch calls per second over the period: the most in one second, the mean. */
  batchesPeakIn1s: number;
  batchesMeanPerS: number;
  projects: ProjectRow[];
  /** The worst project's ratio. */
  worstPeakOverMean: number;
  /** Each organization's reads over the period (all its projects): what its rate limit sees. */
  readsPerOrganization: Record<string, Rate>;
  reconcileMemory: InstanceMemory;
  /** Wall time of one no-op reconcile against the emulator (mean over the sweep's events, the instance warm). */
  reconcileMsPerEvent: number;
}

export interface WatchTick {
  ticks: number;
  readsPerTick: number;
  listEventsPerTick: number;
  /** ListEvents calls per (organization, region) in one tick, from the log. */
  listingsByPair: Record<string, number>;
  expectedPairs: number;
  memory: InstanceMemory;
}

export interface CliRun {
  command: 'status' | 'plan';
  wallMs: number;
  reads: number;
  writes: number;
  /** The reads it is held to: per target, per LB and per (organization, region) pair (CLI_READS). */
  bound: number;
}

export interface FleetScaleResult {
  fleet: { targets: number; projects: number; organizations: number; regions: number; lbs: number; twoLbTargets: number };
  configuration: { chars: number; charsPerTarget: number; fitInVariable: number; fitInSecret: number };
  sweep: SweepByProject;
  watch: WatchTick;
  memory: Record<FunctionName, InstanceMemory>;
  cli: CliRun[];
}

/**
 * The reads `lbsync plan` and `status` make over a fleet in sync, the bound held: per target its servers (ListServers),
 * per LB its lookup by name and its backends (ListLbs, ListBackends), status also each LB's health (ListBackendStats)
 * and one Audit Trail listing per (organization, region) for who last wrote each pool.
 */
export const CLI_READS = { plan: { perTarget: 1, perLb: 2, perPair: 0 }, status: { perTarget: 1, perLb: 3, perPair: 1 } };

/** The (organization, region) pairs of a fleet: the watcher's Audit Trail reads. */
export const trailPairs = (fleet: TenantFleet) => new Set(fleet.clusters.map((c) => `${c.project.organizationId}/${c.region}`)).size;
const lbCount = (fleet: TenantFleet) => fleet.clusters.reduce((n, c) => n + c.lbIds.length, 0);

const json = { 'content-type': 'application/json' };

/** The world, and the environment every process of it gets: the fleet's accounts and keys, its targets from a file. */
export async function startFleetWorld(
  options: TenantFleetOptions,
): Promise<{ world: BenchWorld; fleet: TenantFleet; env: Record<string, string> }> {
  const fleet = buildTenantFleet(options);
  const world = await startBenchWorld({ seed: fleet.seed });
  const file = join(mkdtempSync(join(tmpdir(), 'lbsync-fleet-')), 'targets.json');
  writeFileSync(file, JSON.stringify(fleet.inputs));
  const { LBSYNC_TARGETS: _inline, ...env } = world.env([], { ...fleet.env, LBSYNC_CONFIG: file, QUEUE_DELAY_MODE: 'hold' });
  return { world, fleet, env };
}

function rate(times: number[], weights: number[], start: number, spreadMs: number, windowS: number): Rate {
  const total = weights.reduce((a, b) => a + b, 0);
  const bins = (widthMs: number) => {
    const counts = new Map<number, number>();
    times.forEach((t, i) => {
      const bin = Math.floor((t - start) / widthMs);
      counts.set(bin, (counts.get(bin) ?? 0) + (weights[i] ?? 0));
    });
    return Math.max(0, ...counts.values());
  };
  const meanPerS = total / (spreadMs / 1000);
  const peakPerS = bins(windowS * 1000) / windowS;
  return {
    windowS,
    meanPerS: round(meanPerS, 2),
    peakPerS: round(peakPerS, 2),
    peakOverMean: total === 0 ? 0 : round(peakPerS / meanPerS, 2),
    peakIn1s: bins(1000),
  };
}

/** The shortest whole-second window dividing the period in which each project expects EVENTS_PER_WINDOW events. */
export function rateWindowS(spreadMs: number, targets: number, projects: number): number {
  const spreadS = spreadMs / 1000;
  const wanted = (EVENTS_PER_WINDOW * spreadS * projects) / targets;
  for (let w = Math.max(1, Math.ceil(wanted)); w <= spreadS; w += 1) if (spreadS % w === 0) return w;
  return spreadS;
}

/**
 * One sweep over `spreadMs` (virtual clock), then each event it sent reconciled, in order, by one reconcile instance
 * of the deployed bundle: the calls the log records for it are its target's project's, at the time it was sent.
 */
export async function measureSweepByProject(
  world: BenchWorld,
  fleet: TenantFleet,
  env: Record<string, string>,
  spreadMs: number,
): Promise<SweepByProject> {
  const sweep = await pacedSweep(fleet.targets, world.events as NonNullable<BenchWorld['events']>, world.reconcileQueueUrl, spreadMs);
  await world.events?.purge(world.reconcileQueueUrl);
  if (sweep.report.enqueued !== fleet.targets.length)
    throw new Error(`fleet sweep: enqueued ${sweep.report.enqueued} of ${fleet.targets.length}`);
  const projectOf = new Map(fleet.clusters.map((c) => [c.name, c.project]));
  const instance = await startInstance(distHandler('reconcile'), env, DEPLOYED_NODE_FLAGS);
  const handled: { project: string; organization: string; at: number; reads: number; writes: number }[] = [];
  let reconcileMs = 0;
  try {
    for (const send of sweep.sends) {
      for (const event of send.events) {
        world.emulator.resetCalls();
        const t0 = performance.now();
        const answer = await post(instance.url, json, JSON.stringify(event));
        reconcileMs += performance.now() - t0;
        const outcome = answer.status === 200 ? (JSON.parse(answer.body) as { outcome?: string }).outcome : undefined;
        if (outcome !== 'noop') throw new Error(`fleet sweep: ${event.target} answered ${answer.status} ${answer.body.slice(0, 500)}`);
        const calls = world.emulator.calls();
        const reads = calls.filter((c) => !c.write).length;
        const project = projectOf.get(event.target);
        handled.push({
          project: project?.id ?? '?',
          organization: project?.organizationId ?? '?',
          at: send.at,
          reads,
          writes: calls.length - reads,
        });
      }
    }
    const reconcileMemory = await instanceMemory(instance);
    const windowS = rateWindowS(spreadMs, fleet.targets.length, fleet.projects.length);
    const projects = fleet.projects.map((p): ProjectRow => {
      const mine = handled.filter((h) => h.project === p.id);
      const clusters = fleet.clusters.filter((c) => c.project === p);
      const at = mine.map((h) => h.at);
      return {
        project: p.id,
        organization: p.organizationId,
        targets: clusters.length,
        lbs: clusters.reduce((n, c) => n + c.lbIds.length, 0),
        sent: rate(
          at,
          at.map(() => 1),
          sweep.start,
          spreadMs,
          windowS,
        ),
        reads: rate(
          at,
          mine.map((h) => h.reads),
          sweep.start,
          spreadMs,
          windowS,
        ),
        readsTotal: mine.reduce((n, h) => n + h.reads, 0),
        writesTotal: mine.reduce((n, h) => n + h.writes, 0),
      };
    });
    const readsPerOrganization: Record<string, Rate> = {};
    for (const organization of new Set(fleet.projects.map((p) => p.organizationId))) {
      const theirs = handled.filter((h) => h.organization === organization);
      readsPerOrganization[organization] = rate(
        theirs.map((h) => h.at),
        theirs.map((h) => h.reads),
        sweep.start,
        spreadMs,
        windowS,
      );
    }
    const batches = rate(
      sweep.sends.map((s) => s.at),
      sweep.sends.map(() => 1),
      sweep.start,
      spreadMs,
      windowS,
    );
    return {
      spreadS: spreadMs / 1000,
      enqueued: sweep.report.enqueued,
      sendBatches: sweep.sends.length,
      batchesPeakIn1s: batches.peakIn1s,
      batchesMeanPerS: batches.meanPerS,
      projects,
      worstPeakOverMean: Math.max(...projects.map((r) => Math.max(r.sent.peakOverMean, r.reads.peakOverMean))),
      readsPerOrganization,
      reconcileMemory,
      reconcileMsPerEvent: round(reconcileMs / Math.max(1, handled.length), 1),
    };
  } finally {
    await instance.stop();
  }
}

/** The (organization, region) pair a ListEvents call read: the organization it asked for, the region in its path. */
export function listingPair(call: Pick<CallRecord, 'path' | 'query'>): string {
  const region = /\/regions\/([^/]+)\//.exec(call.path)?.[1] ?? '?';
  return `${new URLSearchParams(call.query).get('organization_id') ?? '?'}/${region}`;
}

/** `ticks` watcher ticks of one watch instance (the deployed bundle), nothing recorded in the trail meanwhile. */
export async function measureWatchTicks(
  world: BenchWorld,
  fleet: TenantFleet,
  env: Record<string, string>,
  ticks: number,
): Promise<WatchTick> {
  const instance = await startInstance(distHandler('watch'), env, DEPLOYED_NODE_FLAGS);
  try {
    world.emulator.resetCalls();
    for (let i = 0; i < ticks; i += 1) {
      const answer = await post(instance.url, json, '{}');
      if (answer.status !== 200) throw new Error(`fleet watch: answered ${answer.status} ${answer.body.slice(0, 500)}`);
      const unread = (JSON.parse(answer.body) as { unread?: unknown[] }).unread ?? [];
      if (unread.length > 0) throw new Error(`fleet watch: trails unread ${JSON.stringify(unread).slice(0, 500)}`);
    }
    const calls = world.emulator.calls();
    const listings = calls.filter((c) => c.operation === 'ListEvents');
    const listingsByPair: Record<string, number> = {};
    for (const c of listings) listingsByPair[listingPair(c)] = (listingsByPair[listingPair(c)] ?? 0) + 1;
    for (const pair of Object.keys(listingsByPair)) listingsByPair[pair] = round((listingsByPair[pair] as number) / ticks, 2);
    return {
      ticks,
      readsPerTick: round(calls.filter((c) => !c.write).length / ticks, 1),
      listEventsPerTick: round(listings.length / ticks, 1),
      listingsByPair,
      expectedPairs: trailPairs(fleet),
      memory: await instanceMemory(instance),
    };
  } finally {
    await instance.stop();
  }
}

/** Peak RSS of an instance of `fn` (deployed bundle) with the whole fleet configured, after `events` requests. */
async function instancePeak(
  fn: 'inject' | 'sweep',
  world: BenchWorld,
  fleet: TenantFleet,
  env: Record<string, string>,
  events: number,
  body?: string,
) {
  const instance = await startInstance(distHandler(fn), env, DEPLOYED_NODE_FLAGS);
  try {
    const event = platformEvent(fn, fleet.clusters[fleet.clusters.length - 1]?.name ?? '');
    for (let i = 0; i < events; i += 1) {
      const answer = await post(instance.url, event.headers as Record<string, string>, body ?? event.body ?? '');
      if (answer.status < 200 || answer.status >= 300)
        throw new Error(`fleet ${fn}: answered ${answer.status} ${answer.body.slice(0, 500)}`);
    }
    return await instanceMemory(instance);
  } finally {
    await instance.stop();
    await world.events?.purge(world.reconcileQueueUrl);
  }
}

const BIN = join(REPO, 'bin/lbsync.mjs');

/** `lbsync <command>` over the whole fleet, as an operator runs it: wall time, and the calls the log records. */
export async function measureCli(
  world: BenchWorld,
  fleet: TenantFleet,
  env: Record<string, string>,
  command: 'status' | 'plan',
): Promise<CliRun> {
  world.emulator.resetCalls();
  const wallMs = await timed([BIN, command], { ...env, NO_COLOR: '1' }, 0);
  const calls = world.emulator.calls();
  const reads = calls.filter((c) => !c.write).length;
  const k = CLI_READS[command];
  const bound = k.perTarget * fleet.targets.length + k.perLb * lbCount(fleet) + k.perPair * trailPairs(fleet);
  return { command, wallMs: round(wallMs, 0), reads, writes: calls.length - reads, bound };
}

export interface FleetScalePlan {
  fleet: TenantFleetOptions;
  spreadMs: number;
  watchTicks: number;
  injectEvents: number;
  /** The sweep instance's own run (real time, hold mode): over this many seconds. */
  sweepInstanceSpreadS: number;
}

export async function measureFleetScale(plan: FleetScalePlan): Promise<FleetScaleResult> {
  const { world, fleet, env } = await startFleetWorld(plan.fleet);
  try {
    const sweep = await measureSweepByProject(world, fleet, env, plan.spreadMs);
    const watch = await measureWatchTicks(world, fleet, env, plan.watchTicks);
    const memory: Record<FunctionName, InstanceMemory> = {
      reconcile: sweep.reconcileMemory,
      watch: watch.memory,
      inject: await instancePeak('inject', world, fleet, env, plan.injectEvents),
      sweep: await instancePeak('sweep', world, fleet, env, 1, JSON.stringify({ spreadSeconds: plan.sweepInstanceSpreadS })),
    };
    const cli = [await measureCli(world, fleet, env, 'status'), await measureCli(world, fleet, env, 'plan')];
    const chars = JSON.stringify(fleet.inputs).length;
    const charsPerTarget = chars / fleet.inputs.length;
    return {
      fleet: {
        targets: fleet.targets.length,
        projects: fleet.projects.length,
        organizations: new Set(fleet.projects.map((p) => p.organizationId)).size,
        regions: new Set(fleet.clusters.map((c) => c.region)).size,
        lbs: lbCount(fleet),
        twoLbTargets: fleet.clusters.filter((c) => c.lbIds.length > 1).length,
      },
      configuration: {
        chars,
        charsPerTarget: round(charsPerTarget, 0),
        fitInVariable: Math.floor(((MAX_ENV_CHARS as number) - 2) / (charsPerTarget + 1)),
        fitInSecret: Math.floor(((MAX_SECRET_BYTES as number) - 2) / (charsPerTarget + 1)),
      },
      sweep,
      watch,
      memory,
      cli,
    };
  } finally {
    await world.stop();
  }
}

/** Which bars the run misses (empty: all met). */
export function fleetScaleMisses(r: FleetScaleResult): string[] {
  const misses: string[] = [];
  if (r.sweep.worstPeakOverMean > PEAK_OVER_MEAN_BAR)
    misses.push(`a project's peak/mean ${r.sweep.worstPeakOverMean} > ${PEAK_OVER_MEAN_BAR}`);
  const listings = Object.values(r.watch.listingsByPair);
  if (listings.length !== r.watch.expectedPairs || listings.some((n) => n > WATCHED_RESOURCE_TYPES.length))
    misses.push(
      `watcher: ${listings.length} pairs listed (${r.watch.expectedPairs} expected), up to ${Math.max(...listings)} listings each`,
    );
  for (const [fn, m] of Object.entries(r.memory)) if (m.peakMB > MEMORY_BAR_MB) misses.push(`${fn} ${m.peakMB} MB > ${MEMORY_BAR_MB} MB`);
  for (const run of r.cli) if (run.reads > run.bound) misses.push(`lbsync ${run.command}: ${run.reads} reads > ${run.bound}`);
  return misses;
}

const short = (id: string) => id.slice(0, 8);

export function renderFleetScale(r: FleetScaleResult): string[] {
  const f = r.fleet;
  const s = r.sweep;
  const w = s.projects[0]?.reads.windowS ?? 0;
  const misses = fleetScaleMisses(r);
  return [
    `fleet: ${f.targets} targets (listed project by project), ${f.projects} projects, ${f.organizations} organizations, ${f.regions} regions, ${f.lbs} LBs (${f.twoLbTargets} targets with 2)`,
    `sweep over ${s.spreadS} s (hold mode, virtual clock): ${s.enqueued} events in ${s.sendBatches} SendMessageBatch (${s.batchesMeanPerS}/s mean, at most ${s.batchesPeakIn1s} in one second); each then reconciled (no-op) and its calls counted from the log`,
    `per project, per second over ${w}-s windows (bar: peak <= ${PEAK_OVER_MEAN_BAR}x mean):`,
    ...s.projects.map(
      (p) =>
        `  ${short(p.project)} (org ${short(p.organization)}, ${p.targets} targets, ${p.lbs} LBs): sent mean ${p.sent.meanPerS}/s peak ${p.sent.peakPerS}/s (x${p.sent.peakOverMean}); reads ${p.readsTotal} (${p.writesTotal} writes), mean ${p.reads.meanPerS}/s peak ${p.reads.peakPerS}/s (x${p.reads.peakOverMean}), at most ${p.reads.peakIn1s} in one second`,
    ),
    `  worst peak/mean ${s.worstPeakOverMean}; reads per organization: ${Object.entries(s.readsPerOrganization)
      .map(([o, v]) => `${short(o)} mean ${v.meanPerS}/s, peak ${v.peakPerS}/s (x${v.peakOverMean}), at most ${v.peakIn1s} in one second`)
      .join('; ')}`,
    `  one no-op reconcile took ${s.reconcileMsPerEvent} ms against the emulator (mean, one warm instance, one request at a time)`,
    `watcher tick (x${r.watch.ticks}): ${r.watch.readsPerTick} reads, ${r.watch.listEventsPerTick} ListEvents: ${Object.keys(r.watch.listingsByPair).length} (organization, region) pairs of ${r.watch.expectedPairs}, ${WATCHED_RESOURCE_TYPES.length} resource types each (${[...new Set(Object.values(r.watch.listingsByPair))].join('/')} calls per pair)`,
    `memory per instance, the whole fleet configured, peak RSS (bar ${MEMORY_BAR_MB} MB) and V8 heap used/committed: ${Object.entries(
      r.memory,
    )
      .map(([fn, m]) => `${fn} ${m.peakMB} MB (heap ${m.heapUsedMB}/${m.heapTotalMB} MB)`)
      .join(', ')}`,
    ...r.cli.map(
      (c) =>
        `lbsync ${c.command} over the fleet: ${(c.wallMs / 1000).toFixed(1)} s, ${c.reads} reads, ${c.writes} writes (bound ${c.bound})`,
    ),
    `configuration: ${r.configuration.chars} characters of JSON (${r.configuration.charsPerTarget} per target): ${r.configuration.fitInVariable} targets fit in a plain variable (${MAX_ENV_CHARS} characters), ${r.configuration.fitInSecret} in a secret (${MAX_SECRET_BYTES} bytes)`,
    misses.length === 0 ? 'bars: all met' : `bars MISSED: ${misses.join('; ')}`,
  ];
}
