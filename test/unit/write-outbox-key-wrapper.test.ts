import { describe, expect, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { capturingClient } from '../helpers/capturing-client.js';
import { testConfig } from '../helpers/factories.js';

describe('an outbox key given as a String or Number object is refused, the message saying what was given', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'a String object pk in a Put',
      { Put: { Item: { pk: new String('X'), sk: 'b' } } },
      'operations[0].Put.Item.pk is a String object ("X"); allowed: a non-empty string',
    ],
    [
      'a String object sk in a Delete',
      { Delete: { Key: { pk: 'a', sk: new String('') } } },
      'operations[0].Delete.Key.sk is a String object (""); allowed: a non-empty string',
    ],
    [
      'a Number object pk in an Update',
      { Update: { Key: { pk: new Number(7), sk: 'b' }, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': 1 } } },
      'operations[0].Update.Key.pk is a Number object (7); allowed: a non-empty string',
    ],
  ])('%s', async (_name, operation, message) => {
    const { document, bodies } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const error = await outbox.write({ operations: [operation] } as unknown as WriteInput).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
    expect((error as Error).message).toContain(message);
    expect(bodies).toHaveLength(0);
  });

  it('a primitive string key is shown as before', async () => {
    const { document } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const error = await outbox
      .write({ operations: [{ Put: { Item: { pk: '', sk: 'b' } } }] } as unknown as WriteInput)
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain('operations[0].Put.Item.pk is ""; allowed: a non-empty string');
  });
});
