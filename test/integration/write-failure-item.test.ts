import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, NumberValue, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TransactionFailedError } from '../../shared/errors.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
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

  it("is read with the caller's unmarshallOptions: a client that wraps numbers gets its item's numbers wrapped, exact", async () => {
    // A client of its own: the SDK sets a DocumentClient's options on the client it wraps.
    const base = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const document = DynamoDBDocumentClient.from(base, { unmarshallOptions: { wrapNumbers: true } });
    const wrapping = new Outbox({ config: testConfig(), tableName, client: document });
    const order = newId('order');
    // More digits than a double holds: read as a number, it would come back as 0.1.
    const rate = '0.10000000000000000001';
    const key = { pk: `ORDER#${order}`, sk: 'ORDER' };
    await clients.document.send(new PutCommand({ TableName: tableName, Item: { ...key, rate: NumberValue.from(rate), count: 3 } }));
    const error = await wrapping
      .write({
        operations: [
          { Put: { Item: key, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
        ],
        events: [orderEvent(order)],
      })
      .catch((e: unknown) => e);
    base.destroy();

    expect(error).toBeInstanceOf(TransactionFailedError);
    const item = (error as TransactionFailedError).failures[0]?.item;
    expect(item?.rate).toBeInstanceOf(NumberValue);
    expect(String(item?.rate)).toBe(rate);
    expect(item?.count).toEqual(NumberValue.from('3'));
  });
});
