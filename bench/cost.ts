/**
 * Cost per 1M events of each kind, as users pay it, from the sequential runs (same events, same process):
 * Scaleway API calls (emulator call log), queue messages (the triggering one + what the function sends) and
 * function GB-seconds at the memory serverless.yml deploys. kOps' call pattern (LBBackend.Find + RenderScw,
 * replayed in section 1) for comparison: it runs on the operator's machine, so no GB-s and no messages.
 *
 * Billed time: Scaleway pairs each memory tier with a CPU share (128 MB: 70 mVCPU, 256 MB: 140 mVCPU), so
 * the CPU an event uses here on a full core takes 1/share as long there. Per event:
 *   billed ms = CPU ms / share + (local wall ms - CPU ms)
 * The local wall time has the emulator and the queue answering in ~0 ms: real API latency comes on top,
 * 1,000,000 x memory GB x latency s (125 GB-s per 1M events for each ms of latency at 128 MB).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ApiCallsResult } from './api-calls';
import { REPO } from './support/bundles';
import type { SequentialRow } from './sequential';
import { round } from './support/stats';

/** Scaleway's function tiers: memory (MB) -> CPU (mVCPU). */
const CPU_MVCPU_BY_MEMORY_MB: Record<number, number> = { 128: 70, 256: 140, 512: 280, 1024: 560, 2048: 1120, 3072: 1680, 4096: 2240 };
const MILLION = 1_000_000;

export interface CostPer1M {
  apiReads: number;
  apiWrites: number;
  queueMessages: number;
  gbSeconds: number;
  memoryMB: number;
  cpuMsPerEvent: number;
  billedMsPerEvent: number;
}

export interface CostResult {
  per1M: Record<string, CostPer1M> & { kops: Record<string, { apiReads: number; apiWrites: number; queueMessages: 0; gbSeconds: 0 }> };
  /** How one ms of real API/queue latency per event adds up, per 1M events, at each function's memory. */
  gbSecondsPerLatencyMs: Record<string, number>;
}

/** memoryLimit of each function in serverless.yml (MB). */
export function deployedMemoryMB(): Record<string, number> {
  const config = parse(readFileSync(join(REPO, 'serverless.yml'), 'utf8')) as { functions: Record<string, { memoryLimit?: number }> };
  return Object.fromEntries(Object.entries(config.functions).map(([name, f]) => [name, Number(f.memoryLimit ?? 128)]));
}

export function computeCost(rows: SequentialRow[], apiCalls: ApiCallsResult): CostResult {
  const memory = deployedMemoryMB();
  const per1M: Record<string, CostPer1M> = {};
  const gbSecondsPerLatencyMs: Record<string, number> = {};
  for (const row of rows) {
    const memoryMB = memory[row.fn] ?? 128;
    const share = (CPU_MVCPU_BY_MEMORY_MB[memoryMB] ?? memoryMB * (70 / 128)) / 1000;
    const billedMs = row.cpuMsPerEvent / share + Math.max(0, row.wallMsPerEvent - row.cpuMsPerEvent);
    per1M[row.key] = {
      apiReads: Math.round(row.apiReadsPerEvent * MILLION),
      apiWrites: Math.round(row.apiWritesPerEvent * MILLION),
      queueMessages: Math.round(((row.fromQueue ? 1 : 0) + row.queueSentPerEvent) * MILLION),
      gbSeconds: Math.round((memoryMB / 1024) * (billedMs / 1000) * MILLION),
      memoryMB,
      cpuMsPerEvent: row.cpuMsPerEvent,
      billedMsPerEvent: round(billedMs, 1),
    };
    gbSecondsPerLatencyMs[row.fn] = round((memoryMB / 1024) * 0.001 * MILLION, 1);
  }
  const kops = (scenario: string) => {
    const s = apiCalls.scenarios.find((c) => c.scenario === scenario);
    return {
      apiReads: (s?.kops.reads ?? 0) * MILLION,
      apiWrites: (s?.kops.writes ?? 0) * MILLION,
      queueMessages: 0 as const,
      gbSeconds: 0 as const,
    };
  };
  return { per1M: Object.assign(per1M, { kops: { noop: kops('noop'), replace: kops('replace') } }), gbSecondsPerLatencyMs };
}
