import { NumberValue, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionFailedError } from '../../shared/errors.js';
import { Outbox } from '../../shared/write/index.js';
import { newId, orderEvent, testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';

const clients = testClients();
let tableName: string;
let outbox: Outbox;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'write-failure-item'));
  outbox = new Outbox({ config: testConfig(), tableName, client: clients.dynamodb });
});
afterAll(() => clients.destroy());

describe('a failed condition whose operation asked for the item as it was', () => {
  it('is a TransactionFailedError with the item, also when it holds a number JavaScript cannot hold', async () => {
    const order = newId('order');
    // A fraction beyond 2^53: neither a safe number nor a BigInt, so plain unmarshalling throws.
    const price = '9007199254740993.5';
    await clients.document.send(
      new PutCommand({ TableName: tableName, Item: { pk: `ORDER#${order}`, sk: 'ORDER', price: NumberValue.from(price), status: 'paid' } }),
    );
    const error = await outbox
      .write({
        operations: [
          {
            Put: {
              Item: { pk: `ORDER#${order}`, sk: 'ORDER', status: 'placed' },
              ConditionExpression: 'attribute_not_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
        events: [orderEvent(order)],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionFailedError);
    const [failure] = (error as TransactionFailedError).failures;
    expect(failure).toMatchObject({ index: 0, kind: 'Put', reason: 'ConditionalCheckFailed', item: { status: 'paid' } });
    expect(String(failure?.item?.price)).toBe(price);
  });
});
