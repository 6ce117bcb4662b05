import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Inbox } from '../../shared/consumer/inbox.js';
import { TransactionFailedError } from '../../shared/errors.js';
import { Outbox } from '../../shared/write/index.js';
import { orderEvent, testConfig } from '../helpers/factories.js';

/** A cancellation with one reason per action sent. */
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code, ...(Code === 'None' ? {} : { Message: `${Code} here` }) })),
  });

/** A DocumentClient whose every request fails with `error`, counting them. */
function failingClient(error: Error) {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
  );
  let sent = 0;
  client.send = (async () => {
    sent++;
    throw error;
  }) as typeof client.send;
  return { client, sent: () => sent };
}

describe('a cancellation with a permanent and a transient reason', () => {
  it("fails an inbox commit with TRANSACTION_FAILED naming the handler's failed condition, not as a conflict to retry", async () => {
    const { client } = failingClient(cancelled('ConditionalCheckFailed', 'ThrottlingError', 'None'));
    const inbox = new Inbox('billing', { document: client, tableName: 't' });
    const writes = [
      { ConditionCheck: { TableName: 't', Key: { pk: 'ORDER#1', sk: 'ORDER' }, ConditionExpression: 'attribute_exists(pk)' } },
      {
        Update: {
          TableName: 't',
          Key: { pk: 'COUNT#1', sk: 'COUNT' },
          UpdateExpression: 'ADD n :one',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
    ];

    const failure = await inbox.commit({ id: 'evt-1', source: 'urn:test', type: 'order.placed' }, writes).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(TransactionFailedError);
    expect(failure).toMatchObject({
      code: 'TRANSACTION_FAILED',
      failures: [
        { index: 0, kind: 'ConditionCheck', reason: 'ConditionalCheckFailed' },
        { index: 1, kind: 'Update', reason: 'ThrottlingError' },
      ],
    });
  });

  it('fails a write at once, listing every action that failed for good, an outbox slot beside an operation', async () => {
    const fake = failingClient(cancelled('ConditionalCheckFailed', 'ValidationError', 'TransactionConflict'));
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client: fake.client });

    const failure = await outbox
      .write({ operations: [{ Put: { Item: { pk: 'ORDER#o-1', sk: 'ORDER' } } }], events: [orderEvent('o-1'), orderEvent('o-2')] })
      .catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(TransactionFailedError);
    expect((failure as TransactionFailedError).failures).toEqual([
      { index: 0, kind: 'Put', reason: 'ConditionalCheckFailed', message: 'ConditionalCheckFailed here' },
      { index: -1, kind: 'outbox slot of order/o-1', reason: 'ValidationError', message: 'ValidationError here' },
    ]);
    expect(fake.sent()).toBe(1);
  });

  it('keeps an empty reason message alike for an operation and an outbox slot', async () => {
    const reasons = [
      { Code: 'ConditionalCheckFailed', Message: '' },
      { Code: 'ValidationError', Message: '' },
    ];
    const error = new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons });
    const outbox = new Outbox({ config: testConfig(), tableName: 'orders', client: failingClient(error).client });

    const failure = await outbox
      .write({ operations: [{ Put: { Item: { pk: 'ORDER#o-1', sk: 'ORDER' } } }], events: [orderEvent('o-1')] })
      .catch((e: unknown) => e);

    expect((failure as TransactionFailedError).failures).toEqual([
      { index: 0, kind: 'Put', reason: 'ConditionalCheckFailed', message: '' },
      { index: -1, kind: 'outbox slot of order/o-1', reason: 'ValidationError', message: '' },
    ]);
  });
});
