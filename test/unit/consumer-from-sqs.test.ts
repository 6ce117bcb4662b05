import type { Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ConsumerOptionsError } from '../../shared/consumer/errors.js';
import { validateMessages } from '../../shared/consumer/message-checks.js';
import { fromSqsMessage, fromSqsRecord } from '../../shared/consumer/messages.js';

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

describe('fromSqsRecord and fromSqsMessage refuse what Lambda and SQS never hand out, as consumer.process does', () => {
  const refusal = (convert: () => unknown): { field: string; message: string } => {
    try {
      convert();
    } catch (error) {
      if (error instanceof ConsumerOptionsError) return { field: error.field, message: error.message };
      throw error;
    }
    throw new Error('converted without a refusal');
  };

  it('fromSqsMessage: a message without Body is refused, not taken for an empty body (rejected as INVALID_JSON, to the DLQ)', () => {
    expect(refusal(() => fromSqsMessage({ MessageId: 'm-1' }))).toEqual({
      field: 'fromSqsMessage.message.Body',
      message:
        'Invalid consumer option fromSqsMessage.message.Body: got undefined; allowed: a string (the message body as text: JSON.stringify an envelope object)',
    });
    expect(refusal(() => fromSqsMessage({ Body: '{}' })).field).toBe('fromSqsMessage.message.MessageId');
  });

  it('fromSqsMessage: an attribute without DataType is refused, not taken for a String (a replay marker read from it)', () => {
    const marked = { MessageId: 'm-1', Body: '{}', MessageAttributes: { 'outbox-replay': { StringValue: 'r-1' } } } as unknown as Message;
    expect(refusal(() => fromSqsMessage(marked))).toMatchObject({
      field: 'fromSqsMessage.message.MessageAttributes.outbox-replay.DataType',
      message: expect.stringContaining('got undefined; allowed: a string such as "String"'),
    });
    const typed = { ...marked, MessageAttributes: { 'outbox-replay': { DataType: 'String', StringValue: 'r-1' } } };
    expect(fromSqsMessage(typed).messageAttributes).toEqual({ 'outbox-replay': { dataType: 'String', stringValue: 'r-1' } });
  });

  it('fromSqsRecord: a record that is null, or without body, is refused with ConsumerOptionsError instead of a TypeError', () => {
    expect(refusal(() => fromSqsRecord(null as never))).toMatchObject({
      field: 'fromSqsRecord.record',
      message: expect.stringContaining('got null'),
    });
    expect(refusal(() => fromSqsRecord({ ...record({}), body: undefined } as never)).field).toBe('fromSqsRecord.record.body');
  });

  it('fromSqsRecord: a record without attributes is a record without group or receive count, as a message without Attributes', () => {
    const { attributes: _, ...bare } = record({});
    expect(fromSqsRecord(bare as SQSRecord)).toEqual({ messageId: 'm-1', body: '{}', messageAttributes: {}, queueName: 'orders' });
    expect(fromSqsMessage({ MessageId: 'm-1', Body: '{}' })).toEqual({ messageId: 'm-1', body: '{}' });
  });

  it('consumer.process: a hole in the list of messages is refused, not passed over without an outcome', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is what is checked
    expect(refusal(() => validateMessages([{ messageId: 'm-1', body: '{}' }, , { messageId: 'm-3', body: '{}' }])).field).toBe(
      'process.messages[1]',
    );
  });
});
