// `npm start` as a user runs it: the npm script execs the stack, so SIGTERM or SIGINT sent to npm's own pid stops
// it cleanly ("stopped", exit 0, ports released); --port-base fixes the ports; a bad --targets file, a bad flag or
// a busy port are refused before anything starts. Each run waits for the stack's "ready" line, never a timer.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HINTS } from '../../cli/hints';
import { checkPortsFree, portsFrom } from '../../local/start-options';
import { lineProblems } from '../../shared/platform/log-schema';
import { ROOT } from './support';

interface Started {
  pid: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm start -- <args>` in the clone; the bundles are fresh (vitest's global setup), so npm start builds nothing. */
function npmStart(args: string[]): Started {
  const child = spawn('npm', ['start', '--silent', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a failed test can clean up everything it started (the signals under test go to npm's pid only).
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { pid: child.pid as number, output: () => output, exited };
}

/** After a test: nothing of it left running, whatever happened. */
function killGroup(started: Started): void {
  try {
    process.kill(-started.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Resolves with the line once the output has it; stays pending if the process ends without it. */
function whenLine(started: Started, pattern: RegExp): Promise<string> {
  let ended = false;
  void started.exited.then(() => (ended = true));
  return new Promise<string>((resolve) => {
    const check = () => {
      const match = pattern.exec(started.output());
      if (match) resolve(match[0]);
      else if (!ended) setTimeout(check, 25);
    };
    check();
  });
}

/** Resolves once the output has the line, or fails when the process ends without it. */
function lineFrom(started: Started, pattern: RegExp): Promise<string> {
  const ended = started.exited.then((exit) => {
    throw new Error(`npm start ended (${JSON.stringify(exit)}) before printing ${pattern}:\n${started.output()}`);
  });
  return Promise.race([whenLine(started, pattern), ended]);
}

/** For a run that must be refused: its exit, or (a failure) the "ready" line of a stack that started. */
function refusedOrReady(started: Started): Promise<unknown> {
  return Promise.race([started.exited, whenLine(started, /^ready: .*$/m)]).finally(() => killGroup(started));
}

/** Six consecutive free ports, as --port-base needs. */
async function freeBase(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    try {
      await checkPortsFree(portsFrom(base));
      return base;
    } catch {
      // taken: try another range
    }
  }
  throw new Error('no six consecutive free ports');
}

async function stopsOn(signal: 'SIGTERM' | 'SIGINT') {
  const base = await freeBase();
  const started = npmStart(['--port-base', String(base)]);
  try {
    await stopsCleanly(started, base, signal);
  } finally {
    killGroup(started);
  }
}

async function stopsCleanly(started: Started, base: number, signal: 'SIGTERM' | 'SIGINT') {
  await lineFrom(started, /^ready: .*$/m);
  // The fixed ports, printed and really served.
  const output = started.output();
  expect(output).toContain(`Scaleway API emulator  http://127.0.0.1:${base} `);
  expect(output).toContain(`SQS-compatible queue   http://127.0.0.1:${base + 1}`);
  // The functions on N+2.. in the order of functions/ (local/start-options.ts portsFrom).
  const ports = portsFrom(base).functions;
  expect(Object.values(ports)).toEqual([base + 2, base + 3, base + 4, base + 5]);
  expect(output).toMatch(
    new RegExp(
      `reconcile http://127\\.0\\.0\\.1:${ports.reconcile}\\n\\s+inject +http://127\\.0\\.0\\.1:${ports.inject}\\n\\s+sweep +http://127\\.0\\.0\\.1:${ports.sweep}\\n\\s+watch +http://127\\.0\\.0\\.1:${ports.watch}`,
    ),
  );
  expect(output).toContain('alias lbsync="node $PWD/bin/lbsync.mjs"');
  expect(output).toContain('lbsync status --watch');
  expect((await fetch(`http://127.0.0.1:${base}/_emulator/state`)).status).toBe(200);
  expect((await fetch(`http://127.0.0.1:${ports.inject}`, { method: 'POST', body: '{}' })).status).toBe(401); // inject wants its token
  process.kill(started.pid, signal); // npm's own pid, not the stack's
  const exit = await started.exited;
  expect(exit).toEqual({ code: 0, signal: null });
  expect(started.output()).toMatch(new RegExp(`^stopped \\(${signal}\\)$`, 'm'));
  await checkPortsFree(portsFrom(base)); // everything was closed
}

describe('npm start', () => {
  it('SIGTERM sent to npm stops the stack: "stopped", exit 0, the fixed ports released', () => stopsOn('SIGTERM'), 90_000);

  it('SIGINT sent to npm does the same', () => stopsOn('SIGINT'), 90_000);

  it('--once --log-format json: every line the functions print fits the log schema Cockpit reads (shared/platform/log-schema.ts)', async () => {
    const started = npmStart(['--once', '--log-format', 'json', '--log-level', 'info']);
    try {
      expect(await started.exited).toEqual({ code: 0, signal: null });
    } finally {
      killGroup(started);
    }
    expect(started.output()).toMatch(/^converged: 7\/7 steps passed$/m);
    const printed = started
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(printed.flatMap(lineProblems)).toEqual([]);
    const lines = printed.map((line) => JSON.parse(line) as Record<string, unknown>);
    const keys = new Set(lines.flatMap((line) => [...Object.keys(line), ...Object.keys((line.error as object | undefined) ?? {})]));
    expect([...keys].filter((key) => !/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(key))).toEqual([]);
    // The story's lines of each kind: the create, the retries with backoff, the watcher's find, the dead letter.
    const typed = (type: string) => lines.filter((line) => line.log_type === type);
    const outcomes = new Set(typed('reconcile_answer').map((line) => line.outcome));
    for (const outcome of ['applied', 'retry_scheduled', 'dead_lettered']) expect(outcomes).toContain(outcome);
    // Three control planes, but while kOps drains one it deregistered (the story's rolling update) the pool holds two.
    const applied = typed('reconcile_answer').filter((l) => l.outcome === 'applied');
    for (const line of applied) {
      expect(line).toMatchObject({ service: 'lbsync-reconcile', convergence_ms: expect.any(Number) });
      expect([2, 3]).toContain(line.pool_size);
    }
    expect(applied.at(-1)?.pool_size).toBe(3);
    expect(typed('reconcile_answer').filter((l) => l.outcome === 'retry_scheduled')).toContainEqual(
      expect.objectContaining({ code: 'lb_transient_state' }),
    );
    expect(typed('sweep_heartbeat')).toContainEqual(
      expect.objectContaining({ service: 'lbsync-sweep', status: 'ok', targets_enqueued: 1 }),
    );
    expect(typed('watch_heartbeat')).toContainEqual(
      expect.objectContaining({ service: 'lbsync-watch', status: 'ok', targets_enqueued: 1 }),
    );
  }, 240_000);

  it('refuses a bad --targets file with its field errors, before anything starts (exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbsync-start-'));
    const file = join(dir, 'targets.json');
    writeFileSync(
      file,
      JSON.stringify({
        targets: [{ kop: { cluster: 'a.k8s.local', zone: 'fr-par-1' } }, { kops: { cluster: 'b.k8s.local', zone: 'fr-pra-1' } }],
      }),
    );
    const started = npmStart(['--targets', file]);
    expect(await refusedOrReady(started)).toEqual({ code: 1, signal: null });
    const output = started.output();
    expect(output).toContain(`error [invalid_config] ${file}.targets is invalid:`);
    expect(output).toContain(`${file}.targets[0]: Unrecognized key: "kop" (did you mean "kops"?)`);
    expect(output).toContain(`${file}.targets[1].kops.zone: must be a zone where Scaleway offers Load Balancers (got "fr-pra-1")`);
    expect(output).toContain('fix: did you mean "fr-par-1"?');
    expect(output).toContain(`hint: ${HINTS.targets}`);
    expect(output).not.toContain('local stack'); // nothing started
  }, 60_000);

  it('bad flags exit 64; a busy fixed port exits 1 naming it; neither starts anything', async () => {
    const blocker = createServer();
    const base = await freeBase();
    const injectPort = portsFrom(base).functions.inject;
    await new Promise<void>((resolve) => blocker.listen(injectPort, resolve));
    try {
      const runs = [
        npmStart(['--port-base', '0']),
        npmStart(['--bogus']),
        npmStart(['--port-base', String(base)]),
        npmStart(['--prot-base', '8090']),
      ];
      const [badBase, unknown, busy, typo] = runs as [Started, Started, Started, Started];
      await Promise.all(runs.map(refusedOrReady));
      expect(await badBase.exited).toEqual({ code: 64, signal: null });
      expect(badBase.output()).toContain('--port-base must be a whole number from 1 to 65530');
      expect(await unknown.exited).toEqual({ code: 64, signal: null });
      expect(unknown.output()).toContain("error: unknown option '--bogus'\n");
      expect(await typo.exited).toEqual({ code: 64, signal: null });
      expect(typo.output()).toContain("error: unknown option '--prot-base' (did you mean --port-base?)");
      expect(await busy.exited).toEqual({ code: 1, signal: null });
      expect(busy.output()).toContain(`port ${injectPort} (the inject function) in use: pick another --port-base`);
      for (const run of [badBase, unknown, busy, typo]) expect(run.output()).not.toContain('local stack');
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  }, 60_000);
});
