import type { ScalarAttributeType } from '@aws-sdk/client-dynamodb';
import { GetCommand, NumberValue } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { BINARY_BYTES, BINARY_FORMS, keyTypeTables } from '../helpers/binary-forms.js';
import { newId, testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';
import { writeRefusal } from '../helpers/write-refusal.js';

/**
 * The write helper's operations on another table's items, keyed by `scope` (a string) and `id`
 * of each key type, `id` given in each JavaScript form the DocumentClient sends as that type:
 * two operations on one item are refused before anything is sent, however each key is written.
 * Run against DynamoDB Local.
 */

const clients = testClients();
let outbox: Outbox;
let outboxTable: string;
let tables: Record<ScalarAttributeType, string>;

beforeAll(async () => {
  ({ tableName: outboxTable } = await freshTable(clients, 'key-forms'));
  outbox = new Outbox({ config: testConfig(), tableName: outboxTable, client: clients.document });
  tables = await keyTypeTables(clients, 'write-key-forms');
});
afterAll(() => clients.destroy());

/** An update adding 1 to `applied` of the item of `type`'s table keyed by `scope` and `id`. */
const add = (type: ScalarAttributeType, scope: string, id: unknown) => ({
  Update: {
    TableName: tables[type],
    Key: { scope, id },
    UpdateExpression: 'ADD applied :one',
    ExpressionAttributeValues: { ':one': 1 },
  },
});

/** What `applied` of the item keyed by `scope` and `id` holds, read back. */
async function applied(type: ScalarAttributeType, scope: string, id: unknown): Promise<number> {
  const { Item } = await clients.document.send(new GetCommand({ TableName: tables[type], Key: { scope, id }, ConsistentRead: true }));
  return Number(Item?.applied ?? 0);
}

const refusal = (input: WriteInput) => writeRefusal(outbox, clients.document, input);

const bytes = BINARY_BYTES;

describe('the write helper: two operations on one item of another table, however the key is written', () => {
  it.each([
    ['a Number object and the number', 'N', [new Number(7), 7], 7],
    ['two Number objects', 'N', [new Number(7), new Number(7)], 7],
    ['a bigint and a Number object', 'N', [7n, new Number(7)], 7],
    ['a Number object and a NumberValue of another spelling (7.0)', 'N', [new Number(7), NumberValue.from('7.0')], 7],
    ['a Number object of minus zero and zero', 'N', [new Number(-0), 0], 0],
    ['a String object and the string', 'S', [new String('a'), 'a'], 'a'],
    ['two String objects', 'S', [new String('a'), new String('a')], 'a'],
    ['a Buffer and a Uint8Array of the same bytes', 'B', [Buffer.from(bytes), Uint8Array.from(bytes)], Uint8Array.from(bytes)],
  ] as const)('refuses them before sending, the key given as %s', async (_, type, forms, id) => {
    const scope = newId('pair');
    const { error, sent } = await refusal({ operations: forms.map((form) => add(type, scope, form)), events: [] });

    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'DUPLICATE_ITEM' });
    expect((error as Error).message).toBe(
      'operations[0] and operations[1] target the same item; allowed: one action per item in a transaction',
    );
    expect(sent).toBe(0);
    expect(await applied(type, scope, id)).toBe(0);
  });

  it.each([
    ['a Number object', 'N', new Number(7), 7],
    ['a Number object of minus zero', 'N', new Number(-0), 0],
    ['a String object', 'S', new String('a'), 'a'],
  ] as const)('writes the item the primitive names, its key given alone as %s', async (_, type, form, id) => {
    const scope = newId('one');
    await outbox.write({ operations: [add(type, scope, form)], events: [] });

    expect(await applied(type, scope, id)).toBe(1);
  });

  it.each([
    ['Number objects', 'N', [new Number(7), new Number(8)]],
    ['String objects', 'S', [new String('a'), new String('b')]],
  ] as const)('writes two items in one transaction, keyed by two %s of different values', async (_, type, forms) => {
    const scope = newId('two');
    await outbox.write({ operations: forms.map((form) => add(type, scope, form)), events: [] });

    expect(await applied(type, scope, forms[0].valueOf())).toBe(1);
    expect(await applied(type, scope, forms[1].valueOf())).toBe(1);
  });

  it('refuses a String object key with a lone surrogate before sending, as it refuses the string', async () => {
    const scope = newId('surrogate');
    const { error, sent } = await refusal({
      operations: [add('S', scope, new String('k\uD800')), add('S', scope, new String('k\uDC00'))],
      events: [],
    });

    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
    expect((error as Error).message).toContain(
      'operations[0].Update.Key.id is "k\\ud800", which is not well-formed Unicode (it holds a lone surrogate)',
    );
    expect(sent).toBe(0);
  });

  it.each(BINARY_FORMS.filter(([name]) => name !== 'a Blob'))(
    'refuses a binary key given as %s before sending: the DocumentClient would not send its bytes',
    async (_, make, shown) => {
      const scope = newId('binary');
      const { error, sent } = await refusal({
        operations: [add('B', scope, make()), add('B', scope, Uint8Array.from(bytes))],
        events: [],
      });

      expect(error).toBeInstanceOf(WriteValidationError);
      expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
      expect((error as Error).message).toMatch(
        new RegExp(
          `^operations\\[0\\]\\.Update\\.Key\\.id is ${shown}, which the DynamoDB DocumentClient does not send as its bytes .*; allowed: .*Uint8Array`,
        ),
      );
      expect(sent).toBe(0);
      expect(await applied('B', scope, Uint8Array.from(bytes))).toBe(0);
    },
  );

  it("refuses a String object as the outbox table's own key before sending, as before", async () => {
    const pk = newId('ORDER');
    const { error, sent } = await refusal({
      operations: [{ Put: { Item: { pk: new String(pk), sk: 'A' } } }, { Delete: { Key: { pk, sk: 'A' } } }],
      events: [],
    });

    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
    expect((error as Error).message).toMatch(/^operations\[0\]\.Put\.Item\.pk is .*; allowed: a non-empty string/);
    expect(sent).toBe(0);
  });
});
