import { GetCommand, NumberValue } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { type EventInput, Outbox, type WriteInput } from '../../shared/write/index.js';
import { testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';

const clients = testClients();
let tableName: string;
let outbox: Outbox;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'validation-examples'));
  outbox = new Outbox({ config: testConfig(), tableName, client: clients.document });
});
afterAll(() => clients.destroy());

describe('write validation (examples)', () => {
  /** The error of `input`, checking that nothing was sent. */
  async function rejection(input: WriteInput): Promise<WriteValidationError> {
    const send = vi.spyOn(clients.document, 'send');
    try {
      const error = await outbox.write(input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WriteValidationError);
      expect((error as Error).message).toMatch(/\S.*; allowed: \S/);
      expect(send).not.toHaveBeenCalled();
      return error as WriteValidationError;
    } finally {
      send.mockRestore();
    }
  }

  const event = (fields: Partial<EventInput>): EventInput => ({
    aggregate: { type: 'order', id: 'text' },
    type: 'order.placed',
    data: null,
    ...fields,
  });

  it.each([
    ['a lone high surrogate', 'order\uD800'],
    ['a lone low surrogate', '\uDC00order'],
    ['a NUL', 'order\u0000placed'],
    ['a line feed', 'order\nplaced'],
    ['a C1 control character', 'order\u0085'],
    ['the noncharacter U+FFFF', 'order\uFFFF'],
  ])('refuses an event type with %s, which SNS could never take as a message attribute', async (_name, type) => {
    const error = await rejection({ events: [event({ type })] });
    expect(error.code).toBe('MISSING_EVENT_TYPE');
    expect(error.message).toContain(`events[0].type is ${JSON.stringify(type)}`);
    expect(error.message).toContain('well-formed Unicode without control characters');
  });

  it.each([
    [
      'a misspelt events (its events would be lost)',
      { operations: [], event: [event({})] },
      'write() has unknown key "event"; allowed: operations, events, idempotencyKey',
    ],
    [
      'a misspelt idempotencyKey (the write would not be idempotent)',
      { events: [event({})], idempotencykey: 'k-1' },
      'write() has unknown key "idempotencykey"',
    ],
    [
      'a misspelt traceparent',
      { events: [event({ traceParent: '00-x' } as never)] },
      'events[0] has unknown key "traceParent"; allowed: aggregate, type, data, traceparent',
    ],
    [
      'an extra aggregate field',
      { events: [event({ aggregate: { type: 'order', id: 'o-1', version: 2 } as never })] },
      'events[0].aggregate has unknown key "version"; allowed: type, id',
    ],
  ])('refuses %s, naming the field and the fields allowed', async (_name, input, message) => {
    const error = await rejection(input as unknown as WriteInput);
    expect(error.code).toBe('UNKNOWN_FIELD');
    expect(error.message).toContain(message);
  });

  it('refuses an aggregate id with a lone surrogate, which would share a slot with other ids', async () => {
    const error = await rejection({ events: [event({ aggregate: { type: 'order', id: 'o\uD800' } })] });
    expect(error.code).toBe('MISSING_AGGREGATE');
    expect(error.message).toContain('not well-formed Unicode');
  });

  it.each([
    ['text after the flags of version 00', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra'],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['upper-case hex', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
  ])('refuses a traceparent with %s', async (_name, traceparent) => {
    const error = await rejection({ events: [event({ traceparent })] });
    expect(error.code).toBe('INVALID_TRACEPARENT');
    expect(error.message).toContain(JSON.stringify(traceparent));
  });

  it('accepts a traceparent of a later version with fields after the flags, and non-ASCII event types', async () => {
    const traceparent = '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future';
    const { events } = await outbox.write({
      events: [event({ aggregate: { type: 'order', id: 'traced' }, type: 'commande.passée', traceparent })],
    });
    expect(events[0]?.type).toBe('commande.passée');
  });

  it('refuses a Date in event data instead of storing it as a string', async () => {
    const error = await rejection({
      events: [{ aggregate: { type: 'order', id: 'dated' }, type: 'order.placed', data: { at: new Date(0) } }],
    });
    expect(error.code).toBe('DATA_NOT_SERIALIZABLE');
    expect(error.message).toContain('events[0].data.at is a Date');
  });

  it('refuses an attribute value the DocumentClient cannot marshal, naming where it is', async () => {
    const top = await rejection({ operations: [{ Put: { Item: { pk: 'DATED#1', sk: 'A', at: new Date(0) } } }], events: [] });
    expect(top.code).toBe('INVALID_OPERATION');
    expect(top.message).toContain('operations[0].Put.Item.at is a Date, which the DynamoDB DocumentClient cannot marshal (');
    const nested = await rejection({
      operations: [
        { Put: { Item: { pk: 'DATED#2', sk: 'A' } } },
        {
          Update: {
            Key: { pk: 'DATED#3', sk: 'A' },
            UpdateExpression: 'SET w = :w',
            ExpressionAttributeValues: { ':w': { when: ['ok', new Date(0)] } },
          },
        },
      ],
      events: [],
    });
    expect(nested.code).toBe('INVALID_OPERATION');
    expect(nested.message).toContain('operations[1].Update.ExpressionAttributeValues.:w.when[1] is a Date');
  });

  it('refuses a number set whose first member is a number and a later one beyond 2^53, giving the marshaller’s reason', async () => {
    // The DocumentClient converts every member of a set by its first member's type: a number first holds the rest to 2^53.
    const error = await rejection({
      operations: [{ Put: { Item: { pk: 'NUMBERS#1', sk: 'A', tags: new Set<unknown>([1, NumberValue.from('9007199254740993')]) } } }],
      events: [],
    });
    expect(error.code).toBe('INVALID_OPERATION');
    expect(error.message).toContain(
      'operations[0].Put.Item.tags is a Set of numbers, which the DynamoDB DocumentClient cannot marshal (Number 9007199254740993 is greater than Number.MAX_SAFE_INTEGER. Use NumberValue from @aws-sdk/lib-dynamodb.); allowed:',
    );
  });

  it('refuses operations on the outbox table without their string keys, instead of calling them duplicates', async () => {
    const twoPuts = await rejection({ operations: [{ Put: { Item: { a: 1 } } }, { Put: { Item: { b: 2 } } }], events: [] });
    expect(twoPuts.code).toBe('INVALID_OPERATION');
    expect(twoPuts.message).toContain('operations[0].Put.Item.pk is missing');
    const onePut = await rejection({ operations: [{ Put: { Item: { pk: 'NOSK#1' } } }], events: [] });
    expect(onePut.code).toBe('INVALID_OPERATION');
    expect(onePut.message).toContain('operations[0].Put.Item.sk is missing');
    const numeric = await rejection({ operations: [{ Delete: { Key: { pk: 7, sk: 'A' } } }], events: [] });
    expect(numeric.code).toBe('INVALID_OPERATION');
    expect(numeric.message).toContain('operations[0].Delete.Key.pk is 7');
  });

  it('refuses the outbox table named by its ARN, which would bypass the slot guard and duplicate detection', async () => {
    const arn = `arn:aws:dynamodb:us-east-1:123456789012:table/${tableName}`;
    const slot = await rejection({ operations: [{ Put: { TableName: arn, Item: { pk: 'OUTBOX#order#o1', sk: 'OUTBOX' } } }], events: [] });
    expect(slot.code).toBe('INVALID_OPERATION');
    expect(slot.message).toContain(`operations[0].Put.TableName is "${arn}"`);
    const twice = await rejection({
      operations: [{ Put: { Item: { pk: 'ARN#1', sk: 'A' } } }, { Delete: { TableName: arn, Key: { pk: 'ARN#1', sk: 'A' } } }],
      events: [],
    });
    expect(twice.code).toBe('INVALID_OPERATION');
    expect(twice.message).toContain('operations[1].Delete.TableName');
  });

  it('refuses a Put item over 400 KB, naming its size, instead of sending what DynamoDB rejects', async () => {
    const error = await rejection({ operations: [{ Put: { Item: { pk: 'BIG#1', sk: 'A', blob: 'x'.repeat(410 * 1024) } } }], events: [] });
    expect(error.code).toBe('ITEM_TOO_LARGE');
    expect(error.message).toMatch(/^operations\[0\]\.Put\.Item is 4\d{5} bytes; allowed: at most 409600 bytes/);
  });

  it('accepts a Put item of just under 400 KB, attribute names included', async () => {
    const name = 'blob';
    const fill = 400 * 1024 - Buffer.byteLength('pkBIG#2skA') - name.length;
    await outbox.write({ operations: [{ Put: { Item: { pk: 'BIG#2', sk: 'A', [name]: 'x'.repeat(fill) } } }], events: [] });
    const { Item } = await clients.document.send(new GetCommand({ TableName: tableName, Key: { pk: 'BIG#2', sk: 'A' } }));
    expect(Item?.blob).toHaveLength(fill);
  });

  it('refuses operations on idempotency records, its own key’s or another write’s', async () => {
    const own = await rejection({
      operations: [{ Put: { Item: { pk: 'IDEMPOTENCY#k-own', sk: 'IDEMPOTENCY', note: 'x' } } }],
      events: [event({})],
      idempotencyKey: 'k-own',
    });
    expect(own.code).toBe('INVALID_OPERATION');
    expect(own.message).toContain('operations[0].Put targets "IDEMPOTENCY#k-own"');
    const other = await rejection({ operations: [{ Delete: { Key: { pk: 'IDEMPOTENCY#k-other', sk: 'IDEMPOTENCY' } } }], events: [] });
    expect(other.code).toBe('INVALID_OPERATION');
    expect(other.message).toContain('keys that do not start with "OUTBOX#" or "IDEMPOTENCY#"');
  });

  it('refuses a Key on the outbox table with attributes besides pk and sk', async () => {
    const error = await rejection({ operations: [{ Delete: { Key: { pk: 'KEY#1', sk: 'A', status: 'placed' } } }], events: [] });
    expect(error.code).toBe('INVALID_OPERATION');
    expect(error.message).toContain('operations[0].Delete.Key has "status" besides the key attributes; allowed: exactly pk and sk');
  });

  it.each([
    ['an empty Set', new Set<string>()],
    ['a Set of booleans', new Set([true, false])],
    ['a Set of mixed types (booleans, strings)', new Set<unknown>([true, 'a'])],
  ])('refuses %s in an attribute value, saying so', async (described, tags) => {
    const error = await rejection({ operations: [{ Put: { Item: { pk: 'SET#1', sk: 'A', tags } } }], events: [] });
    expect(error.code).toBe('INVALID_OPERATION');
    expect(error.message).toContain(`operations[0].Put.Item.tags is ${described}`);
    expect(error.message).toContain(
      'allowed: a non-empty Set of only strings, only numbers (number, bigint or NumberValue) or only binary values',
    );
  });
});
