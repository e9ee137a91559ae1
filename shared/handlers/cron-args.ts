// The JSON args a cron trigger sends a function (the body of its request), checked against the function's schema.
import type * as z from 'zod';
import type { PlatformResponse } from '../platform/request-response';
import { jsonResponse } from '../platform/request-response';
import { renderFieldError } from '../errors/field-errors';
import { toFieldErrors } from '../schemas/zod-issues';
import { decodeJsonInput, problemText } from '../schemas/json-input';

/** An empty body is `{}`; invalid JSON (or JSON nested too deep) or args are a 400 naming the field and the fix (`example`: valid args). */
export function parseCronArgs<S extends z.ZodType>(
  rawBody: string,
  schema: S,
  example: string,
): { args: z.output<S> } | { error: PlatformResponse } {
  let value: unknown = {};
  if (rawBody.trim() !== '') {
    const decoded = decodeJsonInput(rawBody);
    if (!('value' in decoded)) {
      return {
        error: jsonResponse(400, {
          error: 'invalid_args',
          message: `the cron trigger's args ${problemText(decoded)}`,
          errors: [{ path: 'args', message: decoded.problem, fix: `give the cron trigger JSON args like ${example}` }],
        }),
      };
    }
    value = decoded.value;
  }
  const parsed = schema.safeParse(value, { reportInput: true });
  if (!parsed.success) {
    const errors = toFieldErrors(parsed.error, 'args');
    const message = `the cron trigger's args are invalid: ${errors.map(renderFieldError).join('; ')}`;
    return { error: jsonResponse(400, { error: 'invalid_args', message, errors }) };
  }
  return { args: parsed.data };
}
