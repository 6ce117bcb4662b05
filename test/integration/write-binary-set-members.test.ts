import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WriteValidationError } from '../../shared/errors.js';
import { Outbox, type WriteInput } from '../../shared/write/index.js';
import { newId, testConfig } from '../helpers/factories.js';
import { freshTable, testClients } from '../helpers/local.js';
import { writeRefusal } from '../helpers/write-refusal.js';

/**
 * A binary Set's members: the DocumentClient sends a view's bytes (any typed array, a DataView)
 * and fails on an ArrayBuffer or a Blob member, once the write is under way. Run against DynamoDB
 * Local: such a Set is refused before anything is sent.
 */

const clients = testClients();
let tableName: string;
let outbox: Outbox;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'set-members'));
  outbox = new Outbox({ config: testConfig(), tableName, client: clients.document });
});
afterAll(() => clients.destroy());

const stored = async (pk: string) =>
  (await clients.document.send(new GetCommand({ TableName: tableName, Key: { pk, sk: 'A' }, ConsistentRead: true }))).Item;

const refusal = (input: WriteInput) => writeRefusal(outbox, clients.document, input);

describe('the write helper: a binary Set with a member the DocumentClient fails on', () => {
  it.each([
    ['an ArrayBuffer', () => Uint8Array.from([1, 2]).buffer, 'an ArrayBuffer of 2 bytes', 'new Uint8Array(arrayBuffer)'],
    ['a Blob', () => new Blob([Uint8Array.from([1, 2])]), 'a Blob of 2 bytes', 'new Uint8Array(await blob.arrayBuffer())'],
  ] as const)('refuses %s member before sending, writing nothing, wherever it stands', async (_, make, shown, instead) => {
    for (const [where, item] of [
      ['Put.Item.s', { s: new Set([Uint8Array.from([3]), make()]) }],
      ['Put.Item.m.l[0]', { m: { l: [new Set([make()])] } }],
    ] as const) {
      const pk = newId('SET');
      const { error, sent } = await refusal({ operations: [{ Put: { Item: { pk, sk: 'A', ...item } } }], events: [] });

      expect(error).toBeInstanceOf(WriteValidationError);
      expect(error).toMatchObject({ code: 'INVALID_OPERATION' });
      expect((error as Error).message).toBe(
        `operations[0].${where} is a binary Set holding ${shown}, on which the DynamoDB DocumentClient fails (it sends the members of a binary Set from views: a Uint8Array, a Buffer, another typed array or a DataView); allowed: members as a Uint8Array or a Buffer, e.g. ${instead}`,
      );
      expect(sent).toBe(0);
      expect(await stored(pk)).toBeUndefined();
    }
  });
});
