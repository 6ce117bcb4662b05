import {
  type _Record,
  DescribeStreamCommand,
  type DescribeStreamCommandOutput,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type GetShardIteratorCommandOutput,
} from '@aws-sdk/client-dynamodb-streams';
import { TRIM_HORIZON } from './lease.js';

/**
 * The DynamoDB Streams operations the processor uses. A `DynamoDBStreamsClient` fits; so does a
 * simulated stream that splits shards, which DynamoDB Local never does.
 */
export interface StreamsApi {
  send(command: DescribeStreamCommand): Promise<DescribeStreamCommandOutput>;
  send(command: GetShardIteratorCommand): Promise<GetShardIteratorCommandOutput>;
  send(command: GetRecordsCommand): Promise<GetRecordsCommandOutput>;
}

/** A shard as the processor needs it: its id, its parent and whether it is closed. */
export interface ShardInfo {
  readonly shardId: string;
  readonly parentShardId?: string;
  /** A closed shard has an ending sequence number and ends in `SHARD_END` once read. */
  readonly closed: boolean;
}

/** One `GetRecords` page; `next` is absent at `SHARD_END`. */
export type ReadResult =
  | { readonly status: 'records'; readonly records: readonly _Record[]; readonly next?: string }
  /** The iterator is older than 15 minutes; get a new one from the checkpoint. */
  | { readonly status: 'expired' }
  /** The checkpoint fell out of the stream's 24-hour retention; reading resumes at the oldest record. */
  | { readonly status: 'trimmed' };

/** The most records one `GetRecords` call returns. */
export const MAX_RECORDS_PER_READ = 1000;

/**
 * The stream, seen through shard discovery (with `DescribeStream` pagination), iterators from a
 * checkpoint and record pages, with the API's recoverable errors turned into results.
 *
 * @example
 * ```ts
 * const source = new StreamSource(new DynamoDBStreamsClient({}), streamArn);
 * const shards = await source.listShards();
 * ```
 */
export class StreamSource {
  constructor(
    private readonly streams: StreamsApi,
    readonly streamArn: string,
  ) {}

  async listShards(): Promise<ShardInfo[]> {
    const shards: ShardInfo[] = [];
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await this.streams.send(
        new DescribeStreamCommand({
          StreamArn: this.streamArn,
          ...(exclusiveStartShardId === undefined ? {} : { ExclusiveStartShardId: exclusiveStartShardId }),
        }),
      );
      for (const shard of StreamDescription?.Shards ?? []) {
        if (shard.ShardId === undefined) continue;
        shards.push({
          shardId: shard.ShardId,
          ...(shard.ParentShardId === undefined ? {} : { parentShardId: shard.ParentShardId }),
          closed: shard.SequenceNumberRange?.EndingSequenceNumber !== undefined,
        });
      }
      exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId !== undefined);
    return shards;
  }

  /** An iterator at the checkpoint; `undefined` when the shard has nothing more to give. */
  async iterator(shardId: string, checkpoint: string): Promise<string | undefined> {
    const position =
      checkpoint === TRIM_HORIZON
        ? ({ ShardIteratorType: 'TRIM_HORIZON' } as const)
        : ({ ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: checkpoint } as const);
    try {
      const { ShardIterator } = await this.streams.send(
        new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shardId, ...position }),
      );
      return ShardIterator;
    } catch (error) {
      // A checkpoint older than the retention window: everything still in the shard comes after it.
      if (checkpoint !== TRIM_HORIZON && (error as { name?: string }).name === 'TrimmedDataAccessException') {
        return this.iterator(shardId, TRIM_HORIZON);
      }
      throw error;
    }
  }

  async read(iterator: string, limit = MAX_RECORDS_PER_READ): Promise<ReadResult> {
    try {
      const output = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }));
      return {
        status: 'records',
        records: output.Records ?? [],
        ...(output.NextShardIterator === undefined ? {} : { next: output.NextShardIterator }),
      };
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'ExpiredIteratorException') return { status: 'expired' };
      if (name === 'TrimmedDataAccessException') return { status: 'trimmed' };
      throw error;
    }
  }
}
