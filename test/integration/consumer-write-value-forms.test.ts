import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxWriteError } from '../../shared/consumer/errors.js';
import { BINARY_BYTES, BINARY_FORMS } from '../helpers/binary-forms.js';
import { consumerWriteBatch, viewKey } from '../helpers/consumer-write-batch.js';
import { freshTable, testClients } from '../helpers/local.js';

/**
 * A `transaction` handler's writes holding binary the DocumentClient would not send as its bytes,
 * as the write helper refuses it (write-value-forms.test.ts): binary other than a Uint8Array (sent
 * as empty binary, or failed on in the client), and an ArrayBuffer or a Blob in a binary Set (failed
 * on in the client). Run against DynamoDB Local: such a write fails its
 * message with INVALID_INBOX_WRITE before anything is sent, so SQS delivers the message again (and
 * to its DLQ in the end), and nothing of the event is written; the batch's other message commits.
 */

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-value-forms'));
});
afterAll(() => clients.destroy());

const { get, inboxRecord, runBatch } = consumerWriteBatch(clients, () => tableName);

const bytes = BINARY_BYTES;
const binaryForms = BINARY_FORMS;

const placements = (make: () => unknown, shown: string) =>
  [
    ['in an item', (key: object) => ({ Put: { TableName: tableName, Item: { ...key, v: make() } } }), `Put.Item.v is ${shown}`],
    [
      'in a list in a map',
      (key: object) => ({ Put: { TableName: tableName, Item: { ...key, m: { l: ['x', make()] } } } }),
      `Put.Item.m.l[1] is ${shown}`,
    ],
    [
      'as an expression value',
      (key: object) => ({
        Update: { TableName: tableName, Key: key, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': make() } },
      }),
      `Update.ExpressionAttributeValues[":v"] is ${shown}`,
    ],
  ] as const;

const cases = (['event', 'batch'] as const).flatMap((commit) =>
  binaryForms.flatMap(([name, make, shown], form) =>
    placements(make, shown).map(
      ([where, write, message], place) => [`${name} ${where}`, commit, `vf-${commit}-${form}-${place}`, write, message] as const,
    ),
  ),
);

describe("a handler's write holding binary the DocumentClient would not send as its bytes", () => {
  it.each(cases)(
    'fails the message with INVALID_INBOX_WRITE before anything is sent: %s (commit: %s)',
    async (_, commit, name, write, message) => {
      const { bad, good, outcomes, batchItemFailures, sentBad, groupFailed } = await runBatch(name, commit, write as never);

      expect(outcomes.map((o) => o.status)).toEqual(['failed', 'processed']);
      // The message is not deleted: SQS delivers it again, and to its DLQ after maxReceiveCount.
      expect(batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
      const { error } = outcomes[0] as { error: Error };
      expect(error).toBeInstanceOf(InboxWriteError);
      expect(error).toMatchObject({ code: 'INVALID_INBOX_WRITE' });
      expect(error.message).toContain(`The writes of event ${bad.id} (order.placed) are refused before sending: `);
      expect(error.message).toContain(
        `writes[0].${message}, which the DynamoDB DocumentClient does not send as its bytes (it sends an ArrayBuffer, a DataView or a Blob as empty binary, and fails on a typed array other than Uint8Array); allowed: binary as a Uint8Array or a Buffer`,
      );
      expect(error.message).toMatch(/ Nothing was written\.$/);
      expect(sentBad).toBe(0);
      expect(groupFailed).toBe(0);
      expect(await get(viewKey(bad.id))).toBeUndefined();
      expect(await inboxRecord(name, bad.id)).toBeUndefined();
      expect(await get(viewKey(good.id))).toMatchObject({ ok: true });
      expect(await inboxRecord(name, good.id)).toMatchObject({ status: 'COMPLETED' });
    },
  );

  it.each(['event', 'batch'] as const)(
    'stores a Buffer, a Uint8Array and a view of a larger buffer as their bytes (commit: %s)',
    async (commit) => {
      const name = `vf-bytes-${commit}`;
      const { bad, outcomes } = await runBatch(name, commit, (key) => ({
        Put: {
          TableName: tableName,
          Item: {
            ...key,
            buffer: Buffer.from(bytes),
            array: Uint8Array.from(bytes),
            view: Uint8Array.from([9, ...bytes, 9]).subarray(1, 5),
          },
        },
      }));

      expect(outcomes.map((o) => o.status)).toEqual(['processed', 'processed']);
      const item = (await get(viewKey(bad.id))) ?? {};
      for (const field of ['buffer', 'array', 'view']) expect([...(item[field] as Uint8Array)]).toEqual(bytes);
    },
  );
});

/**
 * Number and String objects go as the primitives they hold, and are checked as the write helper
 * checks them: a wrapper is taken as its primitive is (new Number(1e-200) is refused before sending,
 * as 1e-200 is: consumer-write-value-checks.test.ts).
 */
describe("a handler's write holding Number and String objects", () => {
  it('stores Number and String objects as the primitives they hold', async () => {
    const { bad, outcomes } = await runBatch('vf-wrapped-ok', 'event', (key) => ({
      Put: { TableName: tableName, Item: { ...key, n: new Number(7.5), s: new String('a') } },
    }));

    expect(outcomes.map((o) => o.status)).toEqual(['processed', 'processed']);
    expect(await get(viewKey(bad.id))).toMatchObject({ n: 7.5, s: 'a' });
  });
});

describe("a handler's write holding a binary Set with a member the DocumentClient fails on", () => {
  it.each(
    (['event', 'batch'] as const).flatMap((commit) => [
      ['an ArrayBuffer', commit, () => Uint8Array.from([1, 2]).buffer, 'an ArrayBuffer of 2 bytes', 'new Uint8Array(arrayBuffer)'],
      ['a Blob', commit, () => new Blob([Uint8Array.from([1, 2])]), 'a Blob of 2 bytes', 'new Uint8Array(await blob.arrayBuffer())'],
    ]),
  )(
    'fails the message with INVALID_INBOX_WRITE before anything is sent: %s member (commit: %s)',
    async (what, commit, make, shown, instead) => {
      const name = `vf-set-${commit}-${what.slice(-4)}`;
      const { bad, good, outcomes, sentBad, groupFailed } = await runBatch(name, commit, (key) => ({
        Put: { TableName: tableName, Item: { ...key, s: new Set([Uint8Array.from([3]), make()]) } },
      }));

      expect(outcomes.map((o) => o.status)).toEqual(['failed', 'processed']);
      expect(groupFailed).toBe(0);
      const { error } = outcomes[0] as { error: Error };
      expect(error).toBeInstanceOf(InboxWriteError);
      expect(error.message).toContain(
        `writes[0].Put.Item.s is a binary Set holding ${shown}, on which the DynamoDB DocumentClient fails (it sends the members of a binary Set from views: a Uint8Array, a Buffer, another typed array or a DataView); allowed: members as a Uint8Array or a Buffer, e.g. ${instead}`,
      );
      expect(sentBad).toBe(0);
      expect(await get(viewKey(bad.id))).toBeUndefined();
      expect(await inboxRecord(name, bad.id)).toBeUndefined();
      expect(await inboxRecord(name, good.id)).toMatchObject({ status: 'COMPLETED' });
    },
  );

  it('stores a binary Set of other views as their bytes', async () => {
    const { bad, outcomes } = await runBatch('vf-set-views', 'event', (key) => ({
      Put: { TableName: tableName, Item: { ...key, s: new Set([new DataView(Uint8Array.from(bytes).buffer), new Int16Array([1])]) } },
    }));

    expect(outcomes.map((o) => o.status)).toEqual(['processed', 'processed']);
    const item = (await get(viewKey(bad.id))) ?? {};
    expect([...(item.s as Set<Uint8Array>)].map((member) => [...member])).toEqual([bytes, [1, 0]]);
  });
});

describe("a handler's write holding empty binary in any form", () => {
  it.each(['event', 'batch'] as const)('stores it as the empty binary it is (commit: %s)', async (commit) => {
    const { bad, outcomes } = await runBatch(`vf-empty-${commit}`, commit, (key) => ({
      Put: { TableName: tableName, Item: { ...key, ab: new ArrayBuffer(0), dv: new DataView(new ArrayBuffer(0)), blob: new Blob([]) } },
    }));

    expect(outcomes.map((o) => o.status)).toEqual(['processed', 'processed']);
    expect(await get(viewKey(bad.id))).toMatchObject({ ab: new Uint8Array(0), dv: new Uint8Array(0), blob: new Uint8Array(0) });
  });
});
