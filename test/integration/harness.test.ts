import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { freshTable, testClients } from '../helpers/local.js';

describe('harness', () => {
  it('creates the table from the shared definition with a NEW_IMAGE stream and TTL', async () => {
    const clients = testClients();
    const { tableName } = await freshTable(clients);
    const { Table } = await clients.dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    const ttl = await clients.dynamodb.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    expect(ttl.TimeToLiveDescription?.AttributeName).toBe('expiresAt');
    clients.destroy();
  });
});
