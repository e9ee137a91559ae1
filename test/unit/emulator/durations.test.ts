import { describe, expect, it } from 'vitest';
import { formatProtoDuration, parseDurationString, readMilliseconds } from '../../../emulator/durations';

describe('emulator duration encodings', () => {
  it.each([
    ['0.500000000s', 500, '0.500s'],
    ['4.000000000s', 4000, '4s'],
    ['0.000000000s', 0, '0s'],
    ['0.200000000s', 200, '0.200s'],
    ['1m30s', 90_000, '90s'],
    ['250ms', 250, '0.250s'],
    ['1.5us', 0.0015, '0.000001500s'],
  ])('%s is %d ms and answers %s', (input, ms, answer) => {
    expect(parseDurationString(input)).toBeCloseTo(ms, 9);
    expect(formatProtoDuration(ms)).toBe(answer);
  });

  it('rejects malformed durations', () => {
    expect(parseDurationString('5 s')).toBeUndefined();
    expect(parseDurationString('abc')).toBeUndefined();
    expect(parseDurationString('')).toBeUndefined();
  });

  it('reads millisecond fields as JSON integers only, as the recordings send them', () => {
    expect(readMilliseconds(3000)).toBe(3000);
    expect(readMilliseconds(0)).toBe(0);
    expect(readMilliseconds('3000')).toBeUndefined();
    expect(readMilliseconds('3s')).toBeUndefined();
    expect(readMilliseconds(1000.5)).toBeUndefined();
    expect(readMilliseconds(-1)).toBeUndefined();
    expect(readMilliseconds(true)).toBeUndefined();
  });
});
