import { createScalewayGateway } from '../../shared/adapters/scaleway';
import { type ReconcileAnswerBody, handleReconcileMessage } from '../../shared/handlers/reconcile-message';
import { ownerIdFromEnv, scalewaySettingsFromEnv } from '../../shared/platform/config';
import { functionShell } from '../../shared/platform/function-shell';
import { requestBody } from '../../shared/platform/request-response';
import { once } from '../../shared/platform/runtime';
import { gatewayPerKey } from '../../shared/platform/target-keys';

// Only this function talks to the Scaleway API: the SDK stays out of the inject and sweep bundles.
const scalewaySettings = once(() => scalewaySettingsFromEnv(process.env, { function: true }));

/**
 * Queue trigger: the raw message body arrives as the HTTP body. A 2xx deletes the message; a status of 300 or more
 * has it redelivered. A configuration error, or any failure other than the hand-off's, answers 500
 * `function_failed` with its code (e.g. invalid_config naming the variable). The message was not handled, so the
 * platform redelivers it. After the queue's maxReceiveCount, its RedrivePolicy moves it to the dead-letter queue.
 * Nothing is lost.
 */
export const handle = functionShell(
  'reconcile',
  (event, runtime, logger) => {
    const { reconcileQueueUrl, deadLetterQueueUrl } = runtime.queueEnv();
    // Read the settings and check the key's shape before handling the message: a bad key fails the function (500).
    const settings = scalewaySettings();
    return handleReconcileMessage(requestBody(event), {
      targets: runtime.targetsByName(),
      // The target's own key when it names one (credentials), else the deployment's.
      gateway: (target, { deadline, eventId }) =>
        gatewayPerKey(process.env, (key) =>
          createScalewayGateway({ ...settings, remainingMs: deadline.remainingMs, ...(eventId && { eventId }), ...key }),
        )(target),
      queues: { client: runtime.queue, reconcileQueueUrl, deadLetterQueueUrl },
      runtime: runtime.config,
      logger,
      scrubber: runtime.scrubber,
      // Read the owner id alone, without the keys: an event refused before any API call needs no key.
      ownerId: ownerIdFromEnv(process.env),
    });
  },
  (message, code) =>
    ({
      outcome: 'function_failed',
      error: {
        code,
        message,
        hint: 'The message was not handled: the queue redelivers it (after maxReceiveCount its RedrivePolicy moves it to the dead-letter queue); fix what the message names, then `lbsync dlq redrive` any it moved.',
      },
    }) satisfies ReconcileAnswerBody,
);
