import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';

/** Every record currently in the stream, across all shards, oldest first per shard. */
export async function readStream(client: DynamoDBStreamsClient, streamArn: string): Promise<_Record[]> {
  const records: _Record[] = [];
  const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  for (const shard of StreamDescription?.Shards ?? []) {
    let { ShardIterator: iterator } = await client.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    // An open shard always returns a next iterator; stop at the first empty page.
    while (iterator !== undefined) {
      const page = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      records.push(...(page.Records ?? []));
      if ((page.Records ?? []).length === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return records;
}
