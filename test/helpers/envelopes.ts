import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { v7 as uuidv7 } from 'uuid';
import { envelopeJson } from '../../shared/envelope.js';

export interface EnvelopeSpec {
  readonly id?: string;
  /** @default {@link TEST_SOURCE} */
  readonly source?: string;
  readonly type?: string;
  readonly aggregateType?: string;
  readonly aggregateId?: string;
  readonly sequence?: number;
  readonly sequenceEpoch?: string;
  readonly data?: unknown;
  /** As relays published it before `aggregatesequence`: the position in `sequence`, a number. */
  readonly legacy?: boolean;
}

export const TEST_SOURCE = 'urn:dynamodb-outbox:test';
export const TEST_EPOCH = '2026-01-01T00:00:00.000Z';

/** An outbox envelope as published (JSON text), built by the shared envelope code. */
export function anEnvelope(spec: EnvelopeSpec = {}): { id: string; body: string } {
  const id = spec.id ?? uuidv7();
  const body = envelopeJson(
    {
      source: spec.source ?? TEST_SOURCE,
      aggregateType: spec.aggregateType ?? 'order',
      aggregateId: spec.aggregateId ?? 'o-1',
      sequenceEpoch: spec.sequenceEpoch ?? TEST_EPOCH,
    },
    { id, type: spec.type ?? 'order.placed', time: new Date().toISOString(), data: JSON.stringify(spec.data ?? { total: 10 }) },
    spec.sequence ?? 1,
  );
  return { id, body: spec.legacy === true ? legacyForm(body) : body };
}

/** The same envelope as relays wrote it before `aggregatesequence`: that field named `sequence`, in its place. */
const legacyForm = (body: string): string =>
  JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(body)).map(([k, v]) => [k === 'aggregatesequence' ? 'sequence' : k, v])));

/** The topic {@link snsNotification} names by default. */
export const TEST_TOPIC_ARN = 'arn:aws:sns:us-east-1:000000000000:orders';

/** The SNS-enveloped form of a body (a subscription without raw message delivery), with SNS's `MessageAttributes` when given. */
export const snsNotification = (body: string, topicArn = TEST_TOPIC_ARN, attributes?: Record<string, string>): string =>
  JSON.stringify({
    Type: 'Notification',
    MessageId: uuidv7(),
    TopicArn: topicArn,
    Message: body,
    Timestamp: new Date().toISOString(),
    ...(attributes === undefined
      ? {}
      : {
          MessageAttributes: Object.fromEntries(
            Object.entries(attributes).map(([name, value]) => [name, { Type: 'String', Value: value }]),
          ),
        }),
  });

/** A Lambda SQS record; `groupId` makes it a FIFO record. */
export function anSqsRecord(body: string, groupId?: string, messageId: string = uuidv7()): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      ...(groupId === undefined ? {} : { MessageGroupId: groupId, MessageDeduplicationId: messageId }),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${groupId === undefined ? 'queue' : 'queue.fifo'}`,
    awsRegion: 'us-east-1',
  };
}

export const anSqsEvent = (records: SQSRecord[]): SQSEvent => ({ Records: records });
