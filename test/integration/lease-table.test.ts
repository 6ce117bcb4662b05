import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { LeaseLostError } from '../../shared/processor/index.js';
import { DynamoDbLeaseTable } from '../../shared/processor/lease-table.js';
import { parentsFinished } from '../../shared/processor/shard-sync.js';
import { freshLeaseTable, tableWithLease } from '../helpers/lease-tables.js';
import { testClients } from '../helpers/local.js';
import { losingFirstAnswerOf } from '../helpers/lost-response.js';

const clients = testClients();
afterAll(() => clients.destroy());

describe('lease table: a write whose first attempt was applied but whose answer was lost', () => {
  it('recognises its own renewal, checkpoint, release and take in the SDK’s retry, instead of calling the lease lost', async () => {
    const renewed = await tableWithLease(clients, losingFirstAnswerOf('UpdateItemCommand'));
    expect(await renewed.table.renew(renewed.held, 'A')).toMatchObject({ leaseOwner: 'A', leaseCounter: renewed.held.leaseCounter + 1 });
    expect(await renewed.plain.list()).toMatchObject([{ leaseOwner: 'A', leaseCounter: renewed.held.leaseCounter + 1 }]);

    const checkpointed = await tableWithLease(clients, losingFirstAnswerOf('UpdateItemCommand'));
    expect(await checkpointed.table.checkpoint(checkpointed.held, 'A', '000123')).toMatchObject({ leaseOwner: 'A', checkpoint: '000123' });

    const released = await tableWithLease(clients, losingFirstAnswerOf('UpdateItemCommand'));
    await expect(released.table.release(released.held, 'A')).resolves.toBeUndefined();
    expect((await released.plain.list())[0]?.leaseOwner).toBeUndefined();

    const taken = await tableWithLease(clients, losingFirstAnswerOf('UpdateItemCommand'));
    expect(await taken.table.take(taken.held, 'B')).toMatchObject({ leaseOwner: 'B', leaseCounter: taken.held.leaseCounter + 1 });
  });

  it('still reports a lease another worker took, and a checkpoint another write beat', async () => {
    const { table, plain, held } = await tableWithLease(clients);
    const stolen = (await plain.take(held, 'B'))!;

    await expect(table.renew(held, 'A')).rejects.toBeInstanceOf(LeaseLostError);
    await expect(table.checkpoint(held, 'A', '000200')).rejects.toBeInstanceOf(LeaseLostError);
    // B's own write one up from A's view is not A's: a take is not A's renewal.
    expect(stolen).toMatchObject({ leaseOwner: 'B', leaseCounter: held.leaseCounter + 1 });
    expect(await table.take(held, 'A')).toBeUndefined();
  });
});

/**
 * A DocumentClient on the run's DynamoDB Local whose scans leave out `leaseKey`, as a scan over
 * several pages does when it read that lease's page before a shard sync created the lease.
 */
function scansMissing(leaseKey: string): DynamoDBDocumentClient {
  const client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('dynamodbEndpoint') });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      // The DocumentClient's own middleware has unmarshalled the items by this step.
      const output = result.output as { Items?: Record<string, unknown>[] };
      if (context.commandName === 'ScanCommand') output.Items = output.Items?.filter((item) => item.leaseKey !== leaseKey);
      return result;
    },
    { step: 'finalizeRequest', name: 'scanMissing' },
  );
  return DynamoDBDocumentClient.from(client);
}

describe('lease table: failed attempts', () => {
  it('keeps the owner’s failed attempts for the next holder, refuses them from a worker that lost the lease, and clears them at a checkpoint', async () => {
    const { table, held } = await tableWithLease(clients);
    const failed = { sequenceNumber: '000300', attempts: 2 };
    const kept = await table.recordFailure(held, 'A', failed);
    expect(kept).toMatchObject({ leaseOwner: 'A', leaseCounter: held.leaseCounter + 1, failedAttempts: failed });
    await expect(table.recordFailure(held, 'A', { ...failed, attempts: 3 })).rejects.toBeInstanceOf(LeaseLostError);
    const taken = (await table.take(kept, 'B'))!;
    expect(taken.failedAttempts).toEqual(failed);
    expect((await table.checkpoint(taken, 'B', '000299')).failedAttempts).toBeUndefined();
    expect((await table.list())[0]?.failedAttempts).toBeUndefined();
  });
});

describe('lease table: a parent the scan missed', () => {
  it('is read on its own, so its child does not start while the parent is unfinished', async () => {
    const plain = await freshLeaseTable(clients);
    await plain.create('parent', []);
    await plain.create('child', ['parent']);

    const leases = await new DynamoDbLeaseTable(scansMissing('parent'), plain.tableName).list();

    expect(leases.map((lease) => lease.leaseKey).sort()).toEqual(['child', 'parent']);
    expect(parentsFinished(leases.find((lease) => lease.leaseKey === 'child')!, leases)).toBe(false);
  });

  it('is left out when it is really gone, and a started child reads nothing more', async () => {
    const plain = await freshLeaseTable(clients);
    await plain.create('child', ['gone']);
    await plain.create('parent', []);
    await plain.create('started', ['parent']);
    const started = (await plain.take((await plain.list()).find((lease) => lease.leaseKey === 'started')!, 'A'))!;
    await plain.checkpoint(started, 'A', '000100');

    const leases = await new DynamoDbLeaseTable(scansMissing('parent'), plain.tableName).list();

    expect(leases.map((lease) => lease.leaseKey).sort()).toEqual(['child', 'started']);
    expect(parentsFinished(leases.find((lease) => lease.leaseKey === 'child')!, leases)).toBe(true);
  });
});
