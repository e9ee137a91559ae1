// What `lbsync dlq redrive` sends back: the event as a fresh one (attempt 0), without the fields the system set
// for its retries, so a redriven event gets a whole retry horizon of its own.
import { describe, expect, it } from 'vitest';
import { classify, markDuplicates } from '../../../cli/dead-letters';
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

describe('classify: the recordId, computed from what a dead letter keeps', () => {
  const event = { version: 1, id: 'evt-same', source: 'manual', target: 'prod.k8s.local', occurredAt: '2026-11-30T10:00:00Z', attempt: 3 };
  const message = (id: string, body: unknown) => ({ messageId: id, receiptHandle: `r-${id}`, receiveCount: 1, body: JSON.stringify(body) });
  const record = (kept: typeof event) =>
    deadLetterRecord({ reason: 'permanent_error', error: new LbSyncError('permissions_denied', 'denied'), event: kept, now: new Date() });

  it("a record the function wrote and the raw event the queue moved of one delivery share it, whatever the keys' order", () => {
    const reordered = Object.fromEntries(Object.entries(event).reverse());
    expect(classify(message('m-1', record(event))).recordId).toBe(classify(message('m-2', reordered)).recordId);
  });

  it('one event id for two targets: two recordIds, even when the records say otherwise (as older versions wrote them)', () => {
    const prod = classify(message('m-1', { ...record(event), recordId: 'dl-same' }));
    const staging = classify(message('m-2', { ...record({ ...event, target: 'staging.k8s.local' }), recordId: 'dl-same' }));
    expect(prod.recordId).not.toBe(staging.recordId);
    expect(markDuplicates([prod, staging]).filter((e) => e.duplicateOf)).toEqual([]);
  });
});
