import { describe, expect, it } from 'vitest';
import { Outbox } from '../../shared/write/index.js';
import { capturingClient } from '../helpers/capturing-client.js';
import { testConfig } from '../helpers/factories.js';

describe('ExpressionAttributeValues that are no object are shown as given (showValue), with INVALID_OPERATION', () => {
  it.each([
    ['a bigint', 5n, 'is 5n;'],
    ['NaN', Number.NaN, 'is NaN;'],
    ['a function', () => ({ ':v': 1 }), 'is a function;'],
  ])('%s', async (_name, placeholders, shown) => {
    const { document, bodies } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const update = {
      Key: { pk: 'ACCOUNT#a-1', sk: 'A' },
      UpdateExpression: 'SET a = :v',
      ExpressionAttributeValues: placeholders as never,
    };
    const error = await outbox.write({ operations: [{ Update: update }], events: [] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
    expect((error as Error).message).toContain(
      `operations[0].Update.ExpressionAttributeValues ${shown} allowed: an object of attribute values`,
    );
    expect(bodies).toHaveLength(0);
  });
});
