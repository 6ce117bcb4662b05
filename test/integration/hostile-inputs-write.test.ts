import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, NumberValue, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type WriteValidationCode, WriteValidationError } from '../../shared/errors.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { canonicalNumber } from '../../shared/write/numbers.js';
import { orderEvent, testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';

/**
 * The hostile inputs tried against the write helper, and what each gets: a typed refusal before
 * anything is sent, with nothing written (the table is scanned before and after), or a write
 * that stores exactly what was given (read back). Run against DynamoDB Local.
 */

const clients = testClients();
let tableName: string;
let outbox: Outbox;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'hostile'));
  outbox = new Outbox({ config: testConfig(), tableName, client: clients.document });
});
afterAll(() => clients.destroy());

/** `leaf` inside `levels` maps (`{ n: … }`) or lists (`[…]`). */
function nested(levels: number, leaf: unknown, container: 'map' | 'list' = 'map'): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = container === 'map' ? { n: value } : [value];
  return value;
}

const put = (Item: Record<string, unknown>, TableName?: string): WriteInput => ({
  operations: [{ Put: { ...(TableName === undefined ? {} : { TableName }), Item: { pk: 'HOSTILE#1', sk: 'A', ...Item } } }],
  events: [],
});

type Refusal = readonly [input: string, write: () => WriteInput, code: WriteValidationCode, message: string];

const cyclic = (): Record<string, unknown> => {
  const value: Record<string, unknown> = { child: {} };
  (value.child as Record<string, unknown>).parent = value;
  return value;
};

const refusals: Refusal[] = [
  // Nesting: DynamoDB allows 32 levels; a map or list may not stand on level 32.
  [
    'event data 100,000 objects deep',
    () => ({ events: [orderEvent('o-deep', 'order.placed', nested(100_000, 1))] }),
    'NESTED_TOO_DEEP',
    'events[0].data nests objects or arrays 32 deep',
  ],
  [
    'event data 32 arrays deep',
    () => ({ events: [orderEvent('o-deep', 'order.placed', nested(32, 1, 'list'))] }),
    'NESTED_TOO_DEEP',
    'events[0].data nests objects or arrays 32 deep',
  ],
  [
    'a Put attribute 100,000 maps deep',
    () => put({ deep: nested(100_000, 1) }),
    'NESTED_TOO_DEEP',
    'operations[0].Put.Item.deep nests maps or lists 32 deep',
  ],
  ['a Put attribute 32 maps deep, the last empty', () => put({ deep: nested(31, {}) }), 'NESTED_TOO_DEEP', 'one stands on level 32'],
  [
    'an Update value 32 lists deep',
    () => ({
      operations: [
        {
          Update: {
            Key: { pk: 'HOSTILE#1', sk: 'A' },
            UpdateExpression: 'SET v = :v',
            ExpressionAttributeValues: { ':v': nested(32, 'x', 'list') },
          },
        },
      ],
      events: [],
    }),
    'NESTED_TOO_DEEP',
    'operations[0].Update.ExpressionAttributeValues[":v"] nests maps or lists 32 deep',
  ],
  [
    'a key of another table 100,000 maps deep',
    () => ({ operations: [{ Delete: { TableName: 'other', Key: { id: nested(100_000, 1) } } }], events: [] }),
    'NESTED_TOO_DEEP',
    'operations[0].Delete.Key.id nests',
  ],
  [
    'a cyclic attribute',
    () => put({ loop: cyclic() }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.loop.child.parent refers back to one of its parents (a cycle)',
  ],
  [
    'cyclic event data',
    () => ({ events: [orderEvent('o-cycle', 'order.placed', cyclic())] }),
    'DATA_NOT_SERIALIZABLE',
    'events[0].data.child.parent refers back to one of its parents (a cycle)',
  ],
  // Sets the DocumentClient would send as a wrong or invalid set.
  [
    'new Set([1, "a"]) (sent as a number set DynamoDB refuses)',
    () => put({ tags: new Set<unknown>([1, 'a']) }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.tags is a Set of mixed types (numbers, strings)',
  ],
  [
    'new Set(["a", 1]) (stored as the strings "a", "1")',
    () => put({ tags: new Set<unknown>(['a', 1]) }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.tags is a Set of mixed types (strings, numbers)',
  ],
  [
    'new Set(["a", {}]) (stored as "a", "[object Object]")',
    () => put({ tags: new Set<unknown>(['a', {}]) }),
    'INVALID_OPERATION',
    'is a Set of mixed types (strings, Object objects)',
  ],
  [
    'new Set([1, 1n]) (a number set with a duplicate)',
    () => put({ tags: new Set<unknown>([1, 1n]) }),
    'INVALID_OPERATION',
    'holds the same number twice (1 and 1n)',
  ],
  [
    'new Set([2, NumberValue("2.0")])',
    () => put({ tags: new Set<unknown>([2, NumberValue.from('2.0')]) }),
    'INVALID_OPERATION',
    'holds the same number twice (2 and 2.0)',
  ],
  [
    'a Set of two equal byte arrays',
    () => put({ tags: new Set([Uint8Array.of(1, 2), Uint8Array.of(1, 2)]) }),
    'INVALID_OPERATION',
    'holds the same bytes twice',
  ],
  ['an empty Set', () => put({ tags: new Set() }), 'INVALID_OPERATION', 'operations[0].Put.Item.tags is an empty Set'],
  // Attribute names DynamoDB refuses, or would confuse.
  ['an empty attribute name', () => put({ '': 1 }), 'INVALID_OPERATION', 'operations[0].Put.Item has an attribute name that is empty'],
  [
    'an empty name inside a map',
    () => put({ m: { ok: { '': 1 } } }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.m.ok has an attribute name that is empty',
  ],
  [
    'an empty name in a Map',
    () => put({ m: new Map([['', 1]]) }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.m has an attribute name that is empty',
  ],
  [
    'a Map with a number key (1 and "1" would be one name)',
    () => put({ m: new Map<unknown, number>([[1, 1]]) }),
    'INVALID_OPERATION',
    'is a Map with a number key (1)',
  ],
  [
    'an empty name in ExpressionAttributeNames',
    () => ({
      operations: [
        {
          Update: {
            Key: { pk: 'HOSTILE#1', sk: 'A' },
            UpdateExpression: 'SET #n = :v',
            ExpressionAttributeNames: { '#n': '' },
            ExpressionAttributeValues: { ':v': 1 },
          },
        },
      ],
      events: [],
    }),
    'INVALID_OPERATION',
    'operations[0].Update.ExpressionAttributeNames["#n"] stands for an attribute name that is empty',
  ],
  [
    'an attribute name of 65,536 bytes',
    () => put({ ['n'.repeat(65_536)]: 1 }),
    'INVALID_OPERATION',
    'has an attribute name that is 65536 bytes long',
  ],
  [
    'an attribute name with a lone surrogate',
    () => put({ 'name\uD800': 1 }),
    'INVALID_OPERATION',
    'has an attribute name that is "name\\ud800", not well-formed Unicode',
  ],
  // Lone surrogates, which UTF-8 cannot hold: two such keys would address one item.
  [
    'a pk with a lone high surrogate',
    () => put({ pk: 'HOSTILE#\uD800' }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.pk is "HOSTILE#\\ud800", which is not well-formed Unicode',
  ],
  [
    'an sk with a lone low surrogate',
    () => ({ operations: [{ Delete: { Key: { pk: 'HOSTILE#1', sk: '\uDC00' } } }], events: [] }),
    'INVALID_OPERATION',
    'operations[0].Delete.Key.sk is "\\udc00", which is not well-formed Unicode',
  ],
  [
    'a key of another table with a lone surrogate',
    () => ({
      operations: [{ ConditionCheck: { TableName: 'other', Key: { id: 'x\uDBFF' }, ConditionExpression: 'attribute_exists(id)' } }],
      events: [],
    }),
    'INVALID_OPERATION',
    'operations[0].ConditionCheck.Key.id is "x\\udbff"',
  ],
  [
    'a string value with a lone surrogate',
    () => put({ note: 'half \uD83D' }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.note is a string that is not well-formed Unicode',
  ],
  [
    'a string set member with a lone surrogate',
    () => put({ tags: new Set(['ok', 'x\uDE00']) }),
    'INVALID_OPERATION',
    'holds the string "x\\ude00", which is not well-formed Unicode',
  ],
  [
    'an aggregate id with a lone surrogate',
    () => ({ events: [orderEvent('o-\uD800')] }),
    'MISSING_AGGREGATE',
    'events[0].aggregate.id is "o-\\ud800", which is not well-formed Unicode',
  ],
  // Numbers DynamoDB cannot store: at most 38 significant digits, 1E-130 to under 1E+126 in magnitude.
  [
    'a number below 1E-130 in magnitude',
    () => put({ tiny: -1e-131 }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.tiny is the number -1e-131, which DynamoDB cannot store: it is less than 1E-130 in magnitude',
  ],
  [
    'a bigint of 39 significant digits',
    () => put({ big: 10n ** 38n + 1n }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.big is the number 100000000000000000000000000000000000001, which DynamoDB cannot store: it has 39 significant digits',
  ],
  [
    'a NumberValue of 1E+126',
    () => put({ huge: NumberValue.from('1E+126') }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.huge is the number 1E+126, which DynamoDB cannot store: it is 1E+126 or more in magnitude',
  ],
  [
    'a number below 1E-130 inside a list in a map',
    () => put({ m: { a: [1, 1e-200] } }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.m.a[1] is the number 1e-200, which DynamoDB cannot store',
  ],
  [
    'a number set member of 41 digits',
    () => put({ tags: new Set<unknown>([1, 10n ** 40n + 7n]) }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.tags holds the number 10000000000000000000000000000000000000007, which DynamoDB cannot store: it has 41 significant digits',
  ],
  [
    'an expression value of 39 significant digits',
    () => ({
      operations: [
        {
          Update: {
            Key: { pk: 'HOSTILE#1', sk: 'A' },
            UpdateExpression: 'SET n = :v',
            ExpressionAttributeValues: { ':v': NumberValue.from('99999999999999999999999999999999999999.5') },
          },
        },
      ],
      events: [],
    }),
    'INVALID_OPERATION',
    'operations[0].Update.ExpressionAttributeValues[":v"] is the number 99999999999999999999999999999999999999.5, which DynamoDB cannot store: it has 39 significant digits',
  ],
  // Text DynamoDB cannot read as a number at all: it refuses the request with a ValidationException.
  [
    'a NumberValue with a space before its digits',
    () => put({ n: NumberValue.from(' 5') }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.n is the number " 5", which DynamoDB cannot read as a number',
  ],
  [
    'a NumberValue of hexadecimal digits in a number set',
    () => put({ tags: new Set([NumberValue.from('1'), NumberValue.from('0x10')]) }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.tags holds the number "0x10", which DynamoDB cannot read as a number',
  ],
  [
    'a NumberValue of no digits',
    () => put({ m: { n: NumberValue.from('e5') } }),
    'INVALID_OPERATION',
    'operations[0].Put.Item.m.n is the number "e5", which DynamoDB cannot read as a number',
  ],
  // Keys over DynamoDB's sizes, and one item addressed twice by keys spelt differently.
  ['a pk of 2,049 bytes', () => put({ pk: 'p'.repeat(2049) }), 'INVALID_OPERATION', 'operations[0].Put.Item.pk is 2049 bytes'],
  ['an sk of 1,025 bytes', () => put({ sk: 's'.repeat(1025) }), 'INVALID_OPERATION', 'operations[0].Put.Item.sk is 1025 bytes'],
  [
    'two operations on one item of another table, keyed 1 and 1n',
    () => ({
      operations: [{ Delete: { TableName: 'other', Key: { id: 1 } } }, { Delete: { TableName: 'other', Key: { id: 1n } } }],
      events: [],
    }),
    'DUPLICATE_ITEM',
    'operations[0] and operations[1] target the same item',
  ],
];

/** Every item of the table, by key, as stored. */
async function tableContents(): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await clients.document.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }));
  return Items.sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`));
}

const stored = async (pk: string, sk = 'A') =>
  (await clients.document.send(new GetCommand({ TableName: tableName, Key: { pk, sk }, ConsistentRead: true }))).Item;

describe('hostile inputs to the write helper', () => {
  it.each(refusals)('rejects %s with a typed error before sending, writing nothing', async (_input, write, code, message) => {
    const before = await tableContents();
    const send = vi.spyOn(clients.document, 'send');
    const error = await outbox.write(write()).catch((e: unknown) => e);
    expect(send).not.toHaveBeenCalled();
    send.mockRestore();
    expect(error).toBeInstanceOf(WriteValidationError);
    expect((error as WriteValidationError).code).toBe(code);
    expect((error as Error).message).toContain(message);
    // What was given, then what is allowed; and short enough to log, however large the input.
    expect((error as Error).message).toMatch(/; allowed: \S/);
    expect((error as Error).message.length).toBeLessThan(2000);
    expect(await tableContents()).toEqual(before);
  });

  it('writes an attribute 31 maps deep around a value, and one 30 deep around an empty map: the deepest DynamoDB keeps', async () => {
    const deepest = nested(31, 'leaf');
    const emptiest = nested(30, {});
    await outbox.write({ operations: [{ Put: { Item: { pk: 'DEEP#1', sk: 'A', deepest, emptiest } } }], events: [] });
    expect(await stored('DEEP#1')).toEqual({ pk: 'DEEP#1', sk: 'A', deepest, emptiest });
  });

  it('writes event data 31 objects or arrays deep, stored as JSON.stringify renders it', async () => {
    const data = nested(30, [1, 'two', null]);
    const { events } = await outbox.write({ events: [orderEvent('o-deepest', 'order.placed', data)] });
    const slot = await stored('OUTBOX#order#o-deepest', 'OUTBOX');
    expect(slot?.events).toEqual([expect.objectContaining({ id: events[0]?.id, data: JSON.stringify(data) })]);
  });

  it('writes Sets of one type as DynamoDB sets: strings, and numbers given as number, bigint and NumberValue', async () => {
    await outbox.write(put({ pk: 'SETS#1', strings: new Set(['a', 'b']), numbers: new Set<unknown>([1, 2n, NumberValue.from('3.5')]) }));
    const item = await stored('SETS#1');
    expect(item?.strings).toEqual(new Set(['a', 'b']));
    expect(item?.numbers).toEqual(new Set([1, 2, 3.5]));
  });

  it('writes keys of well-formed text outside the Basic Multilingual Plane and with U+FFFD as the different items they are', async () => {
    await outbox.write({
      operations: [
        { Put: { Item: { pk: 'KEY#🙂', sk: 'A', v: 'smile' } } },
        { Put: { Item: { pk: 'KEY#\uFFFD', sk: 'A', v: 'replacement' } } },
      ],
      events: [],
    });
    expect((await stored('KEY#🙂'))?.v).toBe('smile');
    expect((await stored('KEY#\uFFFD'))?.v).toBe('replacement');
  });

  it('writes a pk of 2,048 bytes and an sk of 1,024 bytes, the largest DynamoDB takes', async () => {
    const pk = `LONG#${'p'.repeat(2043)}`;
    await outbox.write({ operations: [{ Put: { Item: { pk, sk: 's'.repeat(1024), v: 1 } } }], events: [] });
    expect((await stored(pk, 's'.repeat(1024)))?.v).toBe(1);
  });

  it('writes the numbers at the edges of the range and precision DynamoDB stores, each stored as given', async () => {
    const edges = {
      smallest: 1e-130,
      smallestNegative: -1e-130,
      largest: NumberValue.from('9.9999999999999999999999999999999999999E+125'),
      widest: 10n ** 38n - 1n,
      trailingZeros: NumberValue.from('1234567890123456789012345678901234567800000'),
      smallDigits: NumberValue.from('0.00000000000000000000000000000000000001234567890123456789012345678901234567'),
      zero: NumberValue.from('0e500'),
      // Spellings DynamoDB reads: a sign, a point without digits on one side, a signed exponent, negative zero.
      plus: NumberValue.from('+5'),
      pointLast: NumberValue.from('5.'),
      pointFirst: NumberValue.from('-.5'),
      signedExponent: NumberValue.from('1.e+5'),
      negativeZero: NumberValue.from('-0'),
    };
    await outbox.write(put({ pk: 'NUMBERS#1', ...edges, set: new Set([NumberValue.from('9'.repeat(38)), NumberValue.from('1E-130')]) }));
    const { Item } = await clients.dynamodb.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'NUMBERS#1' }, sk: { S: 'A' } }, ConsistentRead: true }),
    );
    // Compared as the numbers they spell (`1e-130` and `1E-130` alike), digit for digit.
    const stored = Object.fromEntries(
      Object.entries(Item ?? {}).flatMap(([name, value]) => (value.N === undefined ? [] : [[name, canonicalNumber(value.N)]])),
    );
    const given = Object.fromEntries(Object.entries(edges).map(([name, value]) => [name, canonicalNumber(String(value))]));
    expect(stored).toEqual(given);
    expect(given.widest).toBe(`${'9'.repeat(38)}e0`);
    expect(Item?.set?.NS?.map(canonicalNumber).sort()).toEqual([`${'9'.repeat(38)}e0`, '1e-130'].sort());
  });

  it('writes a Map with string keys as a map', async () => {
    await outbox.write(
      put({
        pk: 'MAP#1',
        lines: new Map([
          ['sku-1', 2],
          ['sku-2', 1],
        ]),
      }),
    );
    expect((await stored('MAP#1'))?.lines).toEqual({ 'sku-1': 2, 'sku-2': 1 });
  });
});
