import { createHash } from 'node:crypto';
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { sqsMessageFault } from '../../consumer/message-checks.js';
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

/**
 * What is wrong with `message` of what SQS always sends (an id, a receipt handle, a body, each
 * attribute's type, …), as a refusal says it: the rule `fromSqsMessage` reads a message by.
 */
function messageFault(message: Message): string | undefined {
  const fault = sqsMessageFault(message, { receiptHandle: true });
  if (fault === undefined) return undefined;
  return `${fault.path === '' ? 'it' : `its ${fault.path}`} is ${fault.got}; allowed: ${fault.allowed}`;
}

/**
 * The refusal of a received message SQS would not send (no `MessageId`, `ReceiptHandle` or
 * `Body`, an attribute without its `DataType`, …), naming the queue, the message, its field at
 * fault with what is allowed there (once: not all of them are fields SQS always sends)
 * and, on a FIFO queue, the later messages of the batch left with it (`held`; `groupKnown`
 * false when its group is not known, so every later message is): it is not made a record with a
 * made-up id, body or type.
 */
function sqsMessageRefusal(
  message: Message,
  queueArn: string,
  fault: string,
  held: readonly Message[],
  groupKnown: boolean,
): LocalStackError {
  const named =
    typeof message.MessageId === 'string'
      ? `message ${showValue(message.MessageId)}`
      : `a message (ReceiptHandle ${showValue(message.ReceiptHandle)})`;
  const ids = `${held.length}: ${held.map((m) => showValue(m.MessageId)).join(', ')}`;
  const left =
    held.length === 0
      ? ''
      : groupKnown
        ? `; the later messages of its message group in this batch (${ids}) are left with it, in their order, as a FIFO queue keeps them`
        : `; its MessageGroupId is not known, so the later messages of this batch (${ids}) are left with it, in their order, as a FIFO queue keeps them`;
  return new LocalStackError(
    'MALFORMED_MESSAGE',
    `the queue ${queueArn} returned ${named}, which SQS would not send: ${fault}. It is not handed to the handler, nor deleted: it comes back after its visibility timeout, and moves to the queue's DLQ after maxReceiveCount receives${left}`,
  );
}

/**
 * A received SQS message in which {@link messageFault} finds nothing amiss, as the record of an SQS-triggered
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
 * On a FIFO queue, a refused message holds back the later messages of its message group in
 * the batch (every later message when its group is not known): handled before it, they would
 * overtake it; left in the queue with it, they come back after it.
 */
export function toSqsRecords(messages: readonly Message[], queueArn: string): { records: SQSRecord[]; refused: LocalStackError[] } {
  const fifo = queueArn.endsWith('.fifo');
  const records: SQSRecord[] = [];
  const refusals: { message: Message; fault: string; held: Message[]; groupKnown: boolean }[] = [];
  /** On a FIFO queue: the refusal holding back each message group, and the one holding back every message. */
  const holding = new Map<string, (typeof refusals)[number]>();
  let holdingAll: (typeof refusals)[number] | undefined;
  for (const message of messages) {
    const group = message.Attributes?.MessageGroupId;
    const holder = fifo ? (holdingAll ?? (group === undefined ? undefined : holding.get(group))) : undefined;
    const fault = messageFault(message);
    if (fault !== undefined) {
      const refusal = { message, fault, held: [], groupKnown: group !== undefined };
      refusals.push(refusal);
      if (fifo && holder === undefined) {
        if (group === undefined) holdingAll = refusal;
        else holding.set(group, refusal);
      }
    } else if (holder !== undefined) holder.held.push(message);
    else records.push(toSqsRecord(message, queueArn));
  }
  const refused = refusals.map(({ message, fault, held, groupKnown }) => sqsMessageRefusal(message, queueArn, fault, held, groupKnown));
  return { records, refused };
}
