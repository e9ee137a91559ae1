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
  // Its callers are outside the deployment, so the answer does not say what failed; the logs do.
  (_message, code) => ({
    error: code,
    message: `the inject function ${code === 'invalid_config' ? 'is misconfigured' : 'failed'}; see its logs`,
  }),
);
