import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Consumer } from './consumer.js';
import { fromSqsMessage } from './messages.js';
import { validatePollOptions } from './options.js';
import type { BatchResult } from './types.js';

export interface PollOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly consumer: Pick<Consumer, 'process'>;
  /** 1–10. @default 10 */
  readonly maxMessages?: number;
  /** Long-poll wait, 0–20 s. @default 0 */
  readonly waitTimeSeconds?: number;
  /**
   * How long received messages stay hidden from other receivers, 0–43200 s (ReceiveMessage's
   * `VisibilityTimeout`). Claims (`idempotency: 'claim'`) lapse when it ends, so a message whose
   * worker died is taken over as soon as SQS delivers it again, unless `inbox.claimTimeoutSeconds`
   * is set. Handle a batch within it: a message still being handled when it ends is delivered again.
   * @default the queue's visibility timeout, read with GetQueueAttributes (again after 5 minutes)
   */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Make failed messages visible again after this many seconds (0–43200) instead of at the end of
   * their visibility timeout. @default undefined — the visibility timeout, as Lambda does
   */
  readonly retryDelaySeconds?: number;
}

export interface PollResult {
  readonly received: number;
  /** Handled (or duplicates) and deleted from the queue. */
  readonly acknowledged: number;
  readonly failed: number;
  readonly result: BatchResult;
}

/** How long a queue's visibility timeout, once read, is used before it is read again. */
const VISIBILITY_TIMEOUT_TTL_MS = 5 * 60_000;
const visibilityTimeouts = new WeakMap<SQSClient, Map<string, { readonly seconds: number; readonly readAt: number }>>();

/** The queue's own visibility timeout, read with GetQueueAttributes and kept per client and queue for a while. */
async function queueVisibilityTimeout(sqs: SQSClient, queueUrl: string): Promise<number> {
  const byQueue = visibilityTimeouts.get(sqs) ?? new Map();
  visibilityTimeouts.set(sqs, byQueue);
  const known = byQueue.get(queueUrl);
  if (known !== undefined && Date.now() - known.readAt < VISIBILITY_TIMEOUT_TTL_MS) return known.seconds;
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout'] }));
  const seconds = Number(Attributes?.VisibilityTimeout);
  if (Attributes?.VisibilityTimeout === undefined || !Number.isInteger(seconds) || seconds < 0) {
    throw new Error(
      `GetQueueAttributes of ${queueUrl} gave no usable VisibilityTimeout (got ${JSON.stringify(Attributes?.VisibilityTimeout)}); pass pollOnce the visibilityTimeoutSeconds to use`,
    );
  }
  byQueue.set(queueUrl, { seconds, readAt: Date.now() });
  return seconds;
}

/**
 * One receive → process → acknowledge round on an SQS queue, with the same semantics as an
 * SQS-triggered Lambda with `ReportBatchItemFailures`: acknowledged messages are deleted, the
 * others stay on the queue and come back (to the DLQ after `maxReceiveCount`). Claims taken for
 * the batch lapse when its visibility timeout ends.
 *
 * @example
 * ```ts
 * while (!stopped) await pollOnce({ sqs, queueUrl, consumer, waitTimeSeconds: 20 });
 * ```
 */
export async function pollOnce(options: PollOptions): Promise<PollResult> {
  validatePollOptions(options);
  const { sqs, queueUrl } = options;
  const visibilityTimeout = options.visibilityTimeoutSeconds ?? (await queueVisibilityTimeout(sqs, queueUrl));
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: options.maxMessages ?? 10,
      WaitTimeSeconds: options.waitTimeSeconds ?? 0,
      VisibilityTimeout: visibilityTimeout,
      MessageSystemAttributeNames: ['MessageGroupId', 'ApproximateReceiveCount'],
    }),
  );
  // SQS starts the visibility timeout when it answers, just before this.
  const claimExpiresAt = Math.floor(Date.now() / 1000) + visibilityTimeout;
  const result = await options.consumer.process(Messages.map(fromSqsMessage), { claimExpiresAt });
  const failedIds = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
  const entries = (messages: Message[]) => messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' }));
  const done = Messages.filter((m) => !failedIds.has(m.MessageId ?? ''));
  const failed = Messages.filter((m) => failedIds.has(m.MessageId ?? ''));
  // A message SQS failed to delete comes back, and the inbox acknowledges it then as a duplicate.
  const notDeleted =
    done.length === 0
      ? 0
      : ((await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries(done) }))).Failed?.length ?? 0);
  if (failed.length > 0 && options.retryDelaySeconds !== undefined) {
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queueUrl,
        Entries: entries(failed).map((e) => ({ ...e, VisibilityTimeout: options.retryDelaySeconds })),
      }),
    );
  }
  return { received: Messages.length, acknowledged: done.length - notDeleted, failed: failed.length, result };
}
