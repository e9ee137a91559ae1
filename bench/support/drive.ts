/** Drives a function bundle in a fresh child process (bench/child/drive.cjs). */
import { join } from 'node:path';
import type { PlatformEvent } from '../../shared/platform/request-response';
import { REPO } from './bundles';
import { runChild } from './child';

export interface DriveReport {
  wallMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  maxRssMB: number;
  vmHwmMB?: number;
  memory?: Record<string, number>;
  outcomes: Record<string, number>;
  lastBody?: string;
}

export interface DriveOptions {
  handler: string;
  env: Record<string, string>;
  event: PlatformEvent;
  count: number;
  concurrency: number;
  warmup?: { event?: PlatformEvent; count: number };
  execArgv?: string[];
}

export async function drive(options: DriveOptions): Promise<DriveReport> {
  const env: Record<string, string> = { ...options.env, BENCH_EVENT: JSON.stringify(options.event) };
  if (options.warmup) {
    env.BENCH_WARMUP_COUNT = String(options.warmup.count);
    if (options.warmup.event) env.BENCH_WARMUP_EVENT = JSON.stringify(options.warmup.event);
  }
  const { result } = await runChild<DriveReport>(
    join(REPO, 'bench/child/drive.cjs'),
    [options.handler, String(options.count), String(options.concurrency)],
    env,
    {
      ...(options.execArgv && { execArgv: options.execArgv }),
      timeoutMs: 180_000,
    },
  );
  return result;
}
