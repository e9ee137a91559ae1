// The only module that talks SQS. Scaleway Queues speak the SQS API, so we use the AWS SDK, but load it lazily. A
// cold start that never touches the queue (a no-op reconcile, an inject we refused) should not pay for parsing the
// SDK.
import type * as SqsSdk from '@aws-sdk/client-sqs';
import { LbSyncError } from '../errors/lbsync-error';
import { createScrubber, stripUrlCredentials, urlCredentials } from '../outbound/scrub';
import { timeoutError } from './http-transport';
import { networkCause, shownUrl } from './request-failure';

export interface QueueSettings {
  /** Defaults to Scaleway's endpoint for the region: https://sqs.mnq.<region>.scaleway.com */
  endpoint?: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /**
   * The time limit of one call, retries included, from the request to the last byte of the answer. Default 5 s; a
   * long-poll receive gets its wait time on top. A server that sends headers and then stalls fails the call there.
   */
  requestTimeoutMs?: number;
}

export interface ReceivedMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  /** ApproximateReceiveCount: 1 on the first delivery. */
  receiveCount: number;
  /** SentTimestamp, epoch milliseconds. */
  sentAt?: number;
}

export interface SendOptions {
  /** Not supported by Scaleway Queues: only for QUEUE_DELAY_MODE=native against a queue that has it. */
  delaySeconds?: number;
  /** FIFO queues only. */
  deduplicationId?: string;
}

export interface BatchEntry {
  id: string;
  body: string;
  /** Not supported by Scaleway Queues: only for QUEUE_DELAY_MODE=native against a queue that has it. */
  delaySeconds?: number;
}

export interface BatchResult {
  sent: string[];
  failed: { id: string; code: string; message: string }[];
  calls: number;
}

export interface ReceiveOptions {
  maxMessages?: number;
  waitSeconds?: number;
  /** Ignored by Scaleway Queues (the queue's VisibilityTimeout applies); honoured by AWS and fauxqs. */
  visibilityTimeoutSeconds?: number;
}

export interface EventQueue {
  send(queueUrl: string, body: string, options?: SendOptions): Promise<{ messageId: string }>;
  /** Chunks of 10 per SendMessageBatch call; entries SQS refuses are reported, a transport error throws. */
  sendBatch(queueUrl: string, entries: BatchEntry[]): Promise<BatchResult>;
  receive(queueUrl: string, options?: ReceiveOptions): Promise<ReceivedMessage[]>;
  delete(queueUrl: string, receiptHandle: string): Promise<void>;
  /** Scaleway accepts only 0 (visible now) or the queue's own VisibilityTimeout. */
  changeVisibility(queueUrl: string, receiptHandle: string, seconds: number): Promise<void>;
  queueUrl(name: string): Promise<string>;
  /** Like queueUrl, but undefined when the queue does not exist. */
  findQueueUrl(name: string): Promise<string | undefined>;
  createQueue(name: string, attributes: Record<string, string>): Promise<string>;
  attributes(queueUrl: string): Promise<Record<string, string>>;
  setAttributes(queueUrl: string, attributes: Record<string, string>): Promise<void>;
  purge(queueUrl: string): Promise<void>;
}

/** Every SQS failure: a queue_unavailable LbSyncError named by operation and queue; never carries the credentials. */
export class QueueHandOffError extends LbSyncError {
  constructor(
    readonly operation: string,
    readonly queueName: string,
    /** The SQS error name (e.g. QueueDoesNotExist) or the network error code (e.g. ECONNREFUSED). */
    readonly sqsErrorCode: string | undefined,
    detail: string,
    options: { cause: unknown },
  ) {
    super('queue_unavailable', `queue ${operation} on ${queueName} failed: ${detail}`, options);
    this.name = 'QueueHandOffError';
  }
}

const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
const MAX_BATCH_SIZE = 10;
const QUEUE_DOES_NOT_EXIST = new Set(['QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue']);

let sdkLoading: Promise<typeof SqsSdk> | undefined;

function loadSqsSdk(): Promise<typeof SqsSdk> {
  sdkLoading ??= import('@aws-sdk/client-sqs').catch((error: unknown) => {
    sdkLoading = undefined;
    throw error;
  });
  return sdkLoading;
}

export function scalewayQueueEndpoint(region: string): string {
  return `https://sqs.mnq.${region}.scaleway.com`;
}

/** Last path segment of a queue URL, which is the queue name on AWS, Scaleway and fauxqs. */
export function queueNameOf(queueUrl: string): string {
  const segments = queueUrl.split('/').filter((s) => s.length > 0);
  return segments.at(-1) ?? queueUrl;
}

export function createEventQueue(settings: QueueSettings): EventQueue {
  const requestTimeoutMs = settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  let connecting: Promise<{ sdk: typeof SqsSdk; client: SqsSdk.SQSClient }> | undefined;

  async function connect() {
    const sdk = await loadSqsSdk();
    const client = new sdk.SQSClient({
      endpoint: settings.endpoint ? stripUrlCredentials(settings.endpoint) : scalewayQueueEndpoint(settings.region),
      region: settings.region,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      retryMode: 'standard',
      maxAttempts: 3,
      requestHandler: {
        connectionTimeout: requestTimeoutMs,
        requestTimeout: requestTimeoutMs,
        // Without this the SDK only logs a warning and keeps waiting.
        throwOnRequestTimeout: true,
      },
    });
    return { sdk, client };
  }

  /**
   * The client, with a time limit on each whole call. The SDK's own timeouts stop at the headers, so a body that never
   * comes would block the call (and the invocation) forever. At the limit the call is aborted and fails.
   */
  const bounded = (client: SqsSdk.SQSClient): Pick<SqsSdk.SQSClient, 'send'> => ({
    send: ((command: Parameters<SqsSdk.SQSClient['send']>[0], options?: { requestTimeout?: number }) => {
      const timeoutMs = options?.requestTimeout ?? requestTimeoutMs;
      const deadline = new AbortController();
      return new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(() => {
          const timedOut = Object.assign(timeoutError(`request timed out after ${timeoutMs} ms`), { timeoutMs });
          deadline.abort(timedOut);
          reject(timedOut);
        }, timeoutMs);
        client
          .send(command, { ...options, abortSignal: deadline.signal })
          .then(resolve, reject)
          .finally(() => clearTimeout(timer));
      });
    }) as SqsSdk.SQSClient['send'],
  });

  async function call<T>(
    operation: string,
    queueName: string,
    run: (sdk: typeof SqsSdk, client: Pick<SqsSdk.SQSClient, 'send'>) => Promise<T>,
  ): Promise<T> {
    try {
      connecting ??= connect().catch((error: unknown) => {
        connecting = undefined;
        throw error;
      });
      const { sdk, client } = await connecting;
      return await run(sdk, bounded(client));
    } catch (error) {
      throw handOffError(operation, queueName, error, settings);
    }
  }

  const extraTimeoutFor = (waitSeconds: number) => ({ requestTimeout: requestTimeoutMs + waitSeconds * 1000 });

  return {
    send: (queueUrl, body, options) =>
      call('SendMessage', queueNameOf(queueUrl), async (sdk, client) => {
        const output = await client.send(
          new sdk.SendMessageCommand({
            QueueUrl: queueUrl,
            MessageBody: body,
            DelaySeconds: options?.delaySeconds,
            MessageDeduplicationId: options?.deduplicationId,
          }),
        );
        return { messageId: output.MessageId ?? '' };
      }),

    sendBatch: (queueUrl, entries) =>
      call('SendMessageBatch', queueNameOf(queueUrl), async (sdk, client) => {
        const result: BatchResult = { sent: [], failed: [], calls: 0 };
        for (let start = 0; start < entries.length; start += MAX_BATCH_SIZE) {
          const chunk = entries.slice(start, start + MAX_BATCH_SIZE);
          const output = await client.send(
            new sdk.SendMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: chunk.map((entry) => ({ Id: entry.id, MessageBody: entry.body, DelaySeconds: entry.delaySeconds })),
            }),
          );
          result.calls += 1;
          for (const ok of output.Successful ?? []) result.sent.push(ok.Id ?? '');
          for (const failed of output.Failed ?? []) {
            result.failed.push({ id: failed.Id ?? '', code: failed.Code ?? 'unknown', message: failed.Message ?? '' });
          }
        }
        return result;
      }),

    receive: (queueUrl, options = {}) =>
      call('ReceiveMessage', queueNameOf(queueUrl), async (sdk, client) => {
        const waitSeconds = options.waitSeconds ?? 0;
        const output = await client.send(
          new sdk.ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: options.maxMessages ?? 1,
            WaitTimeSeconds: waitSeconds,
            VisibilityTimeout: options.visibilityTimeoutSeconds,
            // Both spellings: MessageSystemAttributeNames is AWS' current one; Scaleway
            // documents only AttributeName.N, typed here as queue attributes, hence 'All'.
            MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
            AttributeNames: ['All'],
          }),
          extraTimeoutFor(waitSeconds),
        );
        return (output.Messages ?? []).map(toReceivedMessage);
      }),

    delete: (queueUrl, receiptHandle) =>
      call('DeleteMessage', queueNameOf(queueUrl), async (sdk, client) => {
        await client.send(new sdk.DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
      }),

    changeVisibility: (queueUrl, receiptHandle, seconds) =>
      call('ChangeMessageVisibility', queueNameOf(queueUrl), async (sdk, client) => {
        await client.send(
          new sdk.ChangeMessageVisibilityCommand({
            QueueUrl: queueUrl,
            ReceiptHandle: receiptHandle,
            VisibilityTimeout: seconds,
          }),
        );
      }),

    queueUrl: (name) =>
      call('GetQueueUrl', name, async (sdk, client) => {
        const output = await client.send(new sdk.GetQueueUrlCommand({ QueueName: name }));
        if (!output.QueueUrl) throw new Error('GetQueueUrl answered without a QueueUrl');
        return output.QueueUrl;
      }),

    findQueueUrl: (name) =>
      call('GetQueueUrl', name, async (sdk, client) => {
        try {
          const output = await client.send(new sdk.GetQueueUrlCommand({ QueueName: name }));
          return output.QueueUrl;
        } catch (error) {
          if (isQueueMissing(error)) return undefined;
          throw error;
        }
      }),

    createQueue: (name, attributes) =>
      call('CreateQueue', name, async (sdk, client) => {
        const output = await client.send(new sdk.CreateQueueCommand({ QueueName: name, Attributes: attributes }));
        if (!output.QueueUrl) throw new Error('CreateQueue answered without a QueueUrl');
        return output.QueueUrl;
      }),

    attributes: (queueUrl) =>
      call('GetQueueAttributes', queueNameOf(queueUrl), async (sdk, client) => {
        const output = await client.send(new sdk.GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }));
        return { ...output.Attributes };
      }),

    setAttributes: (queueUrl, attributes) =>
      call('SetQueueAttributes', queueNameOf(queueUrl), async (sdk, client) => {
        await client.send(new sdk.SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: attributes }));
      }),

    purge: (queueUrl) =>
      call('PurgeQueue', queueNameOf(queueUrl), async (sdk, client) => {
        await client.send(new sdk.PurgeQueueCommand({ QueueUrl: queueUrl }));
      }),
  };
}

function toReceivedMessage(message: SqsSdk.Message): ReceivedMessage {
  const attributes: Partial<Record<string, string>> = message.Attributes ?? {};
  const sentAt = Number(attributes.SentTimestamp);
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    receiveCount: Number(attributes.ApproximateReceiveCount ?? '1') || 1,
    ...(Number.isFinite(sentAt) && sentAt > 0 ? { sentAt } : {}),
  };
}

function isQueueMissing(error: unknown): boolean {
  const { name, code } = errorIdentity(error);
  return QUEUE_DOES_NOT_EXIST.has(name ?? '') || QUEUE_DOES_NOT_EXIST.has(code ?? '');
}

function errorIdentity(error: unknown): { name?: string; code?: string; message: string } {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const e = error as { name?: unknown; code?: unknown; Code?: unknown; message?: unknown };
  return {
    name: typeof e.name === 'string' ? e.name : undefined,
    code: typeof e.code === 'string' ? e.code : typeof e.Code === 'string' ? e.Code : undefined,
    message: typeof e.message === 'string' ? e.message : String(error),
  };
}

function handOffError(operation: string, queueName: string, error: unknown, settings: QueueSettings) {
  const { name, code, message } = errorIdentity(error);
  const isServiceError = typeof error === 'object' && error !== null && '$fault' in error;
  const sqsErrorCode = isServiceError ? name : (code ?? name);
  const label = sqsErrorCode && sqsErrorCode !== 'Error' ? `${sqsErrorCode}: ` : '';
  // No answer at all (refused, unknown host, timeout, TLS): say why in words and where it was sent.
  const endpoint = shownUrl(settings.endpoint ?? scalewayQueueEndpoint(settings.region));
  const timeoutMs = (error as { timeoutMs?: unknown } | null)?.timeoutMs;
  const noAnswer = !isServiceError && (code !== undefined || name === 'TimeoutError');
  const detail = noAnswer
    ? `${networkCause(error, typeof timeoutMs === 'number' ? timeoutMs : undefined)} on ${endpoint}`
    : `${label}${message}`;
  const scrubber = createScrubber([settings.secretAccessKey, settings.accessKeyId, ...urlCredentials(settings.endpoint)]);
  return new QueueHandOffError(operation, scrubber.text(queueName), sqsErrorCode, scrubber.text(detail), { cause: error });
}
