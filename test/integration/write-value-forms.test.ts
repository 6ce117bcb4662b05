import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { BINARY_BYTES, BINARY_FORMS } from '../helpers/binary-forms.js';
import { newId, testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';
import { writeRefusal } from '../helpers/write-refusal.js';

/**
 * Attribute values the DocumentClient sends otherwise than they read in JavaScript: binary other
 * than a Uint8Array (which it sends without its bytes, or fails on), and Number and String
 * objects (which it sends as the primitives they hold, so they are checked as those). Run against
 * DynamoDB Local: what is refused is refused before anything is sent, what is taken is stored as
 * given (read back).
 */

const clients = testClients();
let tableName: string;
let outbox: Outbox;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'value-forms'));
  outbox = new Outbox({ config: testConfig(), tableName, client: clients.document });
});
afterAll(() => clients.destroy());

const stored = async (pk: string) =>
  (await clients.document.send(new GetCommand({ TableName: tableName, Key: { pk, sk: 'A' }, ConsistentRead: true }))).Item;

const refusal = (input: WriteInput) => writeRefusal(outbox, clients.document, input);

const bytes = BINARY_BYTES;
const binaryForms = BINARY_FORMS;

describe('the write helper: binary values the DocumentClient would not send as their bytes', () => {
  it.each(
    binaryForms.flatMap(([name, make, shown]) => [
      [`${name} in an item`, (pk: string) => ({ Put: { Item: { pk, sk: 'A', v: make() } } }), `Put.Item.v is ${shown}`],
      [
        `${name} in a list in a map`,
        (pk: string) => ({ Put: { Item: { pk, sk: 'A', m: { l: ['x', make()] } } } }),
        `Put.Item.m.l[1] is ${shown}`,
      ],
      [
        `${name} as an expression value`,
        (pk: string) => ({
          Update: { Key: { pk, sk: 'A' }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': make() } },
        }),
        `Update.ExpressionAttributeValues[":v"] is ${shown}`,
      ],
    ]),
  )('refuses %s before sending, writing nothing', async (_, operation, message) => {
    const pk = newId('BINARY');
    const { error, sent } = await refusal({ operations: [operation(pk)], events: [] });

    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^operations\\[0\\]\\.${message.replace(/[.[\]]/g, '\\$&')}, which the DynamoDB DocumentClient does not send as its bytes .*; allowed: binary as a Uint8Array or a Buffer`,
      ),
    );
    expect(sent).toBe(0);
    expect(await stored(pk)).toBeUndefined();
  });

  it('stores a Buffer, a Uint8Array and a view of a larger buffer as their bytes, and a Set of other views as theirs', async () => {
    const pk = newId('BYTES');
    await outbox.write({
      operations: [
        {
          Put: {
            Item: {
              pk,
              sk: 'A',
              buffer: Buffer.from(bytes),
              array: Uint8Array.from(bytes),
              view: Uint8Array.from([9, ...bytes, 9]).subarray(1, 5),
              // Members of a binary Set go their own way: the DocumentClient sends any view's bytes.
              set: new Set([new DataView(Uint8Array.from(bytes).buffer), new Int16Array([1])]),
            },
          },
        },
      ],
      events: [],
    });

    const item = (await stored(pk)) ?? {};
    for (const name of ['buffer', 'array', 'view']) expect([...(item[name] as Uint8Array)]).toEqual(bytes);
    expect([...(item.set as Set<Uint8Array>)].map((member) => [...member])).toEqual([bytes, [1, 0]]);
  });

  it('stores empty binary in any form as empty binary: sent without bytes, it holds none', async () => {
    const pk = newId('EMPTY');
    const empty = { ab: new ArrayBuffer(0), dv: new DataView(new ArrayBuffer(0)), blob: new Blob([]), i16: new Int16Array(0) };
    await outbox.write({ operations: [{ Put: { Item: { pk, sk: 'A', ...empty, m: { l: [new ArrayBuffer(0)] } } } }], events: [] });

    const item = (await stored(pk)) ?? {};
    for (const name of Object.keys(empty)) expect(item[name], name).toEqual(new Uint8Array(0));
    expect(item.m).toEqual({ l: [new Uint8Array(0)] });
  });
});

describe('the write helper: Number and String objects, checked as the primitives they hold', () => {
  it.each([
    ['a Number object out of DynamoDB range', { n: new Number(1e-200) }, 'Put.Item.n is the number 1e-200, which DynamoDB cannot store'],
    [
      'a String object with a lone surrogate',
      { m: { s: new String('k\uD800') } },
      'Put.Item.m.s is a string that is not well-formed Unicode: it holds a lone surrogate',
    ],
  ])('refuses %s before sending, writing nothing', async (_, values, message) => {
    const pk = newId('WRAPPED');
    const { error, sent } = await refusal({ operations: [{ Put: { Item: { pk, sk: 'A', ...values } } }], events: [] });

    expect(error).toBeInstanceOf(WriteValidationError);
    expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
    expect((error as Error).message).toContain(`operations[0].${message}`);
    expect(sent).toBe(0);
    expect(await stored(pk)).toBeUndefined();
  });

  it('stores Number and String objects as the primitives they hold', async () => {
    const pk = newId('WRAPPED');
    await outbox.write({ operations: [{ Put: { Item: { pk, sk: 'A', n: new Number(7.5), s: new String('a') } } }], events: [] });

    expect(await stored(pk)).toMatchObject({ n: 7.5, s: 'a' });
  });
});
