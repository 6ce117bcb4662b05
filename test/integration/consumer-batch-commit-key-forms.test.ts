import type { ScalarAttributeType } from '@aws-sdk/client-dynamodb';
import { GetCommand, NumberValue } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { batchCommitFixture, count, messages, statuses } from '../helpers/batch-commit.js';
import { BINARY_BYTES, keyTypeTables } from '../helpers/binary-forms.js';
import { anEnvelope } from '../helpers/envelopes.js';

const { batchConsumer, clients } = batchCommitFixture('consumer-batch-key-forms');

/** A table keyed by `scope` (a string, one per test) and `id` of `type`, beside the inbox's: the handlers' writes go there. */
let tables: Record<ScalarAttributeType, string>;
beforeAll(async () => {
  tables = await keyTypeTables(clients, 'key-forms');
});

const tableOf = (type: ScalarAttributeType): string => tables[type];

/**
 * Two events of two aggregates, processed in one batch, whose handlers each add 1 to the item of
 * `type`'s table keyed by `scope` and its event's form of `id` (`forms[0]`, then `forms[1]`): the transactions
 * sent, whether a group transaction failed, and what the first form's item holds.
 */
async function twoWrites(scope: string, type: ScalarAttributeType, forms: readonly [unknown, unknown]) {
  let index = 0;
  const { consumer, sent, logs } = batchConsumer(
    scope,
    {},
    {
      'order.placed': {
        handle: (_event, ctx) =>
          ctx.write({
            Update: {
              TableName: tableOf(type),
              Key: { scope, id: forms[index++ % 2] },
              UpdateExpression: 'ADD applied :one',
              ExpressionAttributeValues: { ':one': 1 },
            },
          }),
      },
    },
  );
  const events = [anEnvelope({ aggregateId: `${scope}-1` }), anEnvelope({ aggregateId: `${scope}-2` })];
  const { outcomes } = await consumer.process(messages(events.map((e) => e.body)));
  const { Item } = await clients.document.send(
    new GetCommand({ TableName: tableOf(type), Key: { scope, id: forms[0] }, ConsistentRead: true }),
  );
  return {
    outcomes,
    statuses: statuses(outcomes),
    transactions: count(sent, 'TransactWriteItems'),
    groupFailed: logs.filter((entry) => entry.message.includes('group transaction failed')).length,
    applied: Number(Item?.applied ?? 0),
  };
}

const bytes = BINARY_BYTES;

describe("consumer, commit: 'batch': one item whatever the JavaScript form of its key", () => {
  it.each([
    ['a number and a bigint', 'num-bigint', 'N', [7, 7n]],
    ['a number and a NumberValue', 'num-numbervalue', 'N', [7, NumberValue.from('7')]],
    ['a bigint and a NumberValue', 'bigint-numbervalue', 'N', [12345678901234567890n, NumberValue.from('12345678901234567890')]],
    ['a number and a NumberValue of another spelling (7.0)', 'num-spelling', 'N', [7, NumberValue.from('7.0')]],
    ['a number and a NumberValue with an exponent (7E0)', 'num-exponent', 'N', [7, NumberValue.from('70e-1')]],
    ['zero and minus zero', 'zero', 'N', [0, -0]],
    ['a Buffer and a Uint8Array of the same bytes', 'buffer-uint8', 'B', [Buffer.from(bytes), Uint8Array.from(bytes)]],
    [
      'a Uint8Array and a view of the same bytes in a larger buffer',
      'view',
      'B',
      [Uint8Array.from(bytes), new Uint8Array([9, ...bytes, 9]).subarray(1, 5)],
    ],
  ] as const)('commits the group before a second write of one item, its key given as %s', async (_, scope, type, forms) => {
    const result = await twoWrites(scope, type, forms);

    expect(result).toMatchObject({ statuses: ['processed', 'processed'], transactions: 2, groupFailed: 0, applied: 2 });
  });

  it('refuses key strings with lone surrogates before sending, which DynamoDB Local takes for one item (INVALID_INBOX_WRITE)', async () => {
    const { outcomes, ...result } = await twoWrites('surrogates', 'S', ['k\uD800', 'k\uDC00']);

    // Neither event's write is sent: nothing is written under either key (DynamoDB Local reads both as one item).
    expect(result).toEqual({ statuses: ['failed', 'failed'], transactions: 0, groupFailed: 0, applied: 0 });
    for (const outcome of outcomes) {
      expect((outcome as { error: Error }).error).toMatchObject({ code: 'INVALID_INBOX_WRITE' });
      expect((outcome as { error: Error }).error.message).toContain(
        'are refused before sending: writes[0].Update.Key.id is a string that is not well-formed Unicode',
      );
    }
  });

  it.each([
    ['two numbers', 'two-numbers', 'N', [7, NumberValue.from('7.5')]],
    ['two byte strings', 'two-binaries', 'B', [Buffer.from([1, 2]), Uint8Array.from([1, 2, 0])]],
    ['a number text and a number in a string table', 'strings', 'S', ['7', '7.0']],
  ] as const)('keeps writes of two items, %s, in one group transaction', async (_, scope, type, forms) => {
    const result = await twoWrites(scope, type, forms);

    expect(result).toMatchObject({ statuses: ['processed', 'processed'], transactions: 1, groupFailed: 0, applied: 1 });
  });
});
