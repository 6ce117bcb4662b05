import { createHash } from 'node:crypto';
import type { PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import type { TopicConfig } from '../config.js';
import { MAX_MESSAGE_BYTES, messageAttributes, messageSize, type SlotMessage } from '../envelope.js';

/** SNS PublishBatch limits. */
export const MAX_BATCH_ENTRIES = 10;
export const MAX_BATCH_BYTES = MAX_MESSAGE_BYTES;

/** What SNS and SQS accept as a `MessageGroupId`: 1–128 alphanumeric or punctuation characters (printable ASCII, no space). */
const VALID_GROUP_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * FIFO message group: one per aggregate, so SNS keeps each aggregate's order and no other. It
 * is `<aggregateType>#<aggregateId>` whenever SNS accepts that; an id SNS would reject (over 128
 * characters with its type, or with a space or a non-ASCII character, all of which the write
 * helper allows) gets `sha256:` and the base64url SHA-256 of that text instead: still one group
 * per aggregate, always the same, and never equal to a readable one (which always has a `#`).
 */
export function messageGroupId(message: Pick<SlotMessage, 'aggregateType' | 'aggregateId'>): string {
  const readable = `${message.aggregateType}#${message.aggregateId}`;
  return VALID_GROUP_ID.test(readable) ? readable : `sha256:${createHash('sha256').update(readable).digest('base64url')}`;
}

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
