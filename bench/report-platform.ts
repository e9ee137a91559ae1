/**
 * The platform's terms in the report: memory per instance (sequential, as deployed), cold start next to
 * node's own start, the CLI's start, and cost per 1M events. Printed rows and the JSON keys of the contract:
 * rssMB.sequential.<fn>, coldStart.loadVsBootRatio, coldStart.byFunction[].loadVsBootRatio, cli.*, cost.per1M.*.
 */
import type { CliStartResult } from './cli-start';
import type { ColdStartResult } from './cold-start';
import type { CostResult } from './cost';
import type { SequentialResult, SequentialRow } from './sequential';
import { table } from './support/text-table';

export const RSS_TARGET_MB = 96;
export const TIER_MB = 128;
export const LOAD_VS_BOOT_TARGET = 1;
export const CLI_HELP_TARGET = 3;
export const CLI_PLAN_TARGET = 5;

export interface PlatformMeasurements {
  /** As deployed: serverless.yml's NODE_OPTIONS (V8 heap bounded); full runs compare V8's default heap. */
  sequential: SequentialResult;
  cli: CliStartResult;
  cost: CostResult;
}

const r1 = (n: number) => Math.round(n * 10) / 10;

function defaultHeap(row: SequentialRow): string {
  return row.compared ? `${row.compared.peakMB} MB / ${row.compared.cpuMsPerEvent} ms` : '-';
}

/** CPU per event with the heap bound over without it, median over the kinds of event (full runs). */
export function heapBoundCpuRatio(s: SequentialResult): number | undefined {
  const ratios = s.rows.flatMap((r) => (r.compared ? [r.cpuMsPerEvent / r.compared.cpuMsPerEvent] : [])).sort((a, b) => a - b);
  return ratios.length === 0 ? undefined : Math.round((ratios[Math.floor(ratios.length / 2)] as number) * 100) / 100;
}

export function renderPlatformSections(p: PlatformMeasurements, cold: ColdStartResult): string[] {
  const s = p.sequential;
  const out: string[] = [];
  out.push(
    '',
    `== 7. Memory per instance as the platform runs it: one process per kind, served by @scaleway/serverless-functions, ${s.eventsPerKind} events one at a time (VmHWM), node ${s.execArgv.join(' ') || '(no flags)'}`,
  );
  out.push(
    table([
      [
        'function',
        'events',
        'peak',
        'node',
        '+serving',
        '+bundle',
        '+1st event',
        'heap end (new/old, live)',
        'CPU/event',
        'V8 default heap: peak / CPU',
      ],
      ...s.rows.map((row) => [
        row.fn,
        row.kind,
        `${row.peakMB} MB`,
        `${row.stages.bootMB}`,
        `${r1(row.stages.servingMB - row.stages.bootMB)}`,
        `${r1(row.stages.loadedMB - row.stages.servingMB)}`,
        `${r1(row.stages.firstEventMB - row.stages.loadedMB)}`,
        `${row.end.heapTotalMB} MB (${row.end.newSpaceMB}/${row.end.oldSpaceMB})`,
        `${row.cpuMsPerEvent} ms`,
        defaultHeap(row),
      ]),
    ]),
  );
  out.push(
    `floors in this run: node alone ${s.floors.nodeMB} MB; node + the HTTP serving answering {} ${s.eventsPerKind} times ${s.floors.servingMB} MB (no bundle can go below it)`,
  );
  const cpuRatio = heapBoundCpuRatio(s);
  if (cpuRatio !== undefined)
    out.push(`heap bound: CPU per event ${cpuRatio}x of V8's default heap (median over the kinds, each pair run back to back)`);

  out.push(
    '',
    "== 8. Cold start next to node's own start (deployed flags; median; require = bundle + V8 code cache; `node -e 0` spawn to exit, alternated)",
  );
  out.push(
    table([
      ['function', 'node -e 0', 'require', 'load/boot', 'first handle', 'code cache', 'bundle'],
      ...cold.rows.map((row) => [
        row.fn,
        `${row.bareNodeMs} ms`,
        `${row.requireMs} ms`,
        `${row.loadVsBootRatio}x`,
        `${row.firstHandleMs} ms`,
        row.codeCache,
        `${r1(row.bundleBytes / 1024)} KiB`,
      ]),
    ]),
  );

  out.push('', `== 9. The lbsync CLI (node bin/lbsync.mjs, bundle + code cache; median of ${p.cli.runs}, spawn to exit, alternated)`);
  out.push(
    `node -e 0 ${p.cli.nodeBootMs} ms; lbsync --help ${p.cli.helpMs} ms (${p.cli.helpVsBootRatio}x); lbsync plan (1 target, 3 reads, emulator) ${p.cli.planMs} ms (${p.cli.planVsBootRatio}x)`,
  );

  out.push(
    '',
    "== 10. Cost per 1M events (API calls from the emulator log, queue messages, GB-s at the deployed memory with the tier's CPU share; API latency excluded)",
  );
  const { kops, ...ours } = p.cost.per1M;
  out.push(
    table([
      ['events', 'API reads', 'API writes', 'queue msgs', 'GB-s', 'memory', 'CPU/event', 'billed/event'],
      ...Object.entries(ours).map(([key, c]) => [
        key,
        String(c.apiReads),
        String(c.apiWrites),
        String(c.queueMessages),
        String(c.gbSeconds),
        `${c.memoryMB} MB`,
        `${c.cpuMsPerEvent} ms`,
        `${c.billedMsPerEvent} ms`,
      ]),
      ...Object.entries(kops).map(([key, c]) => [
        `kOps ${key} (update cluster)`,
        String(c.apiReads),
        String(c.apiWrites),
        '0',
        '0 (operator machine)',
        '-',
        '-',
        '-',
      ]),
    ]),
  );
  out.push(
    `each ms of real API latency per event adds ${Object.entries(p.cost.gbSecondsPerLatencyMs)
      .map(([fn, v]) => `${fn} ${v}`)
      .join(', ')} GB-s per 1M events`,
  );
  return out;
}

/** PASS/MISS lines for the platform targets (with what bounds a miss). */
export function platformTargets(p: PlatformMeasurements, cold: ColdStartResult): [boolean, string, string?][] {
  const s = p.sequential;
  const worstFn = Object.entries(s.peakByFunction).sort((a, b) => b[1] - a[1])[0] ?? ['-', 0];
  const worstRow = [...s.rows].sort((a, b) => b.peakMB - a.peakMB)[0];
  const worstCold = [...cold.rows].sort((a, b) => b.loadVsBootRatio - a.loadVsBootRatio)[0];
  return [
    [
      worstFn[1] <= RSS_TARGET_MB,
      `peak RSS per instance, sequential, worst ${worstFn[0]} ${worstFn[1]} MB (target <= ${RSS_TARGET_MB} MB of the ${TIER_MB} MB tier; ${Object.entries(
        s.peakByFunction,
      )
        .map(([fn, mb]) => `${fn} ${mb}`)
        .join(', ')})`,
      worstRow
        ? `bound (${worstRow.fn} ${worstRow.kind}): node ${worstRow.stages.bootMB} MB + HTTP serving ${r1(worstRow.stages.servingMB - worstRow.stages.bootMB)} MB (floor ${s.floors.servingMB} MB) + bundle ${r1(worstRow.stages.loadedMB - worstRow.stages.servingMB)} MB + first event ${r1(worstRow.stages.firstEventMB - worstRow.stages.loadedMB)} MB, then V8 heap ${worstRow.end.heapTotalMB} MB at the end (live ${worstRow.end.heapUsedMB} MB)`
        : undefined,
    ],
    [
      !!worstCold && worstCold.loadVsBootRatio <= LOAD_VS_BOOT_TARGET,
      `bundle load vs node start, worst ${worstCold?.fn}: ${worstCold?.requireMs} ms vs ${worstCold?.bareNodeMs} ms = ${worstCold?.loadVsBootRatio}x (target <= ${LOAD_VS_BOOT_TARGET}; code cache ${worstCold?.codeCache})`,
      worstCold
        ? `bound: reading + deserializing the code cache, then the bundle's start-up code (zod schemas, pino, the SDKs' module tables); first handle ${worstCold.firstHandleMs} ms more`
        : undefined,
    ],
    [
      p.cli.helpVsBootRatio <= CLI_HELP_TARGET,
      `lbsync --help ${p.cli.helpMs} ms vs node ${p.cli.nodeBootMs} ms = ${p.cli.helpVsBootRatio}x (target <= ${CLI_HELP_TARGET}x)`,
    ],
    [
      p.cli.planVsBootRatio <= CLI_PLAN_TARGET,
      `lbsync plan ${p.cli.planMs} ms vs node ${p.cli.nodeBootMs} ms = ${p.cli.planVsBootRatio}x (target <= ${CLI_PLAN_TARGET}x)`,
    ],
  ];
}

export function platformJson(p: PlatformMeasurements, cold: ColdStartResult) {
  const worst = Math.max(...cold.rows.map((r) => r.loadVsBootRatio));
  return {
    rssSequential: {
      ...p.sequential.peakByFunction,
      eventsPerKind: p.sequential.eventsPerKind,
      nodeFlags: p.sequential.execArgv.join(' '),
      byKind: p.sequential.rows,
      floors: p.sequential.floors,
      heapBoundCpuRatio: heapBoundCpuRatio(p.sequential),
    },
    loadVsBootRatio: worst,
    cli: p.cli,
    cost: p.cost,
  };
}
