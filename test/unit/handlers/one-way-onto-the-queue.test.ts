// One way onto the reconcile queue: the functions that make events (inject, sweep, watch) hand them to
// enqueueEvents (shared/handlers/enqueue-events.ts) and never call the queue client's send themselves. The
// reconcile function's own hand-offs (a retry re-enqueued, a dead letter) pass on a message it was given.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const HANDLERS = new URL('../../../shared/handlers/', import.meta.url);
const PASSES_MESSAGES_ON = ['reconcile-message.ts', 'enqueue-events.ts'];
const sendsItself = (source: string) => /\.(send|sendBatch)\(/.test(source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''));

describe('one way onto the queue', () => {
  const handlers = readdirSync(HANDLERS).filter((file) => file.endsWith('.ts'));

  it('no handler but enqueue-events sends events itself', () => {
    const senders = handlers.filter((file) => sendsItself(readFileSync(new URL(file, HANDLERS), 'utf8')));
    expect(senders.sort()).toEqual(PASSES_MESSAGES_ON.sort());
  });

  it.each(['inject-request.ts', 'sweep-request.ts', 'watch-request.ts'])('%s enqueues through enqueueEvents', (file) => {
    expect(readFileSync(new URL(file, HANDLERS), 'utf8')).toMatch(/\benqueueEvents\(deps, /);
  });

  it('the check sees a send, and not one in a comment', () => {
    expect(sendsItself('await deps.queue().sendBatch(deps.reconcileQueueUrl, entries);')).toBe(true);
    expect(sendsItself('// deps.queue().send(url, body) is what enqueueEvents replaced')).toBe(false);
  });
});
