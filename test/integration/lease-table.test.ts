import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLeaseTable } from '../../shared/local/lease-table.js';
import { DynamoDbLeaseTable, LeaseLostError } from '../../shared/processor/index.js';
import { testClients } from '../helpers/local.js';
import { losingFirstAnswerOf } from '../helpers/lost-response.js';

const clients = testClients();
afterAll(() => clients.destroy());

/** A fresh lease table, read through `document`, with one lease that worker A holds. */
async function tableWithLease(document = clients.document) {
  const tableName = `leases-${randomUUID().slice(0, 8)}`;
  await createLeaseTable(clients.dynamodb, tableName);
  const plain = new DynamoDbLeaseTable(clients.document, tableName);
  await plain.create('shard-1', []);
  const held = (await plain.take((await plain.list())[0]!, 'A'))!;
  return { table: new DynamoDbLeaseTable(document, tableName), plain, held };
}

describe('lease table: a write whose first attempt was applied but whose answer was lost', () => {
  it('recognises its own renewal, checkpoint, release and take in the SDK’s retry, instead of calling the lease lost', async () => {
    const renewed = await tableWithLease(losingFirstAnswerOf('UpdateItemCommand'));
    expect(await renewed.table.renew(renewed.held, 'A')).toMatchObject({ leaseOwner: 'A', leaseCounter: renewed.held.leaseCounter + 1 });
    expect(await renewed.plain.list()).toMatchObject([{ leaseOwner: 'A', leaseCounter: renewed.held.leaseCounter + 1 }]);

    const checkpointed = await tableWithLease(losingFirstAnswerOf('UpdateItemCommand'));
    expect(await checkpointed.table.checkpoint(checkpointed.held, 'A', '000123')).toMatchObject({ leaseOwner: 'A', checkpoint: '000123' });

    const released = await tableWithLease(losingFirstAnswerOf('UpdateItemCommand'));
    await expect(released.table.release(released.held, 'A')).resolves.toBeUndefined();
    expect((await released.plain.list())[0]?.leaseOwner).toBeUndefined();

    const taken = await tableWithLease(losingFirstAnswerOf('UpdateItemCommand'));
    expect(await taken.table.take(taken.held, 'B')).toMatchObject({ leaseOwner: 'B', leaseCounter: taken.held.leaseCounter + 1 });
  });

  it('still reports a lease another worker took, and a checkpoint another write beat', async () => {
    const { table, plain, held } = await tableWithLease();
    const stolen = (await plain.take(held, 'B'))!;

    await expect(table.renew(held, 'A')).rejects.toBeInstanceOf(LeaseLostError);
    await expect(table.checkpoint(held, 'A', '000200')).rejects.toBeInstanceOf(LeaseLostError);
    // B's own write one up from A's view is not A's: a take is not A's renewal.
    expect(stolen).toMatchObject({ leaseOwner: 'B', leaseCounter: held.leaseCounter + 1 });
    expect(await table.take(held, 'A')).toBeUndefined();
  });
});
