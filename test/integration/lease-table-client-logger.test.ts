import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { DynamoDbLeaseTable } from '../../shared/processor/lease-table.js';
import { freshLeaseTable } from '../helpers/lease-tables.js';
import { testClients } from '../helpers/local.js';

const clients = testClients();
afterAll(() => clients.destroy());

/** What the SDK's logger middleware hands a client's logger for one request. */
type Logged = { commandName: string; input: Record<string, unknown>; output?: Record<string, unknown> };

describe("the lease table and its client's logger", () => {
  it('logs each request and answer whole: a lease’s parent shards as the list they are', async () => {
    const info = vi.fn();
    const logger = { trace() {}, debug() {}, info, warn() {}, error() {} };
    const client = new DynamoDBClient({
      endpoint: inject('dynamodbEndpoint'),
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      logger,
    });
    const document = DynamoDBDocumentClient.from(client);
    const table = new DynamoDbLeaseTable(document, (await freshLeaseTable(clients)).tableName);
    const entries = (name: string) =>
      info.mock.calls.map(([entry]) => entry as Logged).filter((entry) => entry.commandName === `${name}Command`);

    expect(await table.create('shard-2', ['shard-1'])).toBe(true);
    const [lease] = await table.list();
    expect(await table.take(lease!, 'A')).toMatchObject({ leaseOwner: 'A', parentShardIds: ['shard-1'] });

    expect(entries('PutItem')[0]?.input.Item).toMatchObject({ leaseKey: 'shard-2', parentShardIds: ['shard-1'] });
    // The scan finds the child, not yet started, without its parent: a consistent read of the parent follows.
    expect(entries('Scan')[0]?.output?.Items).toEqual([expect.objectContaining({ leaseKey: 'shard-2', parentShardIds: ['shard-1'] })]);
    expect(entries('GetItem')[0]?.input.Key).toEqual({ leaseKey: 'shard-1' });
    expect(entries('UpdateItem')[0]?.output?.Attributes).toMatchObject({ leaseOwner: 'A', parentShardIds: ['shard-1'] });
    expect(client.middlewareStack.identify().filter((name) => name.includes('outbox'))).toEqual([]);
  });
});
