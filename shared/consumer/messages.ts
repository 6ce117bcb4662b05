import type { Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { ConsumerMessage, MessageAttribute } from './types.js';

/** Attributes in the consumer's shape: data type and string value (binary ones keep their type only). */
function attributesOf(
  attributes:
    | Record<
        string,
        { readonly dataType?: string; readonly DataType?: string; readonly stringValue?: string; readonly StringValue?: string }
      >
    | undefined,
): Record<string, MessageAttribute> | undefined {
  if (attributes === undefined) return undefined;
  const result: Record<string, MessageAttribute> = {};
  for (const [name, value] of Object.entries(attributes)) {
    const stringValue = value.stringValue ?? value.StringValue;
    result[name] = { dataType: value.dataType ?? value.DataType ?? 'String', ...(stringValue === undefined ? {} : { stringValue }) };
  }
  return result;
}

/** The last part of a queue's ARN or URL: its name. */
export const queueNameOf = (arnOrUrl: string | undefined): string | undefined => {
  const name = arnOrUrl?.split(/[:/]/).pop();
  return name === undefined || name === '' ? undefined : name;
};

/** A record of an SQS-triggered Lambda's event as a {@link ConsumerMessage}. */
export function fromSqsRecord(record: SQSRecord): ConsumerMessage {
  const receiveCount = Number(record.attributes.ApproximateReceiveCount);
  const messageAttributes = attributesOf(record.messageAttributes);
  const queueName = queueNameOf(record.eventSourceARN);
  return {
    messageId: record.messageId,
    body: record.body,
    ...(record.attributes.MessageGroupId === undefined ? {} : { messageGroupId: record.attributes.MessageGroupId }),
    ...(Number.isInteger(receiveCount) ? { receiveCount } : {}),
    ...(messageAttributes === undefined ? {} : { messageAttributes }),
    ...(queueName === undefined ? {} : { queueName }),
  };
}

/**
 * A message from `ReceiveMessage` as a {@link ConsumerMessage}. Ask for
 * `MessageSystemAttributeNames: ['MessageGroupId', 'ApproximateReceiveCount']` so FIFO groups are
 * kept, and `MessageAttributeNames: ['type', 'aggregatetype', 'content-type', 'outbox-replay']` so they are checked against the envelope
 * and a replayed message is told apart.
 */
export function fromSqsMessage(message: Message): ConsumerMessage {
  const attributes = message.Attributes ?? {};
  const receiveCount = Number(attributes.ApproximateReceiveCount);
  const messageAttributes = attributesOf(message.MessageAttributes);
  return {
    messageId: message.MessageId ?? '',
    body: message.Body ?? '',
    ...(attributes.MessageGroupId === undefined ? {} : { messageGroupId: attributes.MessageGroupId }),
    ...(Number.isInteger(receiveCount) ? { receiveCount } : {}),
    ...(messageAttributes === undefined ? {} : { messageAttributes }),
  };
}
