import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Consumer } from './consumer.js';
import { fromSqsMessage } from './messages.js';
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
   * Make failed messages visible again after this many seconds instead of the queue's visibility
   * timeout. @default undefined — the queue's visibility timeout, as Lambda does
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

/**
 * One receive → process → acknowledge round on an SQS queue, with the same semantics as an
 * SQS-triggered Lambda with `ReportBatchItemFailures`: acknowledged messages are deleted, the
 * others stay on the queue and come back (to the DLQ after `maxReceiveCount`).
 *
 * @example
 * ```ts
 * while (!stopped) await pollOnce({ sqs, queueUrl, consumer, waitTimeSeconds: 20 });
 * ```
 */
export async function pollOnce(options: PollOptions): Promise<PollResult> {
  const { Messages = [] } = await options.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: options.queueUrl,
      MaxNumberOfMessages: options.maxMessages ?? 10,
      WaitTimeSeconds: options.waitTimeSeconds ?? 0,
      MessageSystemAttributeNames: ['MessageGroupId', 'ApproximateReceiveCount'],
    }),
  );
  const result = await options.consumer.process(Messages.map(fromSqsMessage));
  const failedIds = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
  const entries = (messages: Message[]) => messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' }));
  const done = Messages.filter((m) => !failedIds.has(m.MessageId ?? ''));
  const failed = Messages.filter((m) => failedIds.has(m.MessageId ?? ''));
  // A message SQS failed to delete comes back, and the inbox acknowledges it then as a duplicate.
  const notDeleted =
    done.length === 0
      ? 0
      : ((await options.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: entries(done) }))).Failed?.length ??
        0);
  if (failed.length > 0 && options.retryDelaySeconds !== undefined) {
    await options.sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: entries(failed).map((e) => ({ ...e, VisibilityTimeout: options.retryDelaySeconds })),
      }),
    );
  }
  return { received: Messages.length, acknowledged: done.length - notDeleted, failed: failed.length, result };
}
