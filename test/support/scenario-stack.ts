/**
 * The stack a scenario file plays its events on: the emulator and the local SQS-protocol queue, started once before
 * the file's tests and stopped after them (the tests reset the emulator's world themselves).
 */
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../emulator';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import { createEventQueue, type EventQueue } from '../../shared/adapters/queue';

export interface ScenarioStack {
  emulator: EmulatorHandle;
  local: LocalQueue;
  /** The queue client the reconcile handler and the tests share. */
  events: EventQueue;
}

/** Registers the file's beforeAll/afterAll; the fields are set once beforeAll has run. */
export function useScenarioStack(options: { instancePendingMs: number } = { instancePendingMs: 20 }): ScenarioStack {
  const stack = {} as ScenarioStack;
  beforeAll(async () => {
    stack.emulator = await startEmulator(options);
    stack.local = await startLocalQueue();
    stack.events = createEventQueue(stack.local.settings);
  });
  afterAll(async () => {
    await stack.emulator?.stop();
    await stack.local?.stop();
  });
  return stack;
}
