/**
 * The `lbsync` CLI as an operator runs it (node bin/lbsync.mjs, the bundle `npm run build` writes), next to
 * node's own start in the same run, alternated: `node -e 0`, `lbsync --help`, and `lbsync plan` of one
 * in-sync target against the emulator (3 API reads). Wall time from spawn to exit.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchWorld } from './support/bench-world';
import { REPO } from './support/bundles';
import { buildFleet } from './support/fleet';
import { median, round } from './support/stats';

export interface CliStartResult {
  runs: number;
  nodeBootMs: number;
  helpMs: number;
  planMs: number;
  helpVsBootRatio: number;
  planVsBootRatio: number;
}

const BIN = join(REPO, 'bin/lbsync.mjs');
/** A scratch HOME: no scw CLI profile of the machine's user is read. */
const HOME = mkdtempSync(join(tmpdir(), 'lbsync-bench-home-'));

export function timed(args: string[], env: Record<string, string>, expectCode: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? '', HOME, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === expectCode) resolve(performance.now() - started);
      else reject(new Error(`node ${args.join(' ')} exited ${code} (expected ${expectCode}): ${stderr.trim().slice(-1000)}`));
    });
  });
}

export async function measureCliStart(runs: number): Promise<CliStartResult> {
  const { seed, targets } = buildFleet({ clusters: 1, inSync: true });
  const world = await startBenchWorld({ seed, withQueue: false });
  try {
    const env = world.env(targets);
    const bare: number[] = [];
    const help: number[] = [];
    const plan: number[] = [];
    // Warm-up (page cache), then alternate.
    await timed(['-e', '0'], {}, 0);
    await timed([BIN, '--help'], {}, 0);
    await timed([BIN, 'plan'], env, 0);
    for (let i = 0; i < runs; i += 1) {
      bare.push(await timed(['-e', '0'], {}, 0));
      help.push(await timed([BIN, '--help'], {}, 0));
      plan.push(await timed([BIN, 'plan'], env, 0));
    }
    const nodeBootMs = median(bare);
    return {
      runs,
      nodeBootMs: round(nodeBootMs),
      helpMs: round(median(help)),
      planMs: round(median(plan)),
      helpVsBootRatio: round(median(help) / nodeBootMs, 2),
      planVsBootRatio: round(median(plan) / nodeBootMs, 2),
    };
  } finally {
    await world.stop();
  }
}
