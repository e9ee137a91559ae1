/** Platform requests (the Scaleway Node runtime's event shape) for each function. */
import type { PlatformEvent } from '../../shared/platform/request-response';
import { INJECT_TOKEN } from './bench-world';
import type { FunctionName } from './bundles';

let counter = 0;

export function reconcileMessage(target: string): string {
  counter += 1;
  return JSON.stringify({
    version: 1,
    id: `evt-bench-${process.pid}-${counter}`,
    source: 'manual',
    target,
    occurredAt: new Date().toISOString(),
    attempt: 0,
  });
}

export function platformEvent(name: FunctionName, target: string): PlatformEvent {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  switch (name) {
    case 'reconcile':
      return { httpMethod: 'POST', path: '/', headers, body: reconcileMessage(target), isBase64Encoded: false };
    case 'inject':
      return {
        httpMethod: 'POST',
        path: '/',
        headers: { ...headers, authorization: `Bearer ${INJECT_TOKEN}` },
        body: JSON.stringify({ target }),
        isBase64Encoded: false,
      };
    default:
      // sweep, and any cron function: the trigger's JSON args (none) as the body.
      return { httpMethod: 'POST', path: '/', headers, body: '{}', isBase64Encoded: false };
  }
}

/** What a correct first answer looks like, per function (so a failing run is never timed as a success). */
export function expectedAnswer(name: FunctionName, status: number, body: string): string | undefined {
  const parsed = JSON.parse(body) as { outcome?: string; enqueued?: number };
  if (name === 'reconcile' && (status !== 200 || parsed.outcome !== 'noop')) return `reconcile answered ${status} ${body}`;
  if (name === 'inject' && status !== 202) return `inject answered ${status} ${body}`;
  if (name === 'sweep' && (status !== 200 || !parsed.enqueued)) return `sweep answered ${status} ${body}`;
  if (status < 200 || status >= 300) return `${name} answered ${status} ${body}`;
  return undefined;
}
