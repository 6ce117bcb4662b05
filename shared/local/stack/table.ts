import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { errorName } from '../../aws/error-name.js';
import { createTableInput, timeToLiveInput } from '../../table.js';
import { LocalStackError } from '../errors.js';

/** Creates the outbox table from the shared definition (the one the CDK stack deploys) and turns TTL on. */
export async function createOutboxTable(client: DynamoDBClient, tableName: string): Promise<{ streamArn: string }> {
  const created = await client.send(new CreateTableCommand(createTableInput(tableName)));
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1, maxDelay: 1 }, { TableName: tableName });
  await client.send(new UpdateTimeToLiveCommand(timeToLiveInput(tableName)));
  const streamArn = created.TableDescription?.LatestStreamArn;
  if (streamArn === undefined) throw new Error(`Table ${tableName} was created without a stream`);
  return { streamArn };
}

/**
 * The outbox table, created when missing (a fresh in-memory DynamoDB Local) and reused when it
 * is there (persisted data); `created` says which.
 */
export async function ensureOutboxTable(client: DynamoDBClient, tableName: string): Promise<{ streamArn: string; created: boolean }> {
  try {
    return { ...(await createOutboxTable(client, tableName)), created: true };
  } catch (error) {
    if (errorName(error) !== 'ResourceInUseException') throw error;
  }
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (streamArn === undefined || Table?.StreamSpecification?.StreamEnabled !== true) {
    throw new LocalStackError(
      'TABLE_WITHOUT_STREAM',
      `Table ${tableName} exists without a stream; allowed: an outbox table with its stream (NEW_IMAGE): delete the persisted data folder or use another one`,
    );
  }
  return { streamArn, created: false };
}
