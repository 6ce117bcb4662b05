import { NumberValue, TransactWriteCommand, type TranslateConfig } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { capturingClient } from '../helpers/capturing-client.js';
import { orderEvent, testConfig } from '../helpers/factories.js';

class Money {
  constructor(
    readonly amount: number,
    readonly currency: string,
  ) {}
}

/**
 * Values the DocumentClient marshals specially, under each of its options the helper must keep
 * applying to the caller's operations.
 */
const cases: [string, TranslateConfig | 'plain client' | undefined, Record<string, unknown>][] = [
  ['a plain DynamoDBClient given, which the helper wraps', 'plain client', { tags: new Set(['a']), big: 2n ** 60n, nested: [{ a: 1 }] }],
  [
    'no options: Sets, binary, a NumberValue beyond 2^53, nested lists and maps',
    undefined,
    {
      tags: new Set(['a', 'b']),
      scores: new Set([1, 2.5]),
      blobs: new Set([new Uint8Array([1]), new Uint8Array([2])]),
      raw: new Uint8Array([0, 255]),
      big: NumberValue.from('9007199254740993'),
      nested: { list: [1, 'x', null, true, { deep: new Set(['z']) }] },
      nothing: null,
    },
  ],
  [
    'removeUndefinedValues: undefined left out at the top and nested',
    { marshallOptions: { removeUndefinedValues: true } },
    { gone: undefined, nested: { keep: 1, gone: undefined }, list: [1, undefined, 2] },
  ],
  [
    'convertClassInstanceToMap: a class instance as a map',
    { marshallOptions: { convertClassInstanceToMap: true } },
    { price: new Money(42, 'EUR'), nested: { price: new Money(1, 'USD') } },
  ],
  [
    'convertEmptyValues: empty strings and an empty Set as NULL',
    { marshallOptions: { convertEmptyValues: true } },
    { note: '', nested: { note: '' }, tags: new Set() },
  ],
];

describe('the request the helper sends', () => {
  it.each(cases)('is the one the DocumentClient sends for the same input, with %s', async (_name, translateConfig, values) => {
    const { client, document, bodies, inputs } = capturingClient(translateConfig === 'plain client' ? undefined : translateConfig);
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: translateConfig === 'plain client' ? client : document });
    const input: WriteInput = {
      operations: [
        { Put: { Item: { pk: 'ORDER#o-1', sk: 'ORDER', ...values } } },
        {
          Update: {
            Key: { pk: 'ACCOUNT#a-1', sk: 'A' },
            UpdateExpression: 'SET #v = :v',
            ExpressionAttributeNames: { '#v': 'value' },
            ExpressionAttributeValues: { ':v': values },
          },
        },
      ],
      events: [orderEvent('o-1'), orderEvent('o-2')],
      idempotencyKey: 'key-1',
    };
    await outbox.write(input);

    // Middleware of the initialize step saw the request as a DocumentClient command holds it.
    const request = inputs[0] as ConstructorParameters<typeof TransactWriteCommand>[0];
    expect(request.TransactItems?.[0]?.Put?.Item?.pk).toBe('ORDER#o-1');
    await document.send(new TransactWriteCommand(request));
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toEqual(bodies[1]);
    expect(JSON.stringify(bodies[0])).toContain('"ClientRequestToken":"key-1"');
  });

  it.each([
    ['null', null],
    ['a string', 'v'],
    ['an array', [1]],
  ])('rejects ExpressionAttributeValues that are %s with INVALID_OPERATION, sending nothing', async (_name, placeholders) => {
    const { document, bodies } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const update = { Key: { pk: 'ACCOUNT#a-1', sk: 'A' }, UpdateExpression: 'SET a = b', ExpressionAttributeValues: placeholders as never };
    const error = await outbox.write({ operations: [{ Update: update }], events: [] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
    expect((error as Error).message).toMatch(
      /^operations\[0\]\.Update\.ExpressionAttributeValues is .+; allowed: an object of attribute values/,
    );
    expect(bodies).toHaveLength(0);
  });
});
