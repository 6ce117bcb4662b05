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

/**
 * `ApproximateReceiveCount` as `consumer.process` takes `receiveCount`: a whole number from 1,
 * written in decimal digits as SQS writes it; anything else (`''`, which `Number` reads as 0,
 * `'0'`, `'1e3'`) is left out, as a message without the attribute, not refused with the batch.
 */
function receiveCountOf(value: string | undefined): { receiveCount?: number } {
  if (value === undefined || !/^[1-9][0-9]{0,15}$/.test(value)) return {};
  const receiveCount = Number(value);
  return Number.isSafeInteger(receiveCount) ? { receiveCount } : {};
}

/** `MessageGroupId` as `consumer.process` takes `messageGroupId`: an empty one is left out, as it refuses one. */
const groupOf = (value: string | undefined): { messageGroupId?: string } =>
  value === undefined || value === '' ? {} : { messageGroupId: value };

/** A record of an SQS-triggered Lambda's event as a {@link ConsumerMessage}. */
export function fromSqsRecord(record: SQSRecord): ConsumerMessage {
  const messageAttributes = attributesOf(record.messageAttributes);
  const queueName = queueNameOf(record.eventSourceARN);
  return {
    messageId: record.messageId,
    body: record.body,
    ...groupOf(record.attributes.MessageGroupId),
    ...receiveCountOf(record.attributes.ApproximateReceiveCount),
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
  const messageAttributes = attributesOf(message.MessageAttributes);
  return {
    messageId: message.MessageId ?? '',
    body: message.Body ?? '',
    ...groupOf(attributes.MessageGroupId),
    ...receiveCountOf(attributes.ApproximateReceiveCount),
    ...(messageAttributes === undefined ? {} : { messageAttributes }),
  };
}
