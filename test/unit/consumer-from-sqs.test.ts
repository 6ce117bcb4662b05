import type { Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { fromSqsMessage, fromSqsRecord } from '../../shared/consumer/messages.js';
import { validateMessages } from '../../shared/consumer/options.js';

const record = (attributes: Record<string, string>): SQSRecord =>
  ({
    messageId: 'm-1',
    receiptHandle: 'r',
    body: '{}',
    attributes: { ApproximateFirstReceiveTimestamp: '1', SenderId: 's', SentTimestamp: '1', ...attributes },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:orders',
    awsRegion: 'us-east-1',
  }) as unknown as SQSRecord;

const message = (attributes: Record<string, string>): Message => ({ MessageId: 'm-1', Body: '{}', Attributes: attributes });

describe('fromSqsRecord and fromSqsMessage take ApproximateReceiveCount as consumer.process does', () => {
  it.each(['', ' ', '0', '-1', '2.5', '1e3', '0x10', ' 3', 'three', '9007199254740993'])(
    'leave out a receive count of %j, no whole number from 1 in digits as SQS writes it, so process still takes the message',
    (count) => {
      for (const converted of [
        fromSqsRecord(record({ ApproximateReceiveCount: count })),
        fromSqsMessage(message({ ApproximateReceiveCount: count })),
      ]) {
        expect(converted).not.toHaveProperty('receiveCount');
        expect(() => validateMessages([converted])).not.toThrow();
      }
    },
  );

  it.each([
    ['1', 1],
    ['3', 3],
    ['1000', 1000],
  ])('take %j as %d', (count, expected) => {
    expect(fromSqsRecord(record({ ApproximateReceiveCount: count })).receiveCount).toBe(expected);
    expect(fromSqsMessage(message({ ApproximateReceiveCount: count })).receiveCount).toBe(expected);
  });

  it('leave out an empty MessageGroupId, which process would refuse', () => {
    for (const converted of [
      fromSqsRecord(record({ ApproximateReceiveCount: '1', MessageGroupId: '' })),
      fromSqsMessage(message({ ApproximateReceiveCount: '1', MessageGroupId: '' })),
    ]) {
      expect(converted).not.toHaveProperty('messageGroupId');
      expect(() => validateMessages([converted])).not.toThrow();
    }
    expect(fromSqsRecord(record({ MessageGroupId: 'o-1' })).messageGroupId).toBe('o-1');
  });
});
