import { handleSweepRequest } from '../../shared/handlers/sweep-request';
import { functionShell } from '../../shared/platform/function-shell';
import { requestBody } from '../../shared/platform/request-response';

/** Cron trigger: its JSON args arrive as the body; enqueues one `sweep` event per selected target, spread over its period. */
export const handle = functionShell(
  'sweep',
  (event, runtime, logger) =>
    handleSweepRequest(requestBody(event), {
      targets: runtime.targets(),
      queue: runtime.queue,
      reconcileQueueUrl: runtime.queueEnv().reconcileQueueUrl,
      deadLetterQueueUrl: runtime.queueEnv().deadLetterQueueUrl,
      spreadMs: runtime.config.sweepSpreadMs,
      delayMode: runtime.config.delayMode,
      logger,
    }),
  (message, code) => ({ error: code, message }),
);
