/**
 * The targets shipped in the archive (`npm run build -- --targets FILE` writes dist/targets.json): what a reconcile
 * instance holds for them, by fleet size. For each size, the fleet of bench/support/tenant-fleet.ts in the emulator,
 * a copy of dist/ shipping its targets, and one reconcile instance served as the platform serves it
 * (bench/child/serve.cjs, the deployed node options, no LBSYNC_TARGETS: the function reads the shipped file) that
 * answers `events` no-op reconciles one at a time: its peak RSS (VmHWM) and V8 heap at the end; beside it, the peak
 * of the same events with the same file named by LBSYNC_CONFIG, as section 14 of the bench configures the fleet.
 *
 *   npm run build && npx tsx bench/shipped-targets.ts [targets ...]   (default: 1 1000 5000 10000)
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFleetWorld } from './fleet-scale';
import { post, startInstance } from './sequential';
import { DEPLOYED_NODE_FLAGS, distHandler, REPO } from './support/bundles';
import { platformEvent } from './support/platform-events';
import { round } from './support/stats';
import { buildTenantFleet, FLEET_SCALE } from './support/tenant-fleet';

export interface ShippedTargetsRow {
  targets: number;
  /** dist/targets.json as the build writes it (compact JSON). */
  fileKiB: number;
  /** RSS once the first event is answered (the targets are read then), and the peak after every event. */
  firstEventMB: number;
  peakMB: number;
  heapUsedMB: number;
  heapTotalMB: number;
  /** The peak of the same events with the same file named by LBSYNC_CONFIG instead (bench section 14's way). */
  configPeakMB: number;
}

/**
 * The emulated world holds at most this many of the fleet's clusters (its addresses run out near 4,000); the events
 * go to its first clusters, which are the same in every size of the fleet (the first project's first 100).
 */
const WORLD_TARGETS = 1000;

/** One reconcile instance of `handler` answering `events` no-ops for the world's first clusters, one at a time. */
async function reconcileInstance(handler: string, env: Record<string, string>, clusters: string[], events: number) {
  const instance = await startInstance(handler, env, DEPLOYED_NODE_FLAGS);
  try {
    let firstEventMB = 0;
    for (let i = 0; i < events; i += 1) {
      const event = platformEvent('reconcile', clusters[i % clusters.length] ?? '');
      const answer = await post(instance.url, event.headers as Record<string, string>, event.body ?? '');
      if (answer.status !== 200 || !answer.body.includes('"noop"'))
        throw new Error(`reconcile ${handler}: answered ${answer.status} ${answer.body.slice(0, 500)}`);
      if (i === 0) firstEventMB = round((await instance.memory()).rssMB);
    }
    const end = await instance.memory();
    return { firstEventMB, peakMB: round(end.peakMB), heapUsedMB: round(end.heapUsedMB), heapTotalMB: round(end.heapTotalMB) };
  } finally {
    await instance.stop();
  }
}

/**
 * One fleet size: its world; dist/ shipping its targets, read by one reconcile instance; then the same file named by
 * LBSYNC_CONFIG (as section 14 of the bench gives it) to the bundles of dist/, read by another.
 */
export async function measureShippedTargets(targets: number, events: number): Promise<ShippedTargetsRow> {
  const { world, fleet: inWorld, env } = await startFleetWorld({ ...FLEET_SCALE, targets: Math.min(targets, WORLD_TARGETS) });
  const fleet = buildTenantFleet({ ...FLEET_SCALE, targets });
  const clusters = inWorld.clusters.slice(0, 100).map((c) => c.name);
  const dir = mkdtempSync(join(tmpdir(), 'lbsync-shipped-bench-'));
  try {
    cpSync(join(REPO, 'dist'), join(dir, 'dist'), { recursive: true });
    const file = `${JSON.stringify({ targets: fleet.inputs })}\n`;
    writeFileSync(join(dir, 'dist', 'targets.json'), file);
    writeFileSync(join(dir, 'config.json'), file);
    const { LBSYNC_CONFIG: _file, ...withoutTargets } = env;
    const shipped = await reconcileInstance(
      join(dir, 'dist', 'reconcile', 'handler.js'),
      { ...withoutTargets, LBSYNC_TARGETS: '' },
      clusters,
      events,
    );
    const config = await reconcileInstance(
      distHandler('reconcile'),
      { ...withoutTargets, LBSYNC_CONFIG: join(dir, 'config.json') },
      clusters,
      events,
    );
    return { targets, fileKiB: round(Buffer.byteLength(file) / 1024), ...shipped, configPeakMB: config.peakMB };
  } finally {
    await world.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function renderShippedTargets(rows: ShippedTargetsRow[], events: number): string[] {
  return [
    `reconcile instance with the targets shipped in dist/targets.json, ${events} no-op events one at a time:`,
    'targets  file KiB  RSS after 1st event MB  peak RSS MB  heap used / committed MB  peak RSS, LBSYNC_CONFIG MB',
    ...rows.map(
      (r) =>
        `${String(r.targets).padStart(7)}  ${String(r.fileKiB).padStart(8)}  ${String(r.firstEventMB).padStart(22)}  ${String(r.peakMB).padStart(11)}  ${`${r.heapUsedMB} / ${r.heapTotalMB}`.padEnd(24)}  ${r.configPeakMB}`,
    ),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const sizes = process.argv.slice(2).map(Number);
  const events = 100;
  const rows: ShippedTargetsRow[] = [];
  for (const targets of sizes.length > 0 ? sizes : [1, 1000, 5000, 10000]) rows.push(await measureShippedTargets(targets, events));
  process.stdout.write(`${renderShippedTargets(rows, events).join('\n')}\n`);
}
