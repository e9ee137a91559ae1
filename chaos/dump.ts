/**
 * What a chaos run leaves behind to explain itself: the emulator's call log, pool history and final state, every
 * recorded answer, the dead letters and the violations, in one JSON file. Written on its own whenever a run has a
 * violation or fails outright (a rare failure that left no dump cannot be studied), and on request (CHAOS_DUMP=path).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalStack } from '../local/stack';
import type { DeadLetterRecord } from '../shared/handlers/dead-letter';
import type { RecordedAnswer } from './answer-recorder';
import type { Fleet } from './fleet';
import type { Step } from './schedule';

export interface DumpInput {
  seed: number;
  stack: LocalStack;
  answers: readonly RecordedAnswer[];
  fleet: Fleet;
  steps: readonly Step[];
  deadLetters?: readonly DeadLetterRecord[];
  violations: readonly string[];
  /** What stopped the run, when it did not finish. */
  failure?: string;
}

/** Where the dump goes: CHAOS_DUMP when set, else a fresh file under the system's temporary folder. */
export function dumpPath(seed: number, env: NodeJS.ProcessEnv = process.env, now = Date.now()): string {
  const asked = env.CHAOS_DUMP?.trim();
  if (asked) return asked;
  const dir = join(tmpdir(), 'lbsync-chaos');
  mkdirSync(dir, { recursive: true });
  return join(dir, `chaos-${seed}-${now}-${process.pid}.json`);
}

/** Writes the dump and answers its path. */
export function writeDump(input: DumpInput, path = dumpPath(input.seed)): string {
  const { stack, fleet } = input;
  writeFileSync(
    path,
    JSON.stringify(
      {
        seed: input.seed,
        violations: input.violations,
        ...(input.failure && { failure: input.failure }),
        lbs: fleet.clusters.map((c) => ({ name: c.name, lbId: c.lbId, controlPlaneSince: Object.fromEntries(c.controlPlaneSince) })),
        steps: input.steps,
        calls: stack.emulator.calls(),
        history: stack.emulator.history(),
        state: stack.emulator.dumpState(),
        answers: input.answers,
        deadLetters: input.deadLetters ?? [],
      },
      null,
      1,
    ),
  );
  return path;
}
