// JSON from outside, decoded at the edge: nesting beyond MAX_JSON_DEPTH is refused before it is parsed (a value
// thousands of levels deep parses, then overflows the stack in whatever walks it), in words; brackets inside
// strings are text, not nesting.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { toFieldErrors } from '../../../shared/schemas/zod-issues';
import { decodeJsonInput, MAX_JSON_DEPTH, nestsDeeperThan, problemText } from '../../../shared/schemas/json-input';

const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('decodeJsonInput', () => {
  it(`takes nesting up to ${MAX_JSON_DEPTH} levels, refuses one more`, () => {
    expect(decodeJsonInput(arrays(MAX_JSON_DEPTH))).toHaveProperty('value');
    expect(decodeJsonInput(arrays(MAX_JSON_DEPTH + 1))).toEqual({ problem: `is nested more than ${MAX_JSON_DEPTH} levels deep` });
    expect(decodeJsonInput(`${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`)).toEqual({
      problem: `is nested more than ${MAX_JSON_DEPTH} levels deep`,
    });
  });

  it('counts brackets in strings (escaped quotes included) as text', () => {
    const text = JSON.stringify({ a: '['.repeat(1_000), b: `\\"${'{'.repeat(1_000)}` });
    expect(nestsDeeperThan(text, 1)).toBe(false);
    expect(decodeJsonInput(text)).toEqual({ value: JSON.parse(text) });
  });

  it("invalid JSON keeps the parser's words", () => {
    const decoded = decodeJsonInput('{"version":1,');
    expect(decoded).toMatchObject({ problem: 'is not valid JSON', detail: expect.any(String) });
    expect(problemText(decoded as { problem: string; detail?: string })).toMatch(/^is not valid JSON: \S/);
  });
});

describe('toFieldErrors on a value too deep to print', () => {
  it('describes it, rather than overflowing the stack', () => {
    const deep = JSON.parse(arrays(5_000)) as unknown;
    const parsed = z.object({ target: z.string() }).safeParse(deep, { reportInput: true });
    expect(parsed.success).toBe(false);
    const errors = toFieldErrors((parsed as { error: z.ZodError }).error, 'event');
    expect(errors).toEqual([expect.objectContaining({ path: 'event', received: 'an array' })]);
  });
});
