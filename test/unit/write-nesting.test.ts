import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Outbox, type WriteInput, WriteValidationError } from 'dynamodb-outbox';
import { describe, expect, it, vi } from 'vitest';
import { canonicalNumber } from '../../shared/write/numbers.js';
import { orderEvent, testConfig } from '../helpers/factories.js';

/** An outbox whose client must never be asked to send: every case here is refused before. */
function refusingOutbox() {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }),
  );
  const send = vi.spyOn(client, 'send');
  return { outbox: new Outbox({ config: testConfig(), tableName: 'shop', client }), send };
}

/**
 * A value nested `depth` objects deep (level 1 outermost), each object a proxy that counts every
 * read of it and records the deepest level read: what a check costs, told by counting, not timing.
 */
function countedChain(depth: number): { value: unknown; reads: () => number; deepest: () => number } {
  let reads = 0;
  let deepest = 0;
  let value: unknown = 'leaf';
  for (let level = depth; level >= 1; level--) {
    const read = (): void => {
      reads++;
      deepest = Math.max(deepest, level);
    };
    value = new Proxy(
      { a: value },
      {
        get: (target, key, receiver) => {
          read();
          return Reflect.get(target, key, receiver);
        },
        ownKeys: (target) => {
          read();
          return Reflect.ownKeys(target);
        },
        getOwnPropertyDescriptor: (target, key) => {
          read();
          return Reflect.getOwnPropertyDescriptor(target, key);
        },
        getPrototypeOf: (target) => {
          read();
          return Reflect.getPrototypeOf(target);
        },
      },
    );
  }
  return { value, reads: () => reads, deepest: () => deepest };
}

const asData = (value: unknown): WriteInput => ({ events: [orderEvent('o-1', 'order.placed', value)] });
const asAttribute = (value: unknown): WriteInput => ({ operations: [{ Put: { Item: { pk: 'ORDER#1', sk: 'A', value } } }], events: [] });
const asUpdateValue = (value: unknown): WriteInput => ({
  operations: [{ Update: { Key: { pk: 'ORDER#1', sk: 'A' }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': value } } }],
  events: [],
});

describe('nesting limits of the write helper', () => {
  it.each([
    ['event data', asData, 'events[0].data'],
    ['a Put item attribute', asAttribute, 'operations[0].Put.Item.value'],
    ['an Update expression value', asUpdateValue, 'operations[0].Update.ExpressionAttributeValues[":v"]'],
  ])('rejects %s nested 100,000 deep with NESTED_TOO_DEEP, reading no level past the limit', async (_where, input, path) => {
    const { outbox, send } = refusingOutbox();
    const chain = countedChain(100_000);
    const error = await outbox.write(input(chain.value)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteValidationError);
    expect((error as WriteValidationError).code).toBe('NESTED_TOO_DEEP');
    expect((error as Error).message).toContain(`${path} nests`);
    expect((error as Error).message).toContain('allowed: at most 32 levels of nesting');
    // The check stops where DynamoDB's limit is exceeded: the object on level 32 is the last it opens.
    expect(chain.deepest()).toBe(32);
    expect(send).not.toHaveBeenCalled();
  });

  it.each([
    ['event data', asData],
    ['a Put item attribute', asAttribute],
  ])(
    'rejects %s nested 100 or 100,000 deep with the same number of reads: the work does not grow with the depth',
    async (_where, input) => {
      const counts: number[] = [];
      for (const depth of [100, 100_000]) {
        const { outbox } = refusingOutbox();
        const chain = countedChain(depth);
        await expect(outbox.write(input(chain.value))).rejects.toMatchObject({ code: 'NESTED_TOO_DEEP' });
        counts.push(chain.reads());
      }
      expect(counts[0]).toBeGreaterThan(0);
      expect(counts[1]).toBe(counts[0]);
    },
  );

  it('rejects a value holding itself as a cycle, not as too deep, for data and attributes alike', async () => {
    const { outbox, send } = refusingOutbox();
    const cyclic: Record<string, unknown> = { a: { b: 1 } };
    (cyclic.a as Record<string, unknown>).back = cyclic;
    const data = (await outbox.write(asData(cyclic)).catch((e: unknown) => e)) as WriteValidationError;
    expect(data).toMatchObject({ code: 'DATA_NOT_SERIALIZABLE' });
    expect(data.message).toContain('events[0].data.a.back refers back to one of its parents (a cycle)');
    const attribute = (await outbox.write(asAttribute(cyclic)).catch((e: unknown) => e)) as WriteValidationError;
    expect(attribute).toMatchObject({ code: 'INVALID_OPERATION' });
    expect(attribute.message).toContain('operations[0].Put.Item.value.a.back refers back to one of its parents (a cycle)');
    expect(send).not.toHaveBeenCalled();
  });
});

describe('canonicalNumber', () => {
  it.each([
    ['1', '1.0', '10e-1', '+1', '0001', '1E0'],
    ['-12.5', '-125e-1', '-0.125E2'],
    ['0', '0.000', '-0', '0e5'],
    ['12345678901234567890123', '1.2345678901234567890123e22'],
  ])('spells %s and its other spellings alike', (...spellings) => {
    expect(new Set(spellings.map(canonicalNumber)).size).toBe(1);
  });

  it('tells different numbers apart', () => {
    const numbers = ['1', '10', '0.1', '-1', '1.5', '15', '150', '9007199254740993', '9007199254740992'];
    expect(new Set(numbers.map(canonicalNumber)).size).toBe(numbers.length);
  });
});
