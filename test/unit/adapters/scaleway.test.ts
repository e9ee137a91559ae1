// The pure mappings of the Scaleway adapter; its calls run against the emulator in test/integration/adapters/scaleway.test.ts.
import { describe, expect, it } from 'vitest';
import { durationToMs } from '../../../shared/adapters/scaleway';

describe('durationToMs', () => {
  it.each([
    [3000, 3000],
    ['3000', 3000],
    ['0.500s', 500],
    ['0.5s', 500],
    ['3s', 3000],
    ['250ms', 250],
    ['1m', 60000],
    [undefined, undefined],
    ['soon', undefined],
  ] as const)('%s -> %s', (input, expected) => {
    expect(durationToMs(input)).toBe(expected);
  });
});
