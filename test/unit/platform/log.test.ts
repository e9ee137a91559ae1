// Log lines as Powertools writes them: errors as `error: {name, location, message, stack, cause}`, our additions in
// snake_case, secrets scrubbed from the whole line.
import { Errors } from '@scaleway/sdk-client';
import { describe, expect, it } from 'vitest';
import { wrapApiFailure } from '../../../shared/adapters/api-failure';
import { QueueHandOffError } from '../../../shared/adapters/queue';
import { LbSyncError } from '../../../shared/errors/lbsync-error';
import { createLogger, formatError } from '../../../shared/platform/log';

function captured(secrets: string[] = []) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: 'test',
    secrets,
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

describe('formatError (Powertools shape)', () => {
  it('name, location (file:line of the throw), message, stack, and the cause in the same shape', () => {
    const cause = new Errors.ScalewayError(409, { type: 'transient_state', message: 'lb is busy' });
    const error = wrapApiFailure('updating back-end server IPs for load-balancer api.x', cause, 'backend_not_found', {
      id: 'lb-1',
      name: 'api.x',
    });
    const logged = formatError(error);
    expect(logged).toMatchObject({
      name: 'LbSyncError',
      message: error.message,
      stack: error.stack,
      code: 'api_transient_state',
      error_class: 'transient',
      hint: error.hint,
      status: 409,
      lb: { id: 'lb-1', name: 'api.x' },
      cause: { name: 'ScalewayError', message: cause.message, status: 409 },
    });
    expect(logged.location).toMatch(/api-failure\.ts:\d+$/);
    expect((logged.cause as { location: string }).location).toMatch(/:\d+$/);
    // Another library's error brings its code and status, not its other properties.
    expect(Object.keys(logged.cause as object).sort()).toEqual(['location', 'message', 'name', 'stack', 'status']);
  });

  it('a queue hand-off failure is an LbSyncError (queue_unavailable) and logs what it names, in snake_case', () => {
    const error = new QueueHandOffError('SendMessage', 'lbsync-reconcile', 'ECONNREFUSED', 'connect ECONNREFUSED', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(error).toBeInstanceOf(LbSyncError);
    expect(formatError(error)).toMatchObject({
      name: 'QueueHandOffError',
      code: 'queue_unavailable',
      error_class: 'transient',
      operation: 'SendMessage',
      queue_name: 'lbsync-reconcile',
      sqs_error_code: 'ECONNREFUSED',
      cause: { name: 'Error', code: 'ECONNREFUSED' },
    });
  });

  it('what is not an Error is told as a message; a cause that is not an Error is kept as it is; a cause chain is bounded', () => {
    expect(formatError('boom')).toEqual({ name: 'Error', location: '', message: 'boom' });
    expect(formatError(new Error('x', { cause: { why: 'y' } }))).toMatchObject({ cause: { why: 'y' } });
    let deep: Error = new Error('root');
    for (let i = 0; i < 20; i += 1) deep = new Error(`level ${i}`, { cause: deep });
    expect(JSON.stringify(formatError(deep)).match(/"name"/g)?.length).toBeLessThanOrEqual(7);
  });
});

describe('the logger', () => {
  it('serializes `error` with formatError on every line that carries one, and scrubs secrets from it', () => {
    const secret = 'sEcReT-key-0123456789';
    const { logger, lines } = captured([secret]);
    const cause = new Error(`401 for key ${secret}`);
    logger.error({ error: new LbSyncError('authentication_denied', 'the key was refused', { cause }), event_id: 'evt-1' }, 'failed');
    const [line] = lines;
    expect(line).toMatchObject({
      level: 'ERROR',
      message: 'failed',
      event_id: 'evt-1',
      error: { name: 'LbSyncError', code: 'authentication_denied', cause: { message: '401 for key [redacted]' } },
    });
    expect(JSON.stringify(line)).not.toContain(secret);
  });
});
