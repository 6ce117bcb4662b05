import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConsumer } from '../../shared/consumer/consumer.js';
import { InboxWriteError } from '../../shared/consumer/errors.js';
import { inboxKey } from '../../shared/consumer/inbox.js';
import type { TransactItem } from '../../shared/consumer/types.js';
import { anEnvelope, TEST_SOURCE } from '../helpers/envelopes.js';
import { freshTable, testClients } from '../helpers/local.js';
import { recordingTelemetry } from '../helpers/recording-telemetry.js';

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

const get = async (Key: Record<string, unknown>) =>
  (await clients.document.send(new GetCommand({ TableName: tableName, Key, ConsistentRead: true }))).Item;
const inboxRecord = (consumer: string, eventId: string) => get(inboxKey(consumer, { source: TEST_SOURCE, id: eventId }));
const viewKey = (eventId: string) => ({ pk: `VIEW#${eventId}`, sk: 'VIEW' });

/** Runs a batch of two events under consumer `name`: the first's handler adds `write(viewKey)`, the second's a plain Put of its view. */
async function runBatch(name: string, commit: 'event' | 'batch', write: (key: { pk: string; sk: string }) => TransactItem) {
  const telemetry = recordingTelemetry();
  const consumer = createConsumer({
    name,
    sources: [TEST_SOURCE],
    handlers: {
      'order.placed': {
        handle: (event, ctx) => {
          const key = viewKey(event.id);
          ctx.write(event.subject.endsWith('bad') ? write(key) : { Put: { TableName: tableName, Item: { ...key, ok: true } } });
        },
      },
    },
    inbox: { document: clients.document, tableName },
    logger: telemetry.logger,
    metrics: telemetry.metrics,
    commit,
  });
  const bad = anEnvelope({ aggregateId: `${name}-bad` });
  const good = anEnvelope({ aggregateId: `${name}-good` });
  const send = vi.spyOn(clients.document, 'send');
  try {
    const { outcomes, batchItemFailures } = await consumer.process([
      { messageId: 'm1', body: bad.body },
      { messageId: 'm2', body: good.body },
    ]);
    const badKey = viewKey(bad.id).pk;
    // The requests that carried the first event's write: none when it is refused before sending.
    const sentBad = send.mock.calls.filter(([command]) => JSON.stringify(command.input ?? {}).includes(badKey)).length;
    const groupFailed = telemetry.logs.filter((log) => log.message.startsWith("The batch's group transaction failed")).length;
    return { bad, good, outcomes, batchItemFailures, sentBad, groupFailed };
  } finally {
    send.mockRestore();
  }
}

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
