import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { handOverMarkTests } from '../helpers/lease-store-hand-over.js';
import { tableWithLease } from '../helpers/lease-tables.js';
import { testClients } from '../helpers/local.js';
import { losingFirstAnswerOf } from '../helpers/lost-response.js';

const clients = testClients();
afterAll(() => clients.destroy());

/** The item as stored, not as listed. */
async function rawItem(tableName: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await clients.document.send(
    new GetCommand({ TableName: tableName, Key: { leaseKey: 'shard-1' }, ConsistentRead: true }),
  );
  return Item;
}

describe('lease table: the hand-over mark', () => {
  handOverMarkTests(() => tableWithLease(clients));

  it('is stored as the marking owner, and gone from the item once released or taken', async () => {
    const kept = await tableWithLease(clients);
    await kept.table.handOver(kept.held, 'A');
    expect(await rawItem(kept.table.tableName)).toMatchObject({ handingOverBy: 'A' });

    const released = await tableWithLease(clients);
    await released.table.release(await released.table.handOver(released.held, 'A'), 'A');
    const taken = await tableWithLease(clients);
    await taken.table.take(await taken.table.handOver(taken.held, 'A'), 'B');
    for (const { table } of [released, taken]) expect(await rawItem(table.tableName)).not.toHaveProperty('handingOverBy');
  });

  it('is ignored once the lease has another owner than the worker that marked it (a take that left the mark)', async () => {
    const { table, held } = await tableWithLease(clients);
    const marked = await table.handOver(held, 'A');
    // A take as a worker of an earlier version writes it: the owner changed, the mark left in place.
    await clients.document.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { leaseKey: 'shard-1' },
        UpdateExpression: 'SET leaseOwner = :b, leaseCounter = leaseCounter + :one',
        ExpressionAttributeValues: { ':b': 'B', ':one': 1 },
      }),
    );

    const [listed] = await table.list();
    expect(listed).toMatchObject({ leaseOwner: 'B', leaseCounter: marked.leaseCounter + 1 });
    expect(listed).not.toHaveProperty('handingOver');
  });

  it('recognises its own mark in the SDK’s retry after the answer was lost, instead of calling the lease lost', async () => {
    const { table, plain, held } = await tableWithLease(clients, losingFirstAnswerOf('UpdateItemCommand'));

    expect(await table.handOver(held, 'A')).toMatchObject({ leaseOwner: 'A', leaseCounter: held.leaseCounter + 1, handingOver: true });
    expect(await plain.list()).toMatchObject([{ leaseCounter: held.leaseCounter + 1, handingOver: true }]);
  });
});
