import * as z from 'zod';
import type { EventQueue } from '../adapters/queue';
import type { Logger } from '../log';
import type { PlatformResponse } from '../platform';
import { jsonResponse } from '../platform';
import type { LbSyncEvent } from '../schemas/event';
import { newEventId } from '../schemas/event';
import { toFieldErrors } from '../schemas/field-errors';
import { targetNameSchema } from '../schemas/primitives';
import type { Target } from '../schemas/target';

/** The cron trigger's JSON args: which targets to sweep (all when omitted). */
export const sweepArgsSchema = z
  .object({
    targets: z.array(targetNameSchema).max(10_000).optional(),
    dryRun: z.boolean().optional(),
  })
  .strict();

export interface SweepDeps {
  targets: readonly Target[];
  queue: () => EventQueue;
  reconcileQueueUrl: string;
  logger: Logger;
  now?: () => Date;
}

export interface SweepReport {
  selected: number;
  enqueued: number;
  failed: { target: string; code: string; message: string }[];
  unknownTargets: string[];
  batches: number;
}

/** One `sweep` event per selected target, sent 10 per SendMessageBatch call. */
export async function handleSweepRequest(rawBody: string, deps: SweepDeps): Promise<PlatformResponse> {
  let args: z.output<typeof sweepArgsSchema> = {};
  if (rawBody.trim() !== '') {
    let value: unknown;
    try {
      value = JSON.parse(rawBody);
    } catch {
      return jsonResponse(400, { error: 'invalid_args', errors: [{ path: 'args', message: 'is not valid JSON', fix: 'give the cron trigger JSON args like {"targets":["prod"]}' }] });
    }
    const parsed = sweepArgsSchema.safeParse(value, { reportInput: true });
    if (!parsed.success) return jsonResponse(400, { error: 'invalid_args', errors: toFieldErrors(parsed.error, 'args') });
    args = parsed.data;
  }
  const known = new Set(deps.targets.map((t) => t.name));
  const unknownTargets = (args.targets ?? []).filter((name) => !known.has(name));
  const wanted = args.targets ? new Set(args.targets) : undefined;
  const selected = deps.targets.filter((t) => !wanted || wanted.has(t.name));
  const occurredAt = (deps.now?.() ?? new Date()).toISOString();
  const entries = selected.map((target, index) => {
    const event: LbSyncEvent = {
      version: 1, id: newEventId(), source: 'sweep', target: target.name, occurredAt, attempt: 0,
      ...(args.dryRun !== undefined && { dryRun: args.dryRun }),
    };
    return { id: String(index), body: JSON.stringify(event) };
  });
  const report: SweepReport = { selected: selected.length, enqueued: 0, failed: [], unknownTargets, batches: 0 };
  if (entries.length > 0) {
    try {
      const batch = await deps.queue().sendBatch(deps.reconcileQueueUrl, entries);
      report.enqueued = batch.sent.length;
      report.batches = batch.calls;
      report.failed = batch.failed.map((f) => ({ target: selected[Number(f.id)]?.name ?? f.id, code: f.code, message: f.message }));
    } catch (error) {
      deps.logger.error({ error: { message: (error as Error).message } }, 'sweep could not enqueue');
      return jsonResponse(503, { error: 'queue_unavailable', message: (error as Error).message, ...report });
    }
  }
  for (const name of unknownTargets) deps.logger.warn({ target: name }, `sweep args name an unknown target "${name}"`);
  deps.logger.info({ ...report }, `sweep: ${report.enqueued}/${report.selected} targets enqueued in ${report.batches} batch(es)`);
  return jsonResponse(report.failed.length > 0 ? 502 : 200, report);
}
