import type { Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { ConsumerMessage } from './types.js';

/** A record of an SQS-triggered Lambda's event as a {@link ConsumerMessage}. */
export function fromSqsRecord(record: SQSRecord): ConsumerMessage {
  const receiveCount = Number(record.attributes.ApproximateReceiveCount);
  return {
    messageId: record.messageId,
    body: record.body,
    ...(record.attributes.MessageGroupId === undefined ? {} : { messageGroupId: record.attributes.MessageGroupId }),
    ...(Number.isInteger(receiveCount) ? { receiveCount } : {}),
  };
}

/**
 * A message from `ReceiveMessage` as a {@link ConsumerMessage}. Ask for
 * `MessageSystemAttributeNames: ['MessageGroupId', 'ApproximateReceiveCount']` so FIFO groups are kept.
 */
export function fromSqsMessage(message: Message): ConsumerMessage {
  const attributes = message.Attributes ?? {};
  const receiveCount = Number(attributes.ApproximateReceiveCount);
  return {
    messageId: message.MessageId ?? '',
    body: message.Body ?? '',
    ...(attributes.MessageGroupId === undefined ? {} : { messageGroupId: attributes.MessageGroupId }),
    ...(Number.isInteger(receiveCount) ? { receiveCount } : {}),
  };
}
