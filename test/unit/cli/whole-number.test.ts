// A flag's whole number is written in decimal digits only (as every LBSYNC_* integer variable): 0x10, 1e3 or -1 are
// usage errors naming the flag, never read as some other number.
import { describe, expect, it } from 'vitest';
import { wholeNumber } from '../../../cli/command';
import { defaultFunctionTimeoutSeconds } from '../../../cli/environment';

describe('wholeNumber', () => {
  it.each(['0x10', '1e3', '-1', '+5', '1.5', '', ' ', '12s', 'Infinity'])('%j is a usage error naming the flag', (text) => {
    expect(() => wholeNumber('--limit', text, { min: 1 })).toThrow(
      expect.objectContaining({ code: 'usage', message: `--limit must be a whole number of at least 1, in digits, got "${text}"` }),
    );
  });

  it('digits within the range are read as written; outside it, refused with the range', () => {
    expect(wholeNumber('--spread', '0900', { min: 0, max: 900, unit: 'seconds' })).toBe(900);
    expect(() => wholeNumber('--spread', '901', { min: 0, max: 900, unit: 'seconds' })).toThrow(
      '--spread must be a whole number of seconds from 0 to 900, in digits, got "901"',
    );
  });

  it("--function-timeout's default takes LBSYNC_FUNCTION_TIMEOUT_MS only in digits, as the function reads it", () => {
    expect(defaultFunctionTimeoutSeconds({ LBSYNC_FUNCTION_TIMEOUT_MS: '45000' })).toBe('45');
    expect(defaultFunctionTimeoutSeconds({ LBSYNC_FUNCTION_TIMEOUT_MS: '0xAFC8' })).toBe('60');
  });
});
