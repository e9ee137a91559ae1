// The local stack's queue (local/queue-server.ts): Scaleway Queues' SQS API on loopback (fauxqs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalQueue, type LocalQueue } from '../../../local/queue-server';

let local: LocalQueue;

beforeAll(async () => {
  local = await startLocalQueue({ port: 0 });
});

afterAll(async () => {
  await local?.stop();
});

describe('local queue server', () => {
  it('listens on loopback only', () => {
    expect(new URL(local.endpoint).hostname).toBe('127.0.0.1');
    expect(local.region).toBe('fr-par');
  });
});
