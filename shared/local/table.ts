import { CreateTableCommand, type DynamoDBClient, UpdateTimeToLiveCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { createTableInput, timeToLiveInput } from '../table.js';

/** Creates the outbox table from the shared definition (the one the CDK stack deploys) and turns TTL on. */
export async function createOutboxTable(client: DynamoDBClient, tableName: string): Promise<{ streamArn: string }> {
  const created = await client.send(new CreateTableCommand(createTableInput(tableName)));
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1, maxDelay: 1 }, { TableName: tableName });
  await client.send(new UpdateTimeToLiveCommand(timeToLiveInput(tableName)));
  const streamArn = created.TableDescription?.LatestStreamArn;
  if (streamArn === undefined) throw new Error(`Table ${tableName} was created without a stream`);
  return { streamArn };
}
