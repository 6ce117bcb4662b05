import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { LeaseLostError } from '../../shared/processor/index.js';
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
  it('is set by the owner as a write (the counter one up), kept by its renewals and checkpoints, and listed', async () => {
    const { table, held } = await tableWithLease(clients);

    const marked = await table.handOver(held, 'A');
    expect(marked).toMatchObject({ leaseOwner: 'A', leaseCounter: held.leaseCounter + 1, handingOver: true });
    const renewed = await table.renew(marked, 'A');
    const checkpointed = await table.checkpoint(renewed, 'A', '000123');

    expect(checkpointed).toMatchObject({ leaseCounter: held.leaseCounter + 3, checkpoint: '000123', handingOver: true });
    expect(await table.list()).toEqual([checkpointed]);
    expect(await rawItem(table.tableName)).toMatchObject({ handingOverBy: 'A' });
  });

  it('is cleared by the release, and by a take (a new owner hands nothing over)', async () => {
    const released = await tableWithLease(clients);
    await released.table.release(await released.table.handOver(released.held, 'A'), 'A');
    const [free] = await released.table.list();
    expect(free).not.toHaveProperty('handingOver');
    expect(free?.leaseOwner).toBeUndefined();

    const taken = await tableWithLease(clients);
    const marked = await taken.table.handOver(taken.held, 'A');
    // After the owner died while stopping, say: its lease expired and B takes it.
    const byB = await taken.table.take(marked, 'B');
    expect(byB).toMatchObject({ leaseOwner: 'B', leaseCounter: marked.leaseCounter + 1 });
    expect(byB).not.toHaveProperty('handingOver');
    expect((await taken.table.list())[0]).not.toHaveProperty('handingOver');
    // Gone from the items, not only from what is listed.
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

  it('is refused as a lost lease to a worker that no longer holds the lease, and writes nothing', async () => {
    const { table, held } = await tableWithLease(clients);
    const byB = (await table.take(held, 'B'))!;

    await expect(table.handOver(held, 'A')).rejects.toBeInstanceOf(LeaseLostError);
    await expect(table.handOver(byB, 'A')).rejects.toBeInstanceOf(LeaseLostError);
    expect(await table.list()).toEqual([byB]);
  });

  it('recognises its own mark in the SDK’s retry after the answer was lost, instead of calling the lease lost', async () => {
    const { table, plain, held } = await tableWithLease(clients, losingFirstAnswerOf('UpdateItemCommand'));

    expect(await table.handOver(held, 'A')).toMatchObject({ leaseOwner: 'A', leaseCounter: held.leaseCounter + 1, handingOver: true });
    expect(await plain.list()).toMatchObject([{ leaseCounter: held.leaseCounter + 1, handingOver: true }]);
  });
});
