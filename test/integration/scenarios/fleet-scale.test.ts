/**
 * One deployment serving a fleet, scaled down from the bench's (section 14): 200 kOps clusters across 10 projects,
 * 2 organizations and 3 regions, listed project by project, a tenth with a second LB, each project on its own key.
 * Judged from the emulator's call log with the deployed bundles (dist/, built by the global setup), never from the
 * functions' answers:
 *   - the sweep spreads every project over the whole period: its busiest window at most 1.5x its mean;
 *   - a watcher tick lists each (organization, region) once, per watched resource type: not per target;
 *   - `lbsync plan` and `status` over the fleet read within a bound linear in targets, LBs and pairs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI_READS,
  measureCli,
  measureSweepByProject,
  measureWatchTicks,
  PEAK_OVER_MEAN_BAR,
  startFleetWorld,
} from '../../../bench/fleet-scale';
import type { BenchWorld } from '../../../bench/support/bench-world';
import { FLEET_SCALE, type TenantFleet } from '../../../bench/support/tenant-fleet';
import { WATCHED_RESOURCE_TYPES } from '../../../shared/core/audit-relevance';

const TARGETS = 200;
const SPREAD_MS = 300_000;

let world: BenchWorld;
let fleet: TenantFleet;
let env: Record<string, string>;

beforeAll(async () => {
  ({ world, fleet, env } = await startFleetWorld({ ...FLEET_SCALE, targets: TARGETS }));
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

describe('a fleet of 200 targets, 10 projects, 2 organizations, 3 regions (deployed bundles, call log)', () => {
  it("a sweep over its period spreads each project's events and reads: peak window <= 1.5x the mean, every project", async () => {
    const sweep = await measureSweepByProject(world, fleet, env, SPREAD_MS);
    expect(sweep.enqueued).toBe(TARGETS);
    expect(sweep.projects).toHaveLength(10);
    for (const p of sweep.projects) {
      expect(p.targets, p.project).toBe(TARGETS / 10);
      expect(p.writesTotal, p.project).toBe(0);
      // Every no-op read something: a project whose reads went uncounted cannot pass for spread.
      expect(p.readsTotal, p.project).toBeGreaterThanOrEqual(3 * p.targets);
      expect(p.sent.peakOverMean, `${p.project} sent`).toBeLessThanOrEqual(PEAK_OVER_MEAN_BAR);
      expect(p.reads.peakOverMean, `${p.project} reads`).toBeLessThanOrEqual(PEAK_OVER_MEAN_BAR);
    }
  }, 120_000);

  it('a watcher tick reads each (organization, region) once per watched resource type, whatever the targets', async () => {
    const watch = await measureWatchTicks(world, fleet, env, 2);
    expect(watch.expectedPairs).toBe(6);
    expect(Object.keys(watch.listingsByPair)).toHaveLength(6);
    for (const [pair, listings] of Object.entries(watch.listingsByPair)) expect(listings, pair).toBe(WATCHED_RESOURCE_TYPES.length);
    expect(watch.listEventsPerTick).toBe(6 * WATCHED_RESOURCE_TYPES.length);
    expect(watch.readsPerTick).toBe(watch.listEventsPerTick);
  }, 60_000);

  it('lbsync plan and status over the fleet read at most per target, per LB and per (organization, region), write nothing', async () => {
    const lbs = fleet.clusters.reduce((n, c) => n + c.lbIds.length, 0);
    expect(lbs).toBe(TARGETS + TARGETS / 10);
    for (const command of ['plan', 'status'] as const) {
      const run = await measureCli(world, fleet, env, command);
      const k = CLI_READS[command];
      expect(run.bound).toBe(k.perTarget * TARGETS + k.perLb * lbs + k.perPair * 6);
      expect(run.writes, command).toBe(0);
      expect(run.reads, command).toBeGreaterThanOrEqual(TARGETS + 2 * lbs);
      expect(run.reads, command).toBeLessThanOrEqual(run.bound);
    }
  }, 120_000);
});
