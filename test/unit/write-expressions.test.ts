import { describe, expect, expectTypeOf, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { capturingClient } from '../helpers/capturing-client.js';
import { testConfig } from '../helpers/factories.js';

const key = { pk: 'ORDER#o-1', sk: 'ORDER' };

describe('an operation whose ConditionExpression or UpdateExpression is no string', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'a bigint ConditionExpression on a Put',
      { Put: { Item: key, ConditionExpression: 5n } },
      'operations[0].Put.ConditionExpression is 5n; allowed: a condition expression string, or leave it out',
    ],
    [
      'a number ConditionExpression on a ConditionCheck',
      { ConditionCheck: { Key: key, ConditionExpression: 7 } },
      'operations[0].ConditionCheck.ConditionExpression is 7; allowed: a condition expression string, or leave it out',
    ],
    [
      'a bigint UpdateExpression',
      { Update: { Key: key, UpdateExpression: 5n } },
      'operations[0].Update.UpdateExpression is 5n; allowed: an update expression string, e.g. "SET #a = :a"',
    ],
    [
      'an object UpdateExpression',
      { Update: { Key: key, UpdateExpression: { SET: 'a' } } },
      'operations[0].Update.UpdateExpression is {"SET":"a"}; allowed: an update expression string, e.g. "SET #a = :a"',
    ],
    [
      'a null ConditionExpression on a Delete',
      { Delete: { Key: key, ConditionExpression: null } },
      'operations[0].Delete.ConditionExpression is null; allowed: a condition expression string, or leave it out',
    ],
  ])('refuses %s with INVALID_OPERATION, sending nothing', async (_name, operation, message) => {
    const { document, bodies } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const error = await outbox.write({ operations: [operation] } as unknown as WriteInput).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
    expect((error as Error).message).toBe(message);
    expect(bodies).toHaveLength(0);
  });

  it('sends string expressions, and an expression left undefined, as before', async () => {
    const { document, bodies } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    await outbox.write({
      operations: [
        { Put: { Item: key, ConditionExpression: 'attribute_not_exists(pk)' } },
        {
          Update: {
            Key: { pk: 'ORDER#o-2', sk: 'ORDER' },
            UpdateExpression: 'SET #t = :t',
            ConditionExpression: undefined,
            ExpressionAttributeNames: { '#t': 'total' },
            ExpressionAttributeValues: { ':t': 1 },
          },
        },
      ],
    });
    expect(bodies).toHaveLength(1);
  });
});

describe('a write of operations only', () => {
  it('is a WriteInput without events, as the runtime takes it', () => {
    expectTypeOf<{ operations: [{ Put: { Item: typeof key } }] }>().toExtend<WriteInput>();
  });

  it("is named in EMPTY_WRITE's allowed shape: events may be left out", async () => {
    const { document } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const error = await outbox.write(5 as unknown as WriteInput).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EMPTY_WRITE' });
    expect((error as Error).message).toBe(
      'write() got 5; allowed: { operations?, events?, idempotencyKey? } with operations or events or both',
    );
  });
});
