import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { StreamBatchInfo, StreamInvocationPayload } from './on-failure-record.js';

/** DynamoDB Streams keeps records for 24 hours. */
export const STREAM_RETENTION_MS = 24 * 3600 * 1000;
const MAX_EMPTY_PAGES = 5;

/**
 * Reads the records from `startSequenceNumber` through `endSequenceNumber` of one shard again,
 * in the shape of an invocation payload. Sequence numbers are compared as big integers.
 */
export async function readStreamRange(streams: DynamoDBStreamsClient, info: StreamBatchInfo): Promise<StreamInvocationPayload['Records']> {
  const end = BigInt(info.endSequenceNumber);
  const { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({
      StreamArn: info.streamArn,
      ShardId: info.shardId,
      ShardIteratorType: 'AT_SEQUENCE_NUMBER',
      SequenceNumber: info.startSequenceNumber,
    }),
  );
  const records: { eventName?: string; dynamodb?: { NewImage?: Record<string, AttributeValue>; SequenceNumber?: string } }[] = [];
  let iterator = ShardIterator;
  let emptyPages = 0;
  while (iterator !== undefined && emptyPages < MAX_EMPTY_PAGES) {
    const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    const batch = page.Records ?? [];
    emptyPages = batch.length === 0 ? emptyPages + 1 : 0;
    for (const record of batch) {
      const sequence = record.dynamodb?.SequenceNumber;
      if (sequence === undefined) continue;
      if (BigInt(sequence) > end) return records;
      records.push({
        ...(record.eventName === undefined ? {} : { eventName: record.eventName }),
        dynamodb: {
          SequenceNumber: sequence,
          ...(record.dynamodb?.NewImage === undefined ? {} : { NewImage: record.dynamodb.NewImage as Record<string, AttributeValue> }),
        },
      });
      if (BigInt(sequence) === end) return records;
    }
    iterator = page.NextShardIterator;
  }
  return records;
}
