import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { ConsumerOptionsError } from '../../shared/consumer/errors.js';

const document = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' }));
const handle = vi.fn();
const consumer = createConsumer({
  name: 'view',
  sources: ['urn:test:shop'],
  handlers: { 'order.placed': { handle } },
  inbox: { document, tableName: 'inbox' },
});
const process = (messageAttributes: unknown) => consumer.process([{ messageId: 'm1', body: '{}', messageAttributes } as never]);

const refusal = async (call: Promise<unknown>): Promise<ConsumerOptionsError> => {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ConsumerOptionsError)) throw new Error(`not refused with a ConsumerOptionsError: ${String(error)}`);
  return error;
};

describe('consumer.process given a message field of the wrong type', () => {
  const given = (fields: Record<string, unknown>) => consumer.process([{ messageId: 'm1', body: '{}', ...fields } as never]);

  it.each([
    [{ messageGroupId: 7 }, 'process.messages[0].messageGroupId', 'got 7; allowed: a non-empty string'],
    [{ messageGroupId: '' }, 'process.messages[0].messageGroupId', 'got ""; allowed: a non-empty string'],
    [{ queueName: null }, 'process.messages[0].queueName', 'got null; allowed: a non-empty string'],
    [{ receiveCount: '3' }, 'process.messages[0].receiveCount', 'got "3"; allowed: a whole number from 1'],
    [{ receiveCount: 0 }, 'process.messages[0].receiveCount', 'got 0; allowed: a whole number from 1'],
  ])('refuses %j, naming the field', async (fields, field, message) => {
    expect(await refusal(given(fields))).toMatchObject({ field, message: expect.stringContaining(message) });
    expect(handle).not.toHaveBeenCalled();
  });
});

describe('consumer.process given message attributes of the wrong shape', () => {
  it('refuses an attribute given as a plain string, naming it, what it got and the shape allowed', async () => {
    expect(await refusal(process({ type: 'order.placed' }))).toMatchObject({
      field: 'process.messages[0].messageAttributes.type',
      message: expect.stringContaining('got "order.placed"; allowed: { dataType, stringValue? }'),
    });
    expect(handle).not.toHaveBeenCalled();
  });

  it('refuses attributes that are no object, an attribute of the SQS SDK, and a value or type that is no string', async () => {
    expect(await refusal(process('type=order.placed'))).toMatchObject({
      field: 'process.messages[0].messageAttributes',
      message: expect.stringContaining('got "type=order.placed"; allowed: an object mapping attribute name to { dataType, stringValue? }'),
    });
    expect(await refusal(process({ type: { DataType: 'String', StringValue: 'order.placed' } }))).toMatchObject({
      field: 'process.messages[0].messageAttributes.type',
      message: expect.stringContaining('an attribute of the SQS SDK (DataType, StringValue)'),
    });
    expect((await refusal(process({ type: { dataType: 'String', stringValue: 7 } }))).field).toBe(
      'process.messages[0].messageAttributes.type.stringValue',
    );
    expect((await refusal(process({ type: { stringValue: 'order.placed' } }))).field).toBe(
      'process.messages[0].messageAttributes.type.dataType',
    );
    expect(handle).not.toHaveBeenCalled();
  });

  it("takes a Lambda SQS record's attributes as they come, binary ones included", async () => {
    const outcomes = await process({
      type: { dataType: 'String', stringValue: 'order.placed', stringListValues: [], binaryListValues: [] },
      blob: { dataType: 'Binary', binaryValue: 'AAE=', stringListValues: [], binaryListValues: [] },
    });
    expect(outcomes.outcomes).toHaveLength(1);
  });
});
