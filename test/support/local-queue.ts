/** The local SQS-protocol queue (fauxqs) for one test file: started before its tests, stopped after them. */
import { afterAll, beforeAll } from 'vitest';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import { createEventQueue, type EventQueue } from '../../shared/adapters/queue';

export interface LocalQueueFixture {
  local: LocalQueue;
  /** The queue adapter, pointed at it. */
  queue: EventQueue;
  /** A queue name no other test of this run uses: `<label>-<pid>-<n>`. */
  uniqueName(label: string): string;
}

/** Registers the file's beforeAll/afterAll; `local` and `queue` are set once beforeAll has run. */
export function useLocalQueue(): LocalQueueFixture {
  let counter = 0;
  const fixture = { uniqueName: (label: string) => `${label}-${process.pid}-${++counter}` } as LocalQueueFixture;
  beforeAll(async () => {
    fixture.local = await startLocalQueue({ port: 0 });
    fixture.queue = createEventQueue(fixture.local.settings);
  });
  afterAll(async () => {
    await fixture.local?.stop();
  });
  return fixture;
}
