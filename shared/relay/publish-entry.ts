import type { PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import type { TopicConfig } from '../config.js';
import { MAX_MESSAGE_BYTES, messageAttributes, messageSize, type SlotMessage } from '../envelope.js';

/** SNS PublishBatch limits. */
export const MAX_BATCH_ENTRIES = 10;
export const MAX_BATCH_BYTES = MAX_MESSAGE_BYTES;

/** FIFO message group: one per aggregate, so SNS keeps each aggregate's order and no other. */
export const messageGroupId = (message: Pick<SlotMessage, 'aggregateType' | 'aggregateId'>): string =>
  `${message.aggregateType}#${message.aggregateId}`;

/** Bytes the message counts against the message and batch limits. */
export const entrySize = (message: SlotMessage): number => messageSize(message.body, message.type, message.aggregateType);

/** One `PublishBatch` entry; on FIFO topics the event id deduplicates republished events. */
export function publishEntry(message: SlotMessage, topic: Required<TopicConfig>, entryId: string): PublishBatchRequestEntry {
  return {
    Id: entryId,
    Message: message.body,
    MessageAttributes: messageAttributes(message.type, message.aggregateType),
    ...(topic.fifo ? { MessageGroupId: messageGroupId(message), MessageDeduplicationId: message.id } : {}),
  };
}
