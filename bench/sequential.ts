/**
 * Each function as the platform runs it: one process (fresh per kind of event), serving the deployed bundle over
 * HTTP with @scaleway/serverless-functions, one request at a time, N events of each kind. Measures peak RSS
 * (VmHWM) and where it goes, CPU and wall time per event, Scaleway API calls (emulator call log) and queue
 * messages (queue depth) per event. Floors in the same run: bare node, and node + the HTTP serving alone.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startBenchWorld, type BenchWorld } from './support/bench-world';
import { DEPLOYED_NODE_FLAGS, distHandler, FUNCTION_NAMES, FUNCTION_NODE, type FunctionName, REPO } from './support/bundles';
import { FLEET, scenariosFor, type Scenario } from './support/scenarios';
import { round } from './support/stats';

export interface MemorySnapshot {
  peakMB: number;
  rssMB: number;
  rssAnonMB?: number;
  rssFileMB?: number;
  heapTotalMB: number;
  heapUsedMB: number;
  externalMB: number;
  arrayBuffersMB: number;
  codeSpaceMB: number;
  newSpaceMB: number;
  oldSpaceMB: number;
  mallocedMB: number;
  peakMallocedMB: number;
  /** Only with --expose-gc (leak checks): heap still used after a full collection. */
  liveHeapMB?: number;
}

export interface SequentialRow {
  fn: string;
  kind: string;
  key: string;
  fromQueue: boolean;
  events: number;
  /** VmHWM after the last event: the instance's peak. */
  peakMB: number;
  /** RSS at each stage: node started, + HTTP serving loaded, + bundle required, + first event answered. */
  stages: { bootMB: number; servingMB: number; loadedMB: number; firstEventMB: number };
  /** At the end: V8 heap committed/used, buffers outside the heap, native allocations. */
  end: MemorySnapshot;
  cpuMsPerEvent: number;
  wallMsPerEvent: number;
  apiReadsPerEvent: number;
  apiWritesPerEvent: number;
  /** Messages the function put on a queue, per event (re-enqueues, dead letters, fan-out). */
  queueSentPerEvent: number;
  /** The same events right after, under the comparison configuration (SequentialOptions.compare). */
  compared?: { peakMB: number; cpuMsPerEvent: number; heapTotalMB: number };
}

export interface SequentialResult {
  eventsPerKind: number;
  rows: SequentialRow[];
  /** Peak of each function: its worst kind of event. */
  peakByFunction: Record<string, number>;
  /** Same process, no bundle: node alone, and node + @scaleway/serverless-functions answering {} N times. */
  floors: { nodeMB: number; servingMB: number };
  execArgv: string[];
}

interface ReadyMessage {
  kind: 'ready';
  port: number;
  boot: MemorySnapshot;
  serving: MemorySnapshot;
  memory: MemorySnapshot;
}

export interface Instance {
  url: string;
  ready: ReadyMessage;
  memory(): Promise<MemorySnapshot & { cpuMs: number }>;
  stop(): Promise<void>;
}

const SERVE = join(REPO, 'bench/child/serve.cjs');

/** One platform instance: a fresh node serving `handler` (or nothing) on loopback. */
export function startInstance(handler: string, env: Record<string, string>, execArgv: string[]): Promise<Instance> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = fork(SERVE, [handler], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      execArgv,
      execPath: FUNCTION_NODE,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => (stderr += String(chunk)));
    const waiting: ((m: MemorySnapshot & { cpuMs: number }) => void)[] = [];
    child.on('message', (message: { kind: string; memory?: MemorySnapshot & { cpuMs: number } } & Partial<ReadyMessage>) => {
      if (message.kind === 'ready') {
        resolve({
          url: `http://127.0.0.1:${message.port}/`,
          ready: message as ReadyMessage,
          memory: () =>
            new Promise((r) => {
              waiting.push(r);
              child.send('memory');
            }),
          stop: () =>
            new Promise((r) => {
              child.once('exit', () => r());
              child.send('exit');
            }),
        });
      } else if (message.kind === 'memory' && message.memory) waiting.shift()?.(message.memory);
    });
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`instance ${handler} exited ${code}: ${stderr.trim().slice(-2000)}`));
    });
  });
}

async function queueDepth(world: BenchWorld): Promise<number> {
  let total = 0;
  for (const url of [world.reconcileQueueUrl, world.deadLetterQueueUrl]) {
    const a = await world.events?.attributes(url);
    total += Number(a?.ApproximateNumberOfMessages ?? 0) + Number(a?.ApproximateNumberOfMessagesNotVisible ?? 0);
  }
  return total;
}

async function purgeQueues(world: BenchWorld): Promise<void> {
  await world.events?.purge(world.reconcileQueueUrl);
  await world.events?.purge(world.deadLetterQueueUrl);
}

export async function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, body: await response.text() };
}

async function runScenario(
  world: BenchWorld,
  fleet: ReturnType<typeof FLEET>,
  scenario: Scenario,
  events: number,
  execArgv: string[],
  handler: string,
): Promise<SequentialRow> {
  await purgeQueues(world);
  events = Math.min(events, scenario.maxEvents ?? events);
  const env = world.env(fleet.targets.slice(0, scenario.targets), scenario.env);
  scenario.setup?.(world, fleet);
  const instance = await startInstance(handler, env, execArgv);
  try {
    world.emulator.resetCalls();
    const depthBefore = await queueDepth(world);
    let firstEventMB = 0;
    let cpuAfterFirst = 0;
    let wallMs = 0;
    for (let i = 0; i < events; i += 1) {
      const request = scenario.request(i, world, fleet);
      const t0 = performance.now();
      const answer = await post(instance.url, request.headers, request.body);
      if (i > 0) wallMs += performance.now() - t0;
      if (!scenario.expect(answer.status, answer.body)) {
        throw new Error(`${scenario.fn} ${scenario.kind}: event ${i} answered ${answer.status} ${answer.body.slice(0, 500)}`);
      }
      if (i === 0) {
        const first = await instance.memory();
        firstEventMB = first.rssMB;
        cpuAfterFirst = first.cpuMs;
      }
    }
    const end = await instance.memory();
    const calls = world.callCounts();
    const sent = (await queueDepth(world)) - depthBefore;
    // The first event pays the cold start; per-event figures are over the warm ones.
    const warm = Math.max(1, events - 1);
    return {
      fn: scenario.fn,
      kind: scenario.kind,
      key: scenario.key,
      fromQueue: scenario.fromQueue === true,
      events,
      peakMB: round(end.peakMB),
      stages: {
        bootMB: round(instance.ready.boot.rssMB),
        servingMB: round(instance.ready.serving.rssMB),
        loadedMB: round(instance.ready.memory.rssMB),
        firstEventMB: round(firstEventMB),
      },
      end: Object.fromEntries(Object.entries(end).map(([k, v]) => [k, round(v)])) as unknown as MemorySnapshot,
      cpuMsPerEvent: round((end.cpuMs - cpuAfterFirst) / warm, 2),
      wallMsPerEvent: round(wallMs / warm, 2),
      apiReadsPerEvent: round(calls.reads / events, 2),
      apiWritesPerEvent: round(calls.writes / events, 2),
      queueSentPerEvent: round(sent / events, 2),
    };
  } finally {
    await instance.stop();
  }
}

/** Node alone, and node + the HTTP serving answering `{}` N times: what no bundle can go below. */
async function measureFloors(events: number, execArgv: string[]): Promise<{ nodeMB: number; servingMB: number }> {
  const instance = await startInstance('none', {}, execArgv);
  try {
    for (let i = 0; i < events; i += 1) await post(instance.url, { 'content-type': 'application/json' }, '{}');
    const end = await instance.memory();
    return { nodeMB: round(instance.ready.boot.rssMB), servingMB: round(end.peakMB) };
  } finally {
    await instance.stop();
  }
}

export interface SequentialOptions {
  functions?: readonly FunctionName[];
  /** Node flags of the function processes (default: as deployed). */
  execArgv?: string[];
  /** Which build to serve (default: dist/, as deployed); another build to compare with. */
  handler?: (fn: FunctionName) => string;
  /** Each kind of event again right after, under another configuration (alternated, so load drift hits both). */
  compare?: { execArgv: string[]; handler: (fn: FunctionName) => string };
}

export async function measureSequential(eventsPerKind: number, options: SequentialOptions = {}): Promise<SequentialResult> {
  const execArgv = options.execArgv ?? DEPLOYED_NODE_FLAGS;
  const handler = options.handler ?? distHandler;
  const fleet = FLEET();
  const world = await startBenchWorld({ seed: fleet.seed });
  try {
    const rows: SequentialRow[] = [];
    for (const fn of options.functions ?? FUNCTION_NAMES) {
      for (const scenario of scenariosFor(fn)) {
        const row = await runScenario(world, fleet, scenario, eventsPerKind, execArgv, handler(fn));
        if (options.compare) {
          const other = await runScenario(world, fleet, scenario, eventsPerKind, options.compare.execArgv, options.compare.handler(fn));
          row.compared = { peakMB: other.peakMB, cpuMsPerEvent: other.cpuMsPerEvent, heapTotalMB: other.end.heapTotalMB };
        }
        rows.push(row);
      }
    }
    const peakByFunction: Record<string, number> = {};
    for (const row of rows) peakByFunction[row.fn] = Math.max(peakByFunction[row.fn] ?? 0, row.peakMB);
    return { eventsPerKind, rows, peakByFunction, floors: await measureFloors(eventsPerKind, execArgv), execArgv };
  } finally {
    await world.stop();
  }
}
