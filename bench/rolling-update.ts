/**
 * 13. kOps' rolling update of three control planes, kOps alone and kOps + scw-lb-sync (watcher, sweep, boot hook),
 * on a clock scaled down `scale` times (bench/support/rolling-update-world.ts: what is measured, and how). Goal: never
 * worse than kOps alone on any figure, no second of a deregistered or terminated server in a pool, and the workers
 * kOps' apply writes in gone within one watcher period of Audit Trail listing that write.
 */
import { join } from 'node:path';
import { REPO } from './support/bundles';
import { runChild } from './support/child';
import { ROLLING_REAL, type RollingUpdateFigures } from './support/rolling-update-world';

/** One reconcile and its readiness wait, as the scaled clock counts it: a fraction of a second times the scale. */
const RECONCILE_SLACK_S = 30;

export interface RollingUpdateSide {
  figures: RollingUpdateFigures;
  workersGoneAfterApplyS: number | null;
  rollingUpdateS: number;
  windowS: number;
  finalPools: Record<string, string[]>;
}

export interface RollingUpdateResult {
  scale: number;
  kopsAlone: RollingUpdateSide;
  withLbsync: RollingUpdateSide;
}

export async function measureRollingUpdate(scale: number): Promise<RollingUpdateResult> {
  const child = await runChild<RollingUpdateResult>(
    join(REPO, 'bench/child/rolling-update.ts'),
    [String(scale)],
    { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    { execArgv: ['--import', 'tsx'], timeoutMs: 240_000 },
  );
  return child.result;
}

const FIGURES: [keyof RollingUpdateFigures, string][] = [
  ['deregisteredInPoolS', 's a pool holds a server kOps deregistered'],
  ['terminatedInPoolS', 's a pool holds a terminating or terminated server'],
  ['nonControlPlaneInPoolS', 's a pool holds a server that is not a control plane'],
  ['belowTwoPassingS', 's a backend has fewer than two passing members'],
  ['lbsyncWrites', 'writes by scw-lb-sync'],
  ['finalPoolRight', 'final pool = the running control planes'],
];

/** Each figure no worse with scw-lb-sync than with kOps alone (more writes of our own is the price, not a figure). */
export function rollingUpdateVerdicts(r: RollingUpdateResult): { ok: boolean; text: string }[] {
  const a = r.kopsAlone.figures;
  const b = r.withLbsync.figures;
  const workers = r.withLbsync.workersGoneAfterApplyS;
  // The watcher can see kOps' write only once Audit Trail lists it (assumed 30 s): then one period, then one reconcile.
  const bound = (ROLLING_REAL.auditDelayMs + ROLLING_REAL.watchPeriodMs) / 1000 + RECONCILE_SLACK_S;
  return [
    {
      ok: b.deregisteredInPoolS === 0 && b.terminatedInPoolS === 0,
      text: `with scw-lb-sync: ${b.deregisteredInPoolS} s of a deregistered server and ${b.terminatedInPoolS} s of a terminated one in a pool (target 0, 0; kOps alone ${a.deregisteredInPoolS}, ${a.terminatedInPoolS})`,
    },
    {
      ok:
        b.nonControlPlaneInPoolS <= a.nonControlPlaneInPoolS &&
        b.belowTwoPassingS <= a.belowTwoPassingS &&
        (b.finalPoolRight || !a.finalPoolRight),
      text: `never worse than kOps alone: workers in a pool ${b.nonControlPlaneInPoolS} s vs ${a.nonControlPlaneInPoolS} s, under two passing ${b.belowTwoPassingS} s vs ${a.belowTwoPassingS} s, final pool right ${b.finalPoolRight} vs ${a.finalPoolRight}`,
    },
    {
      ok: workers !== null && workers <= bound,
      text: `workers kOps' apply writes in gone after ${workers ?? '-'} s at the most (target: within one watcher period once Audit Trail lists the write, ${bound} s = ${ROLLING_REAL.auditDelayMs / 1000} s + ${ROLLING_REAL.watchPeriodMs / 1000} s + ${RECONCILE_SLACK_S} s for the reconcile, which the scaled clock counts ${r.scale}x over)`,
    },
  ];
}

export function renderRollingUpdate(r: RollingUpdateResult): string[] {
  const side = (s: RollingUpdateSide) => FIGURES.map(([key]) => String(s.figures[key]));
  const width = Math.max(...FIGURES.map(([, label]) => label.length));
  return [
    `three control planes replaced by \`kops rolling-update\` (kOps' calls, User-Agent and timings; drain ${ROLLING_REAL.drainMs / 1000} s, validation ${ROLLING_REAL.validateMs / 1000} s assumed), run ${r.scale}x faster; seconds are real-world`,
    `${''.padEnd(width)}  kOps alone  kOps + scw-lb-sync`,
    ...FIGURES.map(([, label], i) => `${label.padEnd(width)}  ${side(r.kopsAlone)[i]?.padEnd(10)}  ${side(r.withLbsync)[i]}`),
    `rolling update ${r.withLbsync.rollingUpdateS} s (kOps alone ${r.kopsAlone.rollingUpdateS} s), measured over ${r.withLbsync.windowS} s; final pools: kOps alone ${JSON.stringify(r.kopsAlone.finalPools)}, with scw-lb-sync ${JSON.stringify(r.withLbsync.finalPools)}`,
  ];
}
