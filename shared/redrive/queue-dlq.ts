import { randomUUID } from 'node:crypto';
import { type Message, type MessageAttributeValue, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { drainQueue } from './drain-queue.js';
import { RedriveOptionsError } from './errors.js';
import type { RedriveCommonOptions, RedriveSummary } from './types.js';

export interface QueueDlqRedriveOptions extends RedriveCommonOptions {
  readonly sqs: SQSClient;
  /** URL of the subscriber's dead-letter queue. */
  readonly queueUrl: string;
  /** URL of the queue the messages came from. */
  readonly targetQueueUrl: string;
}

interface Planned {
  readonly body: string;
  readonly attributes?: Record<string, MessageAttributeValue>;
  readonly groupId?: string;
}

const isFifoQueueUrl = (url: string): boolean => url.endsWith('.fifo');

/**
 * Moves a subscriber DLQ's messages back to their source queue: same body, message attributes
 * and (FIFO) message group; each is deleted from the DLQ only after the send succeeded.
 *
 * A FIFO send gets a fresh deduplication id: the original one may still be inside the queue's
 * five-minute window, where SQS would accept the message and silently drop it. A crash between
 * send and delete can therefore deliver a message twice, which the consumer's inbox absorbs.
 *
 * @example
 * ```ts
 * await redriveQueueDlq({ sqs, queueUrl: dlqUrl, targetQueueUrl: sourceUrl, dryRun: true });
 * ```
 */
export async function redriveQueueDlq(options: QueueDlqRedriveOptions): Promise<RedriveSummary> {
  if (options.targetQueueUrl === options.queueUrl) {
    throw new RedriveOptionsError('targetQueueUrl', `is the DLQ itself (${options.queueUrl}); allowed: the source queue the DLQ serves`);
  }
  if (isFifoQueueUrl(options.targetQueueUrl) !== isFifoQueueUrl(options.queueUrl)) {
    throw new RedriveOptionsError(
      'targetQueueUrl',
      `${options.targetQueueUrl} and ${options.queueUrl} differ in kind; allowed: FIFO to FIFO or standard to standard`,
    );
  }
  const fifo = isFifoQueueUrl(options.targetQueueUrl);
  return drainQueue<Planned>({
    ...options,
    target: options.targetQueueUrl,
    plan: (message: Message) => {
      const groupId = message.Attributes?.MessageGroupId;
      if (fifo && groupId === undefined) return { status: 'skip', reason: 'FIFO message without a MessageGroupId' };
      return {
        status: 'republish',
        units: 1,
        item: {
          body: message.Body ?? '',
          ...(message.MessageAttributes === undefined ? {} : { attributes: message.MessageAttributes }),
          ...(groupId === undefined ? {} : { groupId }),
        },
      };
    },
    republish: async (items) => {
      const output = await options.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: options.targetQueueUrl,
          Entries: items.map(({ item }, i) => ({
            Id: String(i),
            MessageBody: item.body,
            ...(item.attributes === undefined ? {} : { MessageAttributes: item.attributes }),
            ...(fifo ? { MessageGroupId: item.groupId, MessageDeduplicationId: randomUUID() } : {}),
          })),
        }),
      );
      return {
        succeeded: (output.Successful ?? []).map((s) => items[Number(s.Id)]?.messageId ?? ''),
        failed: (output.Failed ?? []).map((f) => ({
          id: items[Number(f.Id)]?.messageId ?? '',
          reason: `${f.Code}: ${f.Message ?? 'send failed'}`,
        })),
      };
    },
  });
}
