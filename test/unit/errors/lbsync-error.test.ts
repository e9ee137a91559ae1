import { describe, expect, it } from 'vitest';
import { problemCount } from '../../../shared/errors/field-errors';
import {
  asLbSyncError,
  ERROR_CATALOG,
  LbSyncError,
  serializeError,
  validationError,
  WARNING_CATALOG,
} from '../../../shared/errors/lbsync-error';

describe('the error catalog', () => {
  it('every code has a one-line hint', () => {
    for (const [code, entry] of Object.entries({ ...ERROR_CATALOG, ...WARNING_CATALOG })) {
      expect(entry.hint, code).toMatch(/^[^\n]{20,}$/);
    }
  });

  it('no code is both an error and a warning', () => {
    expect(Object.keys(WARNING_CATALOG).filter((code) => code in ERROR_CATALOG)).toEqual([]);
  });
});

describe('LbSyncError', () => {
  it('takes its class and hint from the catalog; "try later" is data (transient, retryAfterMs)', () => {
    const error = new LbSyncError('rate_limited', 'too many requests', {
      retryAfterMs: 2000,
      status: 429,
      lb: { id: 'lb-1', name: 'api.x' },
    });
    expect(error).toMatchObject({
      name: 'LbSyncError',
      code: 'rate_limited',
      errorClass: 'transient',
      transient: true,
      hint: ERROR_CATALOG.rate_limited.hint,
      retryAfterMs: 2000,
      status: 429,
    });
    expect(new LbSyncError('lb_not_found', 'x').transient).toBe(false);
  });
  it('serializes to what dead letters and answers carry; an empty LB identity is left out', () => {
    const error = new LbSyncError('permissions_denied', 'denied', { status: 403, lb: {} });
    expect(serializeError(error)).toEqual({
      code: 'permissions_denied',
      errorClass: 'permanent',
      message: 'denied',
      hint: ERROR_CATALOG.permissions_denied.hint,
      status: 403,
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual(serializeError(error));
  });
  it('a validation error lists each field with its fix', () => {
    const error = validationError('invalid_config', 'environment', [
      { path: 'LOG_LEVEL', message: 'must be one of ...', fix: 'set LOG_LEVEL to info' },
    ]);
    expect(error.code).toBe('invalid_config');
    expect(error.message.split('\n')[0]).toBe('environment is invalid:');
    expect(error.message).toContain('LOG_LEVEL');
    expect(error.fieldErrors).toHaveLength(1);
  });
});

describe('asLbSyncError', () => {
  it('keeps ours as they are; anything else is an unexpected failure, its cause kept', () => {
    const ours = new LbSyncError('lb_not_ready', 'load-balancer is locked');
    expect(asLbSyncError(ours)).toBe(ours);
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    expect(asLbSyncError(bug)).toMatchObject({
      code: 'unknown_api_error',
      message: "unexpected failure: Cannot read properties of undefined (reading 'id')",
      cause: bug,
    });
    expect(asLbSyncError('a string').message).toBe('unexpected failure: a string');
  });
});

describe('validationError: the first problems, and how many more', () => {
  const problem = (i: number) => ({ path: `event.serverIps[${i}]`, message: 'is not an address', fix: 'give an IPv4 address' });

  it('lists 10 and counts the rest; a list made so, listed again with more, is counted, not listed twice', () => {
    const first = validationError(
      'invalid_event',
      'event',
      Array.from({ length: 50 }, (_, i) => problem(i)),
    );
    expect(first.fieldErrors).toHaveLength(11);
    expect(problemCount(first.fieldErrors ?? [])).toBe(50);
    // The inject function adds its own policy problems in front of the event's.
    const policy = [{ path: 'event.attempt', message: 'is set by the system', fix: 'remove it' }];
    const again = validationError('invalid_event', 'event', [...policy, ...(first.fieldErrors ?? [])]);
    expect(again.fieldErrors?.map((e) => e.path)).toEqual([
      'event.attempt',
      ...Array.from({ length: 9 }, (_, i) => `event.serverIps[${i}]`),
      'event',
    ]);
    expect(again.fieldErrors?.at(-1)?.message).toBe('and 41 more problems (51 in all)');
    expect(problemCount(again.fieldErrors ?? [])).toBe(51);
  });
});
