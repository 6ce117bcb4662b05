import { createHash } from 'node:crypto';
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { showValue } from '../../show-value.js';
import { LOCAL_REGION } from '../clients.js';
import { LocalStackError } from '../errors.js';

/** The system attributes an SQS event source mapping asks for, so records carry what Lambda's do. */
export const SQS_RECORD_SYSTEM_ATTRIBUTES = [
  'ApproximateReceiveCount',
  'SentTimestamp',
  'SenderId',
  'ApproximateFirstReceiveTimestamp',
  'SequenceNumber',
  'MessageGroupId',
  'MessageDeduplicationId',
  'AWSTraceHeader',
] as const;

function messageAttributes(attributes: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes {
  const result: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    result[name] = {
      dataType: value.DataType as string,
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((b) => Buffer.from(b).toString('base64')),
      ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
    };
  }
  return result;
}

/** What `message` lacks of what SQS always sends (an id, a receipt handle, a body, each attribute's type), as a refusal says it. */
function messageFault(message: Message): string | undefined {
  for (const key of ['MessageId', 'ReceiptHandle', 'Body'] as const) {
    if (typeof message[key] !== 'string') return `its ${key} is ${showValue(message[key])}; allowed: a string`;
  }
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    const dataType = (value as MessageAttributeValue | undefined)?.DataType;
    if (typeof dataType !== 'string') {
      return `its MessageAttributes.${name}.DataType is ${showValue(dataType)}; allowed: a string such as "String"`;
    }
  }
  return undefined;
}

/**
 * A received message SQS would not send (no `MessageId`, `ReceiptHandle` or `Body`, an attribute
 * without its `DataType`), refused naming the queue and the message, or `undefined`: it is not
 * made a record with a made-up id, body or type.
 */
function sqsMessageRefusal(message: Message, queueArn: string): LocalStackError | undefined {
  const fault = messageFault(message);
  if (fault === undefined) return undefined;
  const named =
    typeof message.MessageId === 'string'
      ? `message ${showValue(message.MessageId)}`
      : `a message (ReceiptHandle ${showValue(message.ReceiptHandle)})`;
  return new LocalStackError(
    'MALFORMED_MESSAGE',
    `the queue ${queueArn} returned ${named}, which SQS would not send: ${fault}, as SQS always sends it. It is not handed to the handler, nor deleted: it comes back after its visibility timeout, and moves to the queue's DLQ after maxReceiveCount receives`,
  );
}

/**
 * A received SQS message, one {@link sqsMessageRefusal} takes, as the record of an SQS-triggered
 * Lambda's `SQSEvent`: camel-cased fields, system attributes as strings, message attributes in
 * Lambda's shape (binary as base64).
 */
function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const body = message.Body as string;
  const system = message.Attributes ?? {};
  const attributes: SQSRecord['attributes'] = {
    ApproximateReceiveCount: system.ApproximateReceiveCount ?? '1',
    SentTimestamp: system.SentTimestamp ?? String(Date.now()),
    SenderId: system.SenderId ?? 'LOCAL',
    ApproximateFirstReceiveTimestamp: system.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
  };
  for (const name of ['SequenceNumber', 'MessageGroupId', 'MessageDeduplicationId', 'AWSTraceHeader'] as const) {
    if (system[name] !== undefined) attributes[name] = system[name];
  }
  return {
    messageId: message.MessageId as string,
    receiptHandle: message.ReceiptHandle as string,
    body,
    attributes,
    messageAttributes: messageAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? createHash('md5').update(body).digest('hex'),
    ...(message.MD5OfMessageAttributes === undefined ? {} : { md5OfMessageAttributes: message.MD5OfMessageAttributes }),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] || LOCAL_REGION,
  };
}

/**
 * The records of a batch of received messages, and the refusals of those SQS would not send
 * ({@link sqsMessageRefusal}): as an event source mapping, the others are handled without them.
 */
export function toSqsRecords(messages: readonly Message[], queueArn: string): { records: SQSRecord[]; refused: LocalStackError[] } {
  const records: SQSRecord[] = [];
  const refused: LocalStackError[] = [];
  for (const message of messages) {
    const refusal = sqsMessageRefusal(message, queueArn);
    if (refusal === undefined) records.push(toSqsRecord(message, queueArn));
    else refused.push(refusal);
  }
  return { records, refused };
}
