import { createHash } from 'node:crypto';
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { LOCAL_REGION } from '../clients.js';

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
      dataType: value.DataType ?? 'String',
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((b) => Buffer.from(b).toString('base64')),
      ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
    };
  }
  return result;
}

/**
 * A received SQS message as the record of an SQS-triggered Lambda's `SQSEvent`: camel-cased
 * fields, system attributes as strings, message attributes in Lambda's shape (binary as base64).
 */
export function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const body = message.Body ?? '';
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
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
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
