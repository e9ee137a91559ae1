import { handleInjectRequest } from '../../shared/handlers/inject-request';
import { injectSettingsFromEnv } from '../../shared/platform/config';
import { functionShell } from '../../shared/platform/function-shell';

/** HTTP (private): POST an event with `Authorization: Bearer <INJECT_TOKEN>`; 202 once it is on the queue. */
export const handle = functionShell(
  'inject',
  (event, runtime, logger) =>
    handleInjectRequest(event, {
      targets: runtime.targetsByName(),
      queue: runtime.queue,
      reconcileQueueUrl: runtime.queueEnv().reconcileQueueUrl,
      ...injectSettingsFromEnv(process.env),
      logger,
    }),
  () => ({ error: 'invalid_config', message: 'the inject function is misconfigured; see its logs' }),
);
