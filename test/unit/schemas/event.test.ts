import { describe, expect, it } from 'vitest';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import { completeEvent, decodeEvent, parseEvent } from '../../../shared/schemas/event';

function configError(fn: () => unknown): LbSyncError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(LbSyncError);
    return error as LbSyncError;
  }
  throw new Error('expected a validation error');
}

describe('events', () => {
  const event = { version: 1, id: 'evt-1', source: 'manual', target: 'prod', occurredAt: '2026-11-29T10:00:00Z' };
  it('accepts a minimal event and defaults attempt to 0', () => {
    expect(parseEvent(event)).toEqual({ ...event, attempt: 0 });
  });
  it('accepts explicit IPs, v4 and v6', () => {
    expect(parseEvent({ ...event, serverIps: ['51.15.1.2', '2001:db8::1'] }).serverIps).toHaveLength(2);
  });
  const bad: [string, unknown, string][] = [
    ['wrong version', { ...event, version: 2 }, 'event.version'],
    ['unknown source', { ...event, source: 'cron' }, 'event.source'],
    ['bad ip', { ...event, serverIps: ['51.15.1.300'] }, 'event.serverIps[0]'],
    ['bad date', { ...event, occurredAt: 'yesterday' }, 'event.occurredAt'],
    ['negative attempt', { ...event, attempt: -1 }, 'event.attempt'],
    ['extra key', { ...event, constructor: 'x' }, 'event'],
    ['missing target', { ...event, target: undefined }, 'event.target'],
  ];
  for (const [name, input, path] of bad) {
    it(`rejects ${name} at ${path}`, () => {
      const error = configError(() => parseEvent(input));
      expect(error.code).toBe('invalid_event');
      expect(error.fieldErrors?.map((e) => e.path)).toContain(path);
    });
  }
  it('decodes raw bodies and rejects non-JSON and oversize ones', () => {
    expect(decodeEvent(JSON.stringify(event)).id).toBe('evt-1');
    expect(configError(() => decodeEvent('{not json')).code).toBe('invalid_event');
    expect(configError(() => decodeEvent(' '.repeat(70_000))).message).toMatch(/larger than/);
  });
  it('completes id, version and occurredAt for manual injection', () => {
    const completed = parseEvent(completeEvent({ source: 'manual', target: 'prod' }, new Date('2026-11-29T10:00:00Z')));
    expect(completed.id).toMatch(/^evt-[0-9a-f-]{36}$/);
    expect(completed.occurredAt).toBe('2026-11-29T10:00:00.000Z');
  });
});
