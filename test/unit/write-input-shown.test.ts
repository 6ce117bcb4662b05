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

describe('a value of the wrong type in the input is shown by showValue, with its code, nothing sent', () => {
  const event = { aggregate: { type: 'order', id: 'o-1' }, type: 'order.placed', data: null };
  it.each<[string, unknown, string, string]>([
    ['a bigint idempotency key', { events: [event], idempotencyKey: 5n }, 'INVALID_IDEMPOTENCY_KEY', 'idempotencyKey is 5n; allowed: '],
    ['a bigint event type', { events: [{ ...event, type: 5n }] }, 'MISSING_EVENT_TYPE', 'events[0].type is 5n; allowed: '],
    [
      'a bigint aggregate id',
      { events: [{ ...event, aggregate: { type: 'order', id: 5n } }] },
      'MISSING_AGGREGATE',
      'events[0].aggregate.id is 5n; allowed: ',
    ],
    [
      'a bigint aggregate type',
      { events: [{ ...event, aggregate: { type: 5n, id: 'o-1' } }] },
      'MISSING_AGGREGATE',
      'events[0].aggregate.type is 5n; allowed: ',
    ],
    ['a bigint event', { events: [5n] }, 'MISSING_AGGREGATE', 'events[0] is 5n; allowed: '],
    ['a function as event', { events: [() => 'secret'] }, 'MISSING_AGGREGATE', 'events[0] is a function; allowed: '],
    [
      'a bigint TableName',
      { operations: [{ Put: { TableName: 5n, Item: { pk: 'a', sk: 'b' } } }] },
      'INVALID_OPERATION',
      'operations[0].Put.TableName is 5n; allowed: ',
    ],
    [
      'a bigint pk',
      { operations: [{ Put: { Item: { pk: 5n, sk: 'b' } } }] },
      'INVALID_OPERATION',
      'operations[0].Put.Item.pk is 5n; allowed: ',
    ],
    ['a bigint action', { operations: [{ Put: 5n }] }, 'INVALID_OPERATION', 'operations[0].Put is 5n; allowed: '],
    [
      'a bigint attribute name',
      { operations: [{ Update: { Key: { pk: 'a', sk: 'b' }, UpdateExpression: 'SET #a = :a', ExpressionAttributeNames: { '#a': 5n } } }] },
      'INVALID_OPERATION',
      'operations[0].Update.ExpressionAttributeNames["#a"] is 5n; allowed: ',
    ],
  ])('%s', async (_name, input, code, message) => {
    const { document, bodies } = capturingClient();
    const outbox = new Outbox({ config: testConfig(), tableName: 'shop', client: document });
    const error = await outbox.write(input as WriteInput).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code });
    expect((error as Error).message).toContain(message);
    expect(bodies).toHaveLength(0);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a bigint maxAttempts', { retry: { maxAttempts: 5n } }, 'retry.maxAttempts is 5n; allowed: a whole number from 1'],
    ['an object as base delay', { retry: { baseDelayMs: {} } }, 'retry.baseDelayMs is {}; allowed: milliseconds from 0 to 60000'],
    ['a function as TTL', { idempotencyTtlSeconds: () => 60 }, 'idempotencyTtlSeconds is a function; allowed: a whole number from 1'],
  ])('an Outbox built with %s', (_name, options, message) => {
    const { document } = capturingClient();
    const build = () => new Outbox({ config: testConfig(), tableName: 'shop', client: document, ...options });
    expect(build).toThrow(WriteValidationError);
    expect(build).toThrow(message);
  });
});
