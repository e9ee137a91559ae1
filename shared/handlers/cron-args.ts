// The JSON args a cron trigger sends a function (the body of its request), checked against the function's schema,
// and the targets they select.
import * as z from 'zod';
import type { Logger } from '../platform/log';
import type { PlatformResponse } from '../platform/request-response';
import { jsonResponse } from '../platform/request-response';
import { listedProblems, renderFieldError } from '../errors/field-errors';
import { toFieldErrors } from '../schemas/zod-issues';
import { decodeJsonInput, problemText } from '../schemas/json-input';
import { targetNameSchema } from '../schemas/primitives';

/** What every cron trigger's args may say (a function's schema extends it): which targets (all when omitted), plan only. */
export const cronArgsSchema = z
  .object({
    targets: z.array(targetNameSchema).max(10_000).optional(),
    dryRun: z.boolean().optional(),
  })
  .strict();

/**
 * The targets the args select (every target when they name none), and the names no target has. An unknown name is
 * skipped with one warning, never an error, because the configuration may have changed since the cron was set.
 */
export function selectCronTargets<T extends { name: string }>(
  args: z.output<typeof cronArgsSchema>,
  targets: readonly T[],
  logger: Logger,
  functionName: string,
): { selected: T[]; unknownTargets: string[] } {
  const known = new Set(targets.map((t) => t.name));
  const unknownTargets = (args.targets ?? []).filter((name) => !known.has(name));
  for (const name of unknownTargets) logger.warn({ target: name }, `${functionName} args name an unknown target "${name}"`);
  const wanted = args.targets ? new Set(args.targets) : undefined;
  return { selected: targets.filter((t) => !wanted || wanted.has(t.name)), unknownTargets };
}

/**
 * An empty body is `{}`. Invalid JSON, JSON nested too deep or invalid args get a 400 naming the field and the fix
 * (`example`: valid args).
 */
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
    const errors = listedProblems(toFieldErrors(parsed.error, 'args'), 'args');
    const message = `the cron trigger's args are invalid: ${errors.map(renderFieldError).join('; ')}`;
    return { error: jsonResponse(400, { error: 'invalid_args', message, errors }) };
  }
  return { args: parsed.data };
}
