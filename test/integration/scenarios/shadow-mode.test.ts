// LBSYNC_MODE=shadow against the writing deployment, scenario by scenario, on the real path (local queue, reconcile
// handler, real SDK -> emulator). Each scenario runs twice on the same world: written, then in shadow. In shadow the
// emulator's call log holds no write at all; the answer is dry_run, its `planned` the writes the writing run made
// first; its final line carries them as shadow_writes; and it dead-letters nothing the writing run did not.
import { beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorSeed } from '../../../emulator';
import type { ReconcileAnswerBody } from '../../../shared/handlers/reconcile-message';
import { lineProblems } from '../../../shared/platform/log-schema';
import { sendEvent } from '../../support/deliveries';
import { useScenarioStack } from '../../support/scenario-stack';
import {
  CONTROL_PLANE_ROLE_TAG,
  DEMO_CLUSTER_TAG,
  DEMO_CONTROL_PLANE_IPS,
  DEMO_CP0_ID,
  DEMO_LB_ID,
  demoBackend,
  demoSeed,
  demoSeedWith,
  demoTarget,
} from '../../support/world';

const stack = useScenarioStack({ instancePendingMs: 20 });
const HOUR = 3_600_000;
const NEW_0 = '51.15.100.31';

interface Scenario {
  name: string;
  seed: () => EmulatorSeed;
  /** The world's change before the event (a replaced server, a busy LB, a fault). */
  before?: () => void;
  event?: Record<string, unknown>;
  /** Between two deliveries of the writing run: what the world does meanwhile (a new member passes its check). */
  between?: () => void;
}

const replaceCp0 = () =>
  stack.emulator.replaceServer(DEMO_CP0_ID, {
    name: 'cp-0b',
    zone: 'fr-par-1',
    publicIps: [NEW_0],
    tags: [DEMO_CLUSTER_TAG, CONTROL_PLANE_ROLE_TAG],
  });

const SCENARIOS: Scenario[] = [
  { name: 'the backend is missing: CreateBackend', seed: demoSeed },
  { name: 'in sync: nothing to write', seed: () => demoSeedWith({ backends: [demoBackend()] }) },
  {
    name: 'a control plane replaced: make-before-break, the old member held until the new one passes',
    seed: () => demoSeedWith({ backends: [demoBackend()] }),
    before: () => {
      stack.emulator.setBehaviours({ healthPassAfterMs: HOUR, healthFailAfterMs: HOUR });
      replaceCp0();
    },
    between: () => stack.emulator.forceHealth(NEW_0, 'passed'),
  },
  {
    name: 'the pool write answers 409 once: the writing run retries',
    seed: () => demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS.slice(0, 2))] }),
    before: () => stack.emulator.addFault({ operation: 'SetBackendServers', status: 409, count: 1 }),
  },
  {
    name: 'the LB is locked: lb_not_ready, dead-lettered by both',
    seed: () => demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS.slice(0, 2))] }),
    before: () => stack.emulator.setLbStatus(DEMO_LB_ID, 'locked'),
  },
  {
    name: 'the event asserts an address discovery never returns: untrusted_server_ips for both',
    seed: () => demoSeedWith({ backends: [demoBackend()] }),
    event: { serverIps: ['51.15.9.9'] },
  },
];

let lines: Record<string, unknown>[];
beforeEach(() => {
  lines = [];
});

async function play(scenario: Scenario, mode: 'write' | 'shadow') {
  stack.emulator.setBehaviours({ healthPassAfterMs: 0, healthFailAfterMs: 0 });
  stack.emulator.clearForcedHealth();
  stack.emulator.clearFaults();
  stack.emulator.loadSeed(scenario.seed());
  scenario.before?.();
  stack.emulator.resetCalls();
  const captured: Record<string, unknown>[] = [];
  const run = await sendEvent(stack.events, stack.emulator, demoTarget(), mode === 'shadow' ? { LBSYNC_MODE: 'shadow' } : {}, {
    event: scenario.event ?? {},
    onLogLine: (line) => {
      expect(lineProblems(line)).toEqual([]);
      captured.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  const final = await run.untilFinal(40, () => (mode === 'write' ? scenario.between?.() : undefined));
  const calls = stack.emulator.calls();
  lines.push(...captured);
  return {
    final,
    answers: run.answers,
    writes: calls.filter((c) => c.method !== 'GET').map((c) => c.operation),
    reads: calls.filter((c) => c.method === 'GET').length,
    deadLetters: (await run.deadLetters()).map((d) => `${d.reason}:${d.error.code}`),
    finalLine: captured.filter((l) => l.log_type === 'reconcile_answer').at(-1),
  };
}

/** The writes an answer names, as the plan describes them (the writing run's `actions` are their kinds). */
const kinds = (answer: ReconcileAnswerBody | undefined) => (answer?.planned ?? []).map((line) => line.split(' ')[0]);

describe('LBSYNC_MODE=shadow, against the writing deployment on the same world', () => {
  for (const scenario of SCENARIOS) {
    it(scenario.name, async () => {
      const written = await play(scenario, 'write');
      const shadow = await play(scenario, 'shadow');

      expect(shadow.writes, 'a write reached the emulator in shadow mode').toEqual([]);
      expect(shadow.reads).toBeGreaterThan(0);
      // Nothing dead-lettered that the writing deployment did not dead-letter too.
      for (const letter of shadow.deadLetters) expect(written.deadLetters).toContain(letter);

      if (written.deadLetters.length === 0) {
        expect(shadow.final).toMatchObject({ outcome: 'dry_run', mode: 'shadow' });
        // What the shadow planned is what the writing run's first write did (make-before-break: the addition; the
        // removal waits for the new member there, and a shadow deployment adds none).
        const firstWrite = written.answers.find((a) => (a.actions ?? []).length > 0)?.actions ?? [];
        expect(kinds(shadow.final)).toEqual(firstWrite);
        expect(shadow.finalLine).toMatchObject({ outcome: 'dry_run', shadow_writes: firstWrite.length });
      } else {
        expect(shadow.deadLetters).toEqual(written.deadLetters);
        expect(shadow.final?.outcome).toBe('dead_lettered');
      }
    });
  }

  it('an event that is itself a dry run is no shadow write: shadow_writes is absent, the answer still says the mode', async () => {
    const shadow = await play({ name: 'dry', seed: demoSeed, event: { dryRun: true } }, 'shadow');
    expect(shadow.writes).toEqual([]);
    expect(shadow.final).toMatchObject({ outcome: 'dry_run', mode: 'shadow' });
    expect(shadow.finalLine).not.toHaveProperty('shadow_writes');
  });
});
