import { createHash } from 'node:crypto';
import type { PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import type { TopicSettings } from '../config.js';
import {
  BATCH_ATTRIBUTE_BYTES,
  batchBody,
  batchMessageAttributes,
  MAX_MESSAGE_BYTES,
  messageAttributes,
  messageSize,
  type SlotMessage,
} from '../envelope.js';

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

/** Bytes the message counts against the message and batch limits, its trace attributes included. */
export const entrySize = (message: SlotMessage): number => messageSize(message.body, message.type, message.aggregateType, message);

/** One `PublishBatch` entry; on FIFO topics the event id deduplicates republished events. */
export function publishEntry(message: SlotMessage, topic: TopicSettings, entryId: string): PublishBatchRequestEntry {
  return {
    Id: entryId,
    Message: message.body,
    MessageAttributes: messageAttributes(message.type, message.aggregateType, message),
    ...(topic.fifo ? { MessageGroupId: messageGroupId(message), MessageDeduplicationId: message.id } : {}),
  };
}

/**
 * Bytes a batch message of these events (alike in type and aggregate) counts against the limit:
 * the envelopes, the array's brackets and commas, and the attributes with `content-type`. A
 * batch message carries no trace attributes: its events come from different writes, and each
 * envelope holds its own trace context.
 */
export function batchSize(messages: readonly SlotMessage[]): number {
  const first = messages[0]!;
  let bytes = BATCH_ATTRIBUTE_BYTES + messages.length + 1 + messageSize('', first.type, first.aggregateType);
  for (const message of messages) bytes += Buffer.byteLength(message.body);
  return bytes;
}

/**
 * The deduplication id of a batch message: the SHA-256 of its events' ids in order, so the same
 * events always make the same id (a retry of the message is deduplicated by SNS), and a message
 * of other events (a split, a longer run) never shares it.
 */
export const batchDeduplicationId = (messages: readonly SlotMessage[]): string =>
  `batch:${createHash('sha256')
    .update(messages.map((m) => m.id).join('\n'))
    .digest('base64url')}`;

/**
 * One `PublishBatch` entry carrying several consecutive events of one aggregate, as one CloudEvents
 * batch message; one event makes a plain entry ({@link publishEntry}), exactly as without batching.
 */
export function batchEntry(messages: readonly SlotMessage[], topic: TopicSettings, entryId: string): PublishBatchRequestEntry {
  const first = messages[0]!;
  if (messages.length === 1) return publishEntry(first, topic, entryId);
  return {
    Id: entryId,
    Message: batchBody(messages.map((m) => m.body)),
    MessageAttributes: batchMessageAttributes(first.type, first.aggregateType),
    ...(topic.fifo ? { MessageGroupId: messageGroupId(first), MessageDeduplicationId: batchDeduplicationId(messages) } : {}),
  };
}
