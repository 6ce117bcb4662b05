import type { TransactWriteItemsInput } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { InitializeMiddleware } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { capturingClient } from '../helpers/capturing-client.js';
import { orderEvent, testConfig } from '../helpers/factories.js';

type Items = NonNullable<TransactWriteItemsInput['TransactItems']>;

/** Middleware of users' own: one prefixing every table name in place, one adding a field and replacing an item's values. */
const prefixTables: InitializeMiddleware<object, object> = (next) => (args) => {
  for (const item of (args.input as TransactWriteItemsInput).TransactItems as Items) {
    const body = (item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck) as { TableName: string };
    body.TableName = `test-${body.TableName}`;
  }
  return next(args);
};
const replaceValues: InitializeMiddleware<object, object> = (next) => (args) => {
  const input = args.input as { TransactItems: { Put?: { Item: Record<string, unknown> } }[] };
  const [first, ...rest] = input.TransactItems;
  const put = { Put: { ...first?.Put, Item: { ...first?.Put?.Item, tenant: 't-1' } } };
  return next({ ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL', TransactItems: [put, ...rest] } });
};

const dropField: InitializeMiddleware<object, object> = (next) => (args) => {
  const [, slot] = (args.input as TransactWriteItemsInput).TransactItems as Items;
  if (slot?.Put !== undefined) delete slot.Put.ReturnValuesOnConditionCheckFailure;
  return next(args);
};

describe('the request the helper sends, under middleware of the client that changes the input', () => {
  it.each([
    ['prefixes table names in place', prefixTables],
    ['adds a field and replaces an item', replaceValues],
    ['removes a field of an action in place, leaving every other field as it was', dropField],
  ])('is the one the DocumentClient sends when middleware %s', async (_name, middleware) => {
    const { client, document, bodies } = capturingClient();
    client.middlewareStack.add(middleware as never, { step: 'initialize', name: 'users' });
    const inputs: unknown[] = [];
    client.middlewareStack.add(
      (next) => (args) => {
        inputs.push(structuredClone(args.input));
        return next(args);
      },
      { step: 'initialize', priority: 'high', name: 'keepInputCopy' },
    );
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const input: WriteInput = {
      operations: [{ Put: { Item: { pk: 'ORDER#o-1', sk: 'ORDER', tags: new Set(['a']) } } }],
      events: [orderEvent('o-1')],
      idempotencyKey: 'key-1',
    };
    await outbox.write(input);

    await document.send(new TransactWriteCommand(inputs[0] as ConstructorParameters<typeof TransactWriteCommand>[0]));
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toEqual(bodies[1]);
    const changed = new Map<unknown, RegExp>([
      [prefixTables, /"TableName":"test-shop"/],
      [replaceValues, /"tenant":\{"S":"t-1"\}/],
      [dropField, /"ExpressionAttributeNames":\{"#seq":"seq"\}\}\}/],
    ]);
    expect(JSON.stringify(bodies[0])).toMatch(changed.get(middleware) as RegExp);
  });
});
