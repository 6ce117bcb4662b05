import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type GetShardIteratorCommandInput,
} from '@aws-sdk/client-dynamodb-streams';
import type { StreamBatchInfo } from '../on-failure/batch-record.js';
import { StreamRangeIncompleteError } from './errors.js';
import type { StreamInvocationPayload } from './on-failure-record.js';

/** DynamoDB Streams keeps records for 24 hours. */
export const STREAM_RETENTION_MS = 24 * 3600 * 1000;
const MAX_EMPTY_PAGES = 5;

type RangeRecords = StreamInvocationPayload['Records'];

/** What a shard still holds of a batch whose first sequence number was trimmed from it. */
export interface RangeLeft {
  /** The batch's records still in the shard, to its end; none when the whole range is gone. */
  readonly records: RangeRecords;
  /**
   * The oldest record the shard still holds, when it is past the batch's start: the batch's
   * records before it were trimmed. Absent when the shard holds the start after all.
   */
  readonly firstLeft?: string;
}

/**
 * Reads one shard from the iterator `from` gives to the batch's end: the records from its start
 * through its end (older ones before it are passed over), and the first sequence number the shard
 * gave. Throws {@link StreamRangeIncompleteError} unless the read reached the end.
 */
async function readToEnd(
  streams: DynamoDBStreamsClient,
  info: StreamBatchInfo,
  from: Pick<GetShardIteratorCommandInput, 'ShardIteratorType' | 'SequenceNumber'>,
): Promise<{ records: RangeRecords; first: string | undefined }> {
  const start = BigInt(info.startSequenceNumber);
  const end = BigInt(info.endSequenceNumber);
  const { ShardIterator } = await streams.send(new GetShardIteratorCommand({ StreamArn: info.streamArn, ShardId: info.shardId, ...from }));
  const records: { eventName?: string; dynamodb?: { NewImage?: Record<string, AttributeValue>; SequenceNumber?: string } }[] = [];
  let iterator = ShardIterator;
  let emptyPages = 0;
  let first: string | undefined;
  let lastRead: string | undefined;
  while (iterator !== undefined && emptyPages < MAX_EMPTY_PAGES) {
    const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    const batch = page.Records ?? [];
    emptyPages = batch.length === 0 ? emptyPages + 1 : 0;
    for (const record of batch) {
      const sequence = record.dynamodb?.SequenceNumber;
      if (sequence === undefined) continue;
      first ??= sequence;
      // Past the end without meeting it: every record up to the end was read.
      if (BigInt(sequence) > end) return { records, first };
      // Read from the oldest record left, the shard's records before the batch come first.
      if (BigInt(sequence) < start) continue;
      lastRead = sequence;
      records.push({
        ...(record.eventName === undefined ? {} : { eventName: record.eventName }),
        dynamodb: {
          SequenceNumber: sequence,
          ...(record.dynamodb?.NewImage === undefined ? {} : { NewImage: record.dynamodb.NewImage as Record<string, AttributeValue> }),
        },
      });
      if (BigInt(sequence) === end) return { records, first };
    }
    iterator = page.NextShardIterator;
  }
  const why = iterator === undefined ? 'the shard is closed and has no more records' : `${MAX_EMPTY_PAGES} pages in a row came back empty`;
  // Read from the oldest record left, it did not start at the batch's start, which is trimmed.
  const readFrom =
    from.ShardIteratorType === 'TRIM_HORIZON'
      ? `the oldest record left${first === undefined ? ' (none given)' : ` (${first})`}`
      : info.startSequenceNumber;
  throw new StreamRangeIncompleteError(info, lastRead, why, readFrom);
}

/**
 * Reads the records from `startSequenceNumber` through `endSequenceNumber` of one shard again,
 * in the shape of an invocation payload. Sequence numbers are compared as big integers. Throws
 * {@link StreamRangeIncompleteError} unless the read reached `endSequenceNumber`, so a partial
 * read is never taken for the whole batch.
 */
export async function readStreamRange(streams: DynamoDBStreamsClient, info: StreamBatchInfo): Promise<RangeRecords> {
  const read = await readToEnd(streams, info, { ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: info.startSequenceNumber });
  return read.records;
}

/**
 * What one shard still holds of a batch whose start it trimmed: read from the oldest record left
 * (`TRIM_HORIZON`) to the batch's end. The stream trims a shard from its oldest record on, so
 * what is left of the batch is its end, from the first record the shard gives. A read that gets
 * past the end before any record of the batch finds the whole range gone (no records); one that
 * does not reach the end throws {@link StreamRangeIncompleteError}, as {@link readStreamRange} does.
 */
export async function readRangeLeft(streams: DynamoDBStreamsClient, info: StreamBatchInfo): Promise<RangeLeft> {
  const { records, first } = await readToEnd(streams, info, { ShardIteratorType: 'TRIM_HORIZON' });
  const trimmed = first !== undefined && BigInt(first) > BigInt(info.startSequenceNumber);
  return trimmed && records.length > 0 ? { records, firstLeft: first } : { records };
}
