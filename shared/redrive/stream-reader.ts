import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { StreamBatchInfo } from '../on-failure/batch-record.js';
import { StreamRangeIncompleteError } from './errors.js';
import type { StreamInvocationPayload } from './on-failure-record.js';

/** DynamoDB Streams keeps records for 24 hours. */
export const STREAM_RETENTION_MS = 24 * 3600 * 1000;
const MAX_EMPTY_PAGES = 5;

/**
 * Reads the records from `startSequenceNumber` through `endSequenceNumber` of one shard again,
 * in the shape of an invocation payload. Sequence numbers are compared as big integers. Throws
 * {@link StreamRangeIncompleteError} unless the read reached `endSequenceNumber`, so a partial
 * read is never taken for the whole batch.
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
  let lastRead: string | undefined;
  while (iterator !== undefined && emptyPages < MAX_EMPTY_PAGES) {
    const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    const batch = page.Records ?? [];
    emptyPages = batch.length === 0 ? emptyPages + 1 : 0;
    for (const record of batch) {
      const sequence = record.dynamodb?.SequenceNumber;
      if (sequence === undefined) continue;
      // Past the end without meeting it: every record up to the end was read.
      if (BigInt(sequence) > end) return records;
      lastRead = sequence;
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
  const why = iterator === undefined ? 'the shard is closed and has no more records' : `${MAX_EMPTY_PAGES} pages in a row came back empty`;
  throw new StreamRangeIncompleteError(info, lastRead, why);
}
