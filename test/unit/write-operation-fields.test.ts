import { describe, expect, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { Outbox, type WriteOperation } from '../../shared/write/index.js';
import { capturingClient } from '../helpers/capturing-client.js';
import { orderEvent, testConfig } from '../helpers/factories.js';

const key = { pk: 'ORDER#o-1', sk: 'ORDER' };

describe('an operation with a field TransactWriteItems does not have', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'a misspelt condition on a Put',
      { Put: { Item: key, ConditionExpresion: 'attribute_not_exists(pk)' } },
      'operations[0].Put has unknown key "ConditionExpresion"; allowed: Item, TableName, ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure',
    ],
    [
      "a single-item call's field on an Update",
      { Update: { Key: key, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': 1 }, ReturnValues: 'ALL_NEW' } },
      'operations[0].Update has unknown key "ReturnValues"; allowed: Key, UpdateExpression, TableName, ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure',
    ],
    [
      'a lower-case condition on a ConditionCheck of another table',
      {
        ConditionCheck: {
          TableName: 'accounts',
          Key: { id: 'a-1' },
          ConditionExpression: 'attribute_exists(id)',
          conditionexpression: 'x',
        },
      },
      'operations[0].ConditionCheck has unknown key "conditionexpression"; allowed: Key, TableName, ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure',
    ],
    [
      'an Item on a Delete',
      { Delete: { Key: key, Item: key } },
      'operations[0].Delete has unknown key "Item"; allowed: Key, TableName, ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure',
    ],
  ])('is refused with INVALID_OPERATION naming it, sending nothing: %s', async (_, operation, message) => {
    // The SDK's serializer drops a field its model does not have: the Put would commit without its condition.
    const { document, bodies } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const error = await outbox.write({ operations: [operation as WriteOperation], events: [orderEvent('o-1')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION', message });
    expect(bodies).toHaveLength(0);
  });

  it('takes every field an action has', async () => {
    const { document, bodies } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const condition = {
      ConditionExpression: 'attribute_not_exists(#pk) OR #v = :v',
      ExpressionAttributeNames: { '#pk': 'pk', '#v': 'v' },
      ExpressionAttributeValues: { ':v': 1 },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
    await outbox.write({
      operations: [
        { Put: { TableName: 'shop', Item: { ...key, v: 1 }, ...condition } },
        { Update: { TableName: 'shop', Key: { pk: 'A#1', sk: 'A' }, UpdateExpression: 'SET #v = :v', ...condition } },
        { Delete: { TableName: 'shop', Key: { pk: 'B#1', sk: 'B' }, ...condition } },
        { ConditionCheck: { TableName: 'shop', Key: { pk: 'C#1', sk: 'C' }, ...condition } },
      ],
      events: [orderEvent('o-1')],
    });
    expect(bodies).toHaveLength(1);
  });
});
