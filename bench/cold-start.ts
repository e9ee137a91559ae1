/**
 * 2. Cold start: fresh node process -> first answered event, bundled (dist/) vs our code over node_modules, and
 * the bundle's load next to node's own start: `node -e 0` (spawn to exit) in the same run, alternated, with
 * the node flags the functions are deployed with (which the code cache is made for).
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { startBenchWorld } from './support/bench-world';
import {
  buildMarked,
  buildUnbundled,
  DEPLOYED_NODE_FLAGS,
  distBundle,
  FUNCTION_NODE,
  distHandler,
  FUNCTION_NAMES,
  markedHandler,
  REPO,
  unbundledHandler,
  type FunctionName,
} from './support/bundles';
import { runChild } from './support/child';
import { buildFleet, clusterName } from './support/fleet';
import { expectedAnswer, platformEvent } from './support/platform-events';
import { median, round } from './support/stats';

interface ChildReport {
  answeredMs: number;
  requireStartMs: number;
  requireMs: number;
  handleMs: number;
  status: number;
  body: string;
  nodeModulesLoaded: number;
  sqsInRequireCache: boolean;
  sqsMarker: boolean;
  codeCache: string;
}

export interface ColdStartRow {
  fn: FunctionName;
  bundledMs: number;
  unbundledMs: number;
  ratio: number;
  /** Node's own start (process origin -> first line of our script), median over all runs. */
  nodeBootMs: number;
  /** Same ratio with node's own start taken out of both sides. */
  ratioAboveBoot: number;
  bundledRequireMs: number;
  unbundledRequireMs: number;
  unbundledModules: number;
  bundleBytes: number;
  /** `node -e 0`, spawn to exit, median over the runs of this function. */
  bareNodeMs: number;
  /** require() of the deployed handler (bundle + code cache), median. */
  requireMs: number;
  /** First handle() of a no-op after the require, median. */
  firstHandleMs: number;
  /** requireMs / bareNodeMs: target <= 1. */
  loadVsBootRatio: number;
  /** What the code-cache loader did: accepted | rejected | other-v8 | missing. */
  codeCache: string;
}

export interface ColdStartResult {
  runs: number;
  rows: ColdStartRow[];
  /** The reconcile bundle answering a no-op: was the SQS client module initialised? (marker in a marked build) */
  sqsLoadedOnNoopReconcile: boolean;
  /** Control: the same marker on inject, which must send to the queue. */
  sqsLoadedOnInject: boolean;
  /** The unbundled reconcile no-op: any @aws-sdk module in require.cache? */
  sqsInRequireCacheUnbundled: boolean;
}

const CHILD = join(REPO, 'bench/child/cold-start.cjs');

/** Wall time of `node <deployed flags> -e 0`, from spawn to exit. */
function bareNode(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(FUNCTION_NODE, [...DEPLOYED_NODE_FLAGS, '-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`node -e 0 exited ${code}`))));
  });
}

export async function measureColdStart(runs: number): Promise<ColdStartResult> {
  const { seed, targets } = buildFleet({ clusters: 1, inSync: true });
  const world = await startBenchWorld({ seed });
  try {
    await Promise.all([buildUnbundled(), buildMarked()]);
    const env = world.env(targets);
    const once = async (fn: FunctionName, handler: string): Promise<ChildReport> => {
      const event = platformEvent(fn, clusterName(0));
      const { result } = await runChild<ChildReport>(CHILD, [handler], { ...env, BENCH_EVENT: JSON.stringify(event) });
      const problem = expectedAnswer(fn, result.status, result.body);
      if (problem) throw new Error(`cold start ${handler}: ${problem}`);
      return result;
    };
    const rows: ColdStartRow[] = [];
    for (const fn of FUNCTION_NAMES) {
      const bundled: ChildReport[] = [];
      const unbundled: ChildReport[] = [];
      const bare: number[] = [];
      // One warm-up of each (page cache), then alternate so drift on a shared machine hits all alike.
      await bareNode();
      await once(fn, distHandler(fn));
      await once(fn, unbundledHandler(fn));
      for (let i = 0; i < runs; i += 1) {
        bare.push(await bareNode());
        bundled.push(await once(fn, distHandler(fn)));
        unbundled.push(await once(fn, unbundledHandler(fn)));
      }
      const bundledMs = median(bundled.map((r) => r.answeredMs));
      const unbundledMs = median(unbundled.map((r) => r.answeredMs));
      const nodeBootMs = median([...bundled, ...unbundled].map((r) => r.requireStartMs));
      rows.push({
        fn,
        bundledMs: round(bundledMs),
        unbundledMs: round(unbundledMs),
        ratio: round(unbundledMs / bundledMs, 2),
        nodeBootMs: round(nodeBootMs),
        ratioAboveBoot: round((unbundledMs - nodeBootMs) / (bundledMs - nodeBootMs), 2),
        bundledRequireMs: round(median(bundled.map((r) => r.requireMs))),
        unbundledRequireMs: round(median(unbundled.map((r) => r.requireMs))),
        unbundledModules: Math.max(...unbundled.map((r) => r.nodeModulesLoaded)),
        bundleBytes: statSync(distBundle(fn)).size,
        bareNodeMs: round(median(bare)),
        requireMs: round(median(bundled.map((r) => r.requireMs))),
        firstHandleMs: round(median(bundled.map((r) => r.handleMs))),
        loadVsBootRatio: round(median(bundled.map((r) => r.requireMs)) / median(bare), 2),
        codeCache: [...new Set(bundled.map((r) => r.codeCache))].join('/'),
      });
    }
    const markedReconcile = await once('reconcile', markedHandler('reconcile'));
    const markedInject = await once('inject', markedHandler('inject'));
    const unbundledReconcile = await once('reconcile', unbundledHandler('reconcile'));
    return {
      runs,
      rows,
      sqsLoadedOnNoopReconcile: markedReconcile.sqsMarker,
      sqsLoadedOnInject: markedInject.sqsMarker,
      sqsInRequireCacheUnbundled: unbundledReconcile.sqsInRequireCache,
    };
  } finally {
    await world.stop();
  }
}
