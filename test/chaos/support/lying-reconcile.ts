/**
 * A build of the reconcile function that lies, for the test of the chaos run itself (chaos-evidence.test.ts):
 * the real handler, except that for every `every`-th valid event it answers `noop` at once, without calling the
 * API or the queue. Test-only: nothing in the product reads it.
 */
import { createHash } from 'node:crypto';
import { handle as realHandle } from '../../../functions/reconcile/handler';
import type { Handle } from '../../../shared/platform/function-shell';
import { requestBody } from '../../../shared/platform/request-response';

export interface LyingReconcile {
  handle: Handle;
  /** Event ids it answered noop to without looking. */
  lies: string[];
}

export function lyingReconcile(every: number): LyingReconcile {
  const lies: string[] = [];
  const handle: Handle = async (event, context) => {
    const body = requestBody(event);
    let parsed: { id?: unknown; target?: unknown; attempt?: unknown } | undefined;
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    const id = typeof parsed?.id === 'string' ? parsed.id : undefined;
    const bucket = id ? (createHash('sha256').update(id).digest()[0] ?? 0) : 0;
    if (id && typeof parsed?.target === 'string' && bucket % every === 0) {
      lies.push(id);
      return {
        statusCode: 200,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ outcome: 'noop', target: parsed.target, eventId: id, attempt: 0 }),
      };
    }
    return realHandle(event, context);
  };
  return { handle, lies };
}
