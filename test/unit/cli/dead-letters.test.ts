// What `lbsync dlq redrive` sends back: the event as a fresh one (attempt 0), without the fields the system set
// for its retries, so a redriven event gets a whole retry horizon of its own.
import { describe, expect, it } from 'vitest';
import { classify } from '../../../cli/dead-letters';
import { deadLetterRecord } from '../../../shared/handlers/dead-letter';
import { LbSyncError } from '../../../shared/errors/lbsync-error';

describe('classify: the event a redrive sends', () => {
  const event = {
    version: 1,
    id: 'evt-busy',
    source: 'manual',
    target: 'prod.k8s.local',
    occurredAt: '2026-11-30T10:00:00Z',
    attempt: 21,
    firstAttemptAt: '2026-11-30T10:00:01Z',
    notBefore: '2026-11-30T10:30:01Z',
  };
  const message = (body: unknown) => ({ messageId: 'm-1', receiptHandle: 'r-1', receiveCount: 1, body: JSON.stringify(body) });

  it('a retries_exhausted record: attempt 0, and neither notBefore nor firstAttemptAt', () => {
    const record = deadLetterRecord({
      reason: 'retries_exhausted',
      error: new LbSyncError('lb_transient_state', 'load-balancer is migrating'),
      event,
      now: new Date('2026-11-30T10:30:02Z'),
    });
    const entry = classify(message(record));
    expect(entry.redriveEvent).toEqual({
      version: 1,
      id: 'evt-busy',
      source: 'manual',
      target: 'prod.k8s.local',
      occurredAt: '2026-11-30T10:00:00Z',
      attempt: 0,
    });
  });

  it('a message the queue moved itself: the same', () => {
    expect(classify(message(event)).redriveEvent).not.toHaveProperty('firstAttemptAt');
  });
});
