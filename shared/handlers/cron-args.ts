// The JSON args a cron trigger sends a function (the body of its request), checked against the function's schema.
import type * as z from 'zod';
import type { PlatformResponse } from '../platform/request-response';
import { jsonResponse } from '../platform/request-response';
import { toFieldErrors } from '../schemas/field-errors';

/** An empty body is `{}`; invalid JSON or args are a 400 naming the field and the fix (`example`: valid args). */
export function parseCronArgs<S extends z.ZodType>(
  rawBody: string,
  schema: S,
  example: string,
): { args: z.output<S> } | { error: PlatformResponse } {
  let value: unknown = {};
  if (rawBody.trim() !== '') {
    try {
      value = JSON.parse(rawBody);
    } catch {
      return {
        error: jsonResponse(400, {
          error: 'invalid_args',
          errors: [{ path: 'args', message: 'is not valid JSON', fix: `give the cron trigger JSON args like ${example}` }],
        }),
      };
    }
  }
  const parsed = schema.safeParse(value, { reportInput: true });
  if (!parsed.success) return { error: jsonResponse(400, { error: 'invalid_args', errors: toFieldErrors(parsed.error, 'args') }) };
  return { args: parsed.data };
}
