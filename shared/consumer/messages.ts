import type { Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { checkRecord, checkSqsMessage } from './message-checks.js';
import type { ConsumerMessage, MessageAttribute } from './types.js';

/** Attributes in the consumer's shape: data type and string value (binary ones keep their type only); checked before. */
function attributesOf(
  attributes: Record<string, { readonly dataType?: string; readonly stringValue?: string | null }> | undefined,
): Record<string, MessageAttribute> | undefined {
  if (attributes === undefined) return undefined;
  const result: Record<string, MessageAttribute> = {};
  // A record's null stringValue (a binary attribute's, as Lambda writes it) is none.
  for (const [name, { dataType = '', stringValue }] of Object.entries(attributes)) {
    result[name] = { dataType, ...(stringValue === undefined || stringValue === null ? {} : { stringValue }) };
  }
  return result;
}

/**
 * A message given to `consumer.process`, checked already (`validateMessages`), with an attribute's
 * `null` stringValue (a binary one's, as a Lambda record carries it) left out: the consumer reads
 * none there. The message itself when it has no such attribute.
 */
export function withoutNullValues(message: ConsumerMessage): ConsumerMessage {
  const attributes: Readonly<Record<string, { readonly stringValue?: string | null }>> | undefined = message.messageAttributes;
  if (attributes === undefined || !Object.values(attributes).some((attribute) => attribute.stringValue === null)) return message;
  return { ...message, messageAttributes: attributesOf(message.messageAttributes) };
}

/** A message of the SQS SDK's attributes in the shape of a Lambda record's. */
const sdkAttributes = (attributes: Message['MessageAttributes']) =>
  attributes === undefined
    ? undefined
    : Object.fromEntries(
        Object.entries(attributes).map(([name, { DataType, StringValue }]) => [name, { dataType: DataType, stringValue: StringValue }]),
      );

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

/** A record of an SQS event, checked already (`validateRecords`), as a {@link ConsumerMessage}. */
export function messageOfRecord(record: SQSRecord): ConsumerMessage {
  const messageAttributes = attributesOf(record.messageAttributes);
  const queueName = queueNameOf(record.eventSourceARN);
  const attributes: Partial<SQSRecord['attributes']> = record.attributes ?? {};
  return {
    messageId: record.messageId,
    body: record.body,
    ...groupOf(attributes.MessageGroupId),
    ...receiveCountOf(attributes.ApproximateReceiveCount),
    ...(messageAttributes === undefined ? {} : { messageAttributes }),
    ...(queueName === undefined ? {} : { queueName }),
  };
}

/**
 * A record of an SQS-triggered Lambda's event as a {@link ConsumerMessage}. A record Lambda would
 * not build (no string `messageId` or `body`, an attribute without its `dataType`) throws
 * `ConsumerOptionsError`, as `consumer.handler` and `consumer.process` refuse it.
 */
export function fromSqsRecord(record: SQSRecord): ConsumerMessage {
  checkRecord(record, 'fromSqsRecord.record');
  return messageOfRecord(record);
}

/**
 * A message from `ReceiveMessage` as a {@link ConsumerMessage}. Ask for
 * `MessageSystemAttributeNames: ['MessageGroupId', 'ApproximateReceiveCount']` so FIFO groups are
 * kept, and `MessageAttributeNames: ['type', 'aggregatetype', 'content-type', 'outbox-replay', 'traceparent', 'tracestate']` so they are
 * checked against the envelope, a replayed message is told apart, and a message whose body cannot be read is traced. A message SQS would not send (no `MessageId` or `Body`,
 * an attribute without its `DataType`) throws `ConsumerOptionsError`, as `consumer.process`
 * refuses such a message: a missing body is not taken for an empty one.
 */
export function fromSqsMessage(message: Message): ConsumerMessage {
  checkSqsMessage(message, 'fromSqsMessage.message');
  const attributes = message.Attributes ?? {};
  const messageAttributes = attributesOf(sdkAttributes(message.MessageAttributes));
  return {
    messageId: message.MessageId as string,
    body: message.Body as string,
    ...groupOf(attributes.MessageGroupId),
    ...receiveCountOf(attributes.ApproximateReceiveCount),
    ...(messageAttributes === undefined ? {} : { messageAttributes }),
  };
}
