/**
 * 7. Replacement -> pool converged with only the watcher (no boot hook, no inject, no sweep), through the local
 * stack with the dist bundles, on a clock scaled down `scale` times: the watcher's cron period (60 s), Audit
 * Trail's listing delay (30 s, ASSUMED: not documented; the emulator's default) and the overlap (120 s) are all
 * divided by `scale`; the reconcile itself runs at full speed.
 *
 * Measured per replacement (scaled): t0 = the replacement; noticed = the first watcher run after t0 that enqueued
 * it; poolRight = the SetBackendServers landed; applied = LB and instances ready again.
 * Derived real-world latency = scale * noticed + (poolRight - noticed): the wait for Audit Trail and the cron
 * scales, the reconcile does not. Expected: delay + U(0, period) + reconcile, so median ~ delay + period/2,
 * worst ~ delay + period (one more period per skipped run, up to the overlap).
 */
import { join } from 'node:path';
import { REPO } from './support/bundles';
import { runChild } from './support/child';
import { median, round } from './support/stats';

/** The deployed values: the cron period and the overlap (serverless.yml), the assumed Audit Trail delay. */
export const WATCH_REAL = { periodMs: 60_000, overlapMs: 120_000, auditDelayMs: 30_000 };

export interface WatchLatencyRun {
  poolRightMs: number;
  appliedMs: number;
  /** From the replacement to the watcher run that enqueued it. */
  noticedAfterMs: number;
}

export interface WatchLatencyResult {
  scale: number;
  scaled: { periodMs: number; delayMs: number; overlapMs: number };
  runs: WatchLatencyRun[];
  measured: {
    poolRightMedianMs: number;
    poolRightWorstMs: number;
    appliedMedianMs: number;
    appliedWorstMs: number;
    reconcileMedianMs: number;
  };
  /** Real-world latency from the measured runs: scale * noticed + reconcile. */
  derived: { medianMs: number; worstMs: number };
  /** The formula's bounds with the real values: delay + period/2 (median), delay + period (worst), plus the measured reconcile. */
  expected: { medianMs: number; worstMs: number };
}

export async function measureWatchLatency(runs: number, scale = 30): Promise<WatchLatencyResult> {
  const child = await runChild<{ runs: WatchLatencyRun[]; periodMs: number; delayMs: number; overlapMs: number }>(
    join(REPO, 'bench/child/watch-latency.ts'),
    [String(runs), String(scale)],
    { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    { execArgv: ['--import', 'tsx'], timeoutMs: 60_000 + runs * 30_000 },
  );
  const list = child.result.runs;
  const reconcile = list.map((r) => r.poolRightMs - r.noticedAfterMs);
  const real = list.map((r) => scale * r.noticedAfterMs + (r.poolRightMs - r.noticedAfterMs));
  const reconcileMedian = median(reconcile);
  return {
    scale,
    scaled: { periodMs: child.result.periodMs, delayMs: child.result.delayMs, overlapMs: child.result.overlapMs },
    runs: list.map((r) => ({
      poolRightMs: round(r.poolRightMs, 0),
      appliedMs: round(r.appliedMs, 0),
      noticedAfterMs: round(r.noticedAfterMs, 0),
    })),
    measured: {
      poolRightMedianMs: round(median(list.map((r) => r.poolRightMs)), 0),
      poolRightWorstMs: round(Math.max(...list.map((r) => r.poolRightMs)), 0),
      appliedMedianMs: round(median(list.map((r) => r.appliedMs)), 0),
      appliedWorstMs: round(Math.max(...list.map((r) => r.appliedMs)), 0),
      reconcileMedianMs: round(reconcileMedian, 0),
    },
    derived: { medianMs: round(median(real), 0), worstMs: round(Math.max(...real), 0) },
    expected: {
      medianMs: round(WATCH_REAL.auditDelayMs + WATCH_REAL.periodMs / 2 + reconcileMedian, 0),
      worstMs: round(WATCH_REAL.auditDelayMs + WATCH_REAL.periodMs + reconcileMedian, 0),
    },
  };
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function renderWatchLatency(r: WatchLatencyResult): string[] {
  return [
    `assumed Audit Trail delay ${s(WATCH_REAL.auditDelayMs)}, cron every ${s(WATCH_REAL.periodMs)}, overlap ${s(WATCH_REAL.overlapMs)}; run ${r.scale}x faster (delay ${r.scaled.delayMs} ms, period ${r.scaled.periodMs} ms), N=${r.runs.length}`,
    `measured (scaled): pool right median ${r.measured.poolRightMedianMs} ms, worst ${r.measured.poolRightWorstMs} ms; applied median ${r.measured.appliedMedianMs} ms, worst ${r.measured.appliedWorstMs} ms; reconcile after the enqueuing run ${r.measured.reconcileMedianMs} ms (median)`,
    `derived real-world (${r.scale} x wait for the noticing run + reconcile): median ${s(r.derived.medianMs)}, worst ${s(r.derived.worstMs)}; formula delay + U(0, period) + reconcile: median ~${s(r.expected.medianMs)}, worst ~${s(r.expected.worstMs)} (+60 s per skipped run, up to the overlap)`,
    `runs (scaled, ms): ${r.runs.map((x) => `${x.noticedAfterMs}/${x.poolRightMs}`).join(', ')} (noticed/pool right)`,
  ];
}
