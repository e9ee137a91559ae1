import { functionShell } from '../../shared/platform/function-shell';
import { handleInjectRequest } from '../../shared/handlers/inject-request';

/** HTTP (private): POST an event with `Authorization: Bearer <INJECT_TOKEN>`; 202 once it is on the queue. */
export const handle = functionShell(
  'inject',
  (event, runtime, logger) => {
    const token = process.env.INJECT_TOKEN?.trim();
    return handleInjectRequest(event, {
      targets: runtime.targetsByName(),
      queue: runtime.queue,
      reconcileQueueUrl: runtime.queueEnv().reconcileQueueUrl,
      ...(token && { token }),
      insecure: process.env.LBSYNC_INJECT_INSECURE === 'true',
      logger,
    });
  },
  () => ({ error: 'invalid_config', message: 'the inject function is misconfigured; see its logs' }),
);
