import { describe, expect, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { capturingClient } from '../helpers/capturing-client.js';
import { testConfig } from '../helpers/factories.js';

describe('write() given no object shows what it got (showValue), with EMPTY_WRITE', () => {
  it.each([
    ['a string, quoted', 'order.placed', 'write() got "order.placed"; allowed: '],
    ['a function, not its source', () => 'secret', 'write() got a function; allowed: '],
    ['undefined', undefined, 'write() got undefined; allowed: '],
    ['a bigint', 5n, 'write() got 5n; allowed: '],
  ])('%s', async (_name, input, message) => {
    const { document, bodies } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const error = await outbox.write(input as unknown as WriteInput).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'EMPTY_WRITE' });
    expect((error as Error).message).toContain(message);
    expect(bodies).toHaveLength(0);
  });
});
