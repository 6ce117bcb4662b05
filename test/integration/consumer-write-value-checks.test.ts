import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxWriteError } from '../../shared/consumer/errors.js';
import type { TransactItem } from '../../shared/consumer/types.js';
import { consumerWriteBatch, viewKey } from '../helpers/consumer-write-batch.js';
import { freshTable, testClients } from '../helpers/local.js';

/**
 * A `transaction` handler's writes go through the write helper's whole value check, as its
 * operations do (attribute-values.ts): values DynamoDB would store other than given (a string
 * with a lone surrogate, which has no UTF-8 form: DynamoDB Local takes `k\uD800` and `k\uDC00`
 * in a key for one item; a Set of mixed types, `new Set(['a', 1])` stored as the string set
 * `["a","1"]`) or refuse (a number out of its range), and cyclic values. Run against
 * DynamoDB Local: such a write fails its message with INVALID_INBOX_WRITE before anything is sent,
 * under commit: 'event' and 'batch' alike, nothing of the event is written, and the batch's other
 * message commits.
 */

const clients = testClients();
let tableName: string;

beforeAll(async () => {
  ({ tableName } = await freshTable(clients, 'consumer-value-checks'));
});
afterAll(() => clients.destroy());

const { get, inboxRecord, runBatch } = consumerWriteBatch(clients, () => tableName);

const NOT_WELL_FORMED =
  'is a string that is not well-formed Unicode: it holds a lone surrogate, which DynamoDB, storing strings as UTF-8, cannot keep; allowed: well-formed Unicode text';

const cyclic = () => {
  const m: Record<string, unknown> = { a: 1 };
  m.self = m;
  return m;
};

const values: readonly (readonly [string, (key: { pk: string; sk: string }) => TransactItem, string])[] = [
  [
    'a string with a lone surrogate in an item',
    (key) => ({ Put: { TableName: tableName, Item: { ...key, s: 'a\uD800' } } }),
    `writes[0].Put.Item.s ${NOT_WELL_FORMED}`,
  ],
  [
    'a string with a lone surrogate in a list in a map',
    (key) => ({ Put: { TableName: tableName, Item: { ...key, m: { l: ['x', 'b\uDC00'] } } } }),
    `writes[0].Put.Item.m.l[1] ${NOT_WELL_FORMED}`,
  ],
  [
    'a key string with a lone surrogate',
    (key) => ({
      Update: {
        TableName: tableName,
        Key: { ...key, sk: 'VIEW\uD800' },
        UpdateExpression: 'SET v = :v',
        ExpressionAttributeValues: { ':v': 1 },
      },
    }),
    `writes[0].Update.Key.sk ${NOT_WELL_FORMED}`,
  ],
  [
    'a Set of mixed types',
    (key) => ({ Put: { TableName: tableName, Item: { ...key, tags: new Set<unknown>(['a', 1]) } } }),
    "writes[0].Put.Item.tags is a Set of mixed types (strings, numbers), which the DocumentClient would send as a set of its first member's type, converting the others or failing; allowed: a non-empty Set of only strings, only numbers (number, bigint or NumberValue) or only binary values, each once",
  ],
  [
    "a number below DynamoDB's range, as an expression value",
    (key) => ({ Update: { TableName: tableName, Key: key, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': 1e-200 } } }),
    'writes[0].Update.ExpressionAttributeValues[":v"] is ',
  ],
  [
    "a number above DynamoDB's range, in a map",
    (key) => ({ Put: { TableName: tableName, Item: { ...key, m: { n: 1e200 } } } }),
    'writes[0].Put.Item.m.n is ',
  ],
  [
    'a cyclic map',
    (key) => ({ Put: { TableName: tableName, Item: { ...key, m: cyclic() } } }),
    'writes[0].Put.Item.m.self refers back to one of its parents (a cycle); allowed: a value without cycles',
  ],
];

const cases = (['event', 'batch'] as const).flatMap((commit) =>
  values.map(([what, write, message], i) => [what, commit, `vc-${commit}-${i}`, write, message] as const),
);

describe("a handler's write holding a value DynamoDB would refuse or store other than given", () => {
  it.each(cases)(
    'fails the message with INVALID_INBOX_WRITE before anything is sent: %s (commit: %s)',
    async (_, commit, name, write, message) => {
      const { bad, good, outcomes, batchItemFailures, sentBad, groupFailed } = await runBatch(name, commit, write);

      expect(outcomes.map((o) => o.status)).toEqual(['failed', 'processed']);
      expect(batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
      const { error } = outcomes[0] as { error: Error };
      expect(error).toBeInstanceOf(InboxWriteError);
      expect(error).toMatchObject({ code: 'INVALID_INBOX_WRITE' });
      expect(error.message).toContain(`The writes of event ${bad.id} (order.placed) are refused before sending: ${message}`);
      expect(error.message).toMatch(/; allowed: .+ Nothing was written\.$/);
      expect(sentBad).toBe(0);
      expect(groupFailed).toBe(0);
      expect(await get(viewKey(bad.id))).toBeUndefined();
      // Where the key case would have written: DynamoDB Local takes that key for any key of one other lone surrogate there.
      expect(await get({ ...viewKey(bad.id), sk: 'VIEW\uD800' })).toBeUndefined();
      expect(await inboxRecord(name, bad.id)).toBeUndefined();
      expect(await get(viewKey(good.id))).toMatchObject({ ok: true });
      expect(await inboxRecord(name, good.id)).toMatchObject({ status: 'COMPLETED' });
    },
  );
});
