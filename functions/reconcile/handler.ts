import { createScalewayGateway } from '../../shared/adapters/scaleway';
import { handleReconcileMessage } from '../../shared/handlers/reconcile-message';
import { ownerIdFromEnv, scalewaySettingsFromEnv } from '../../shared/platform/config';
import { functionShell } from '../../shared/platform/function-shell';
import { requestBody } from '../../shared/platform/request-response';
import { once } from '../../shared/platform/runtime';
import { gatewayPerKey } from '../../shared/platform/target-keys';

// Only this function talks to the Scaleway API: the SDK stays out of the inject and sweep bundles.
const scalewaySettings = once(() => scalewaySettingsFromEnv(process.env));

/**
 * Queue trigger: the raw message body arrives as the HTTP body; 2xx deletes the message, >= 300 redelivers it.
 * A configuration error answers 500: nothing could be handed on, so the platform redelivers (and redrives).
 */
export const handle = functionShell(
  'reconcile',
  (event, runtime, logger) => {
    const { reconcileQueueUrl, deadLetterQueueUrl } = runtime.queueEnv();
    // Read (and the key's shape checked) before the message is handled: a bad key is the function's failure (500).
    const settings = scalewaySettings();
    return handleReconcileMessage(requestBody(event), {
      targets: runtime.targetsByName(),
      // The target's own key when it names one (credentials), else the deployment's.
      gateway: (deadline, eventId, target) =>
        gatewayPerKey(process.env, (key) => createScalewayGateway({ ...settings, remainingMs: deadline.remainingMs, eventId, ...key }))(
          target,
        ),
      queue: runtime.queue,
      reconcileQueueUrl,
      deadLetterQueueUrl,
      runtime: runtime.config,
      logger,
      scrubber: runtime.scrubber,
      // Read without the keys: an event refused before any API call needs none.
      ownerId: ownerIdFromEnv(process.env),
    });
  },
  (message) => ({ outcome: 'handoff_failed', error: { code: 'invalid_config', message } }),
);
