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

/** Where reading a shard starts, from a checkpoint. */
export type ShardIteratorResult =
  | {
      readonly status: 'iterator';
      /** Absent when the shard has nothing more to give. */
      readonly iterator?: string;
      /**
       * The checkpoint had fallen out of the stream's 24-hour retention: reading resumes at the
       * oldest record left, and the records trimmed in between are lost.
       */
      readonly trimmed: boolean;
    }
  /**
   * The shard is no longer in the stream (trimmed 24 hours after it closed): `GetShardIterator`
   * does not know it and a complete `DescribeStream` listing does not list it.
   */
  | { readonly status: 'gone' };

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

  /**
   * Every shard of the stream, following `DescribeStream` pagination to its last page. A page
   * without a stream description, or pagination that does not move on, fails instead of
   * returning a partial listing: the caller treats a shard not listed as gone from the stream.
   */
  async listShards(): Promise<ShardInfo[]> {
    const shards: ShardInfo[] = [];
    const pagesFrom = new Set<string>();
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await this.streams.send(
        new DescribeStreamCommand({
          StreamArn: this.streamArn,
          ...(exclusiveStartShardId === undefined ? {} : { ExclusiveStartShardId: exclusiveStartShardId }),
        }),
      );
      if (StreamDescription === undefined) {
        throw new Error(`DescribeStream of ${this.streamArn} returned no stream description; the shard listing is incomplete`);
      }
      for (const shard of StreamDescription.Shards ?? []) {
        if (shard.ShardId === undefined) continue;
        shards.push({
          shardId: shard.ShardId,
          ...(shard.ParentShardId === undefined ? {} : { parentShardId: shard.ParentShardId }),
          closed: shard.SequenceNumberRange?.EndingSequenceNumber !== undefined,
        });
      }
      exclusiveStartShardId = StreamDescription.LastEvaluatedShardId;
      if (exclusiveStartShardId !== undefined) {
        if (pagesFrom.has(exclusiveStartShardId)) {
          throw new Error(
            `DescribeStream of ${this.streamArn} paginated from shard ${exclusiveStartShardId} twice; the shard listing is incomplete`,
          );
        }
        pagesFrom.add(exclusiveStartShardId);
      }
    } while (exclusiveStartShardId !== undefined);
    return shards;
  }

  /**
   * An iterator at the checkpoint. A checkpoint older than the stream's retention falls back to
   * the oldest record (`trimmed`); a shard the stream no longer has is `gone`, but only when a
   * complete listing agrees, so a shard missing from one answer is never given up.
   */
  async iterator(shardId: string, checkpoint: string): Promise<ShardIteratorResult> {
    const position =
      checkpoint === TRIM_HORIZON
        ? ({ ShardIteratorType: 'TRIM_HORIZON' } as const)
        : ({ ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: checkpoint } as const);
    try {
      const { ShardIterator } = await this.streams.send(
        new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shardId, ...position }),
      );
      return { status: 'iterator', ...(ShardIterator === undefined ? {} : { iterator: ShardIterator }), trimmed: false };
    } catch (error) {
      const name = (error as { name?: string }).name;
      // A checkpoint older than the retention window: everything still in the shard comes after it.
      if (checkpoint !== TRIM_HORIZON && name === 'TrimmedDataAccessException') {
        const oldest = await this.iterator(shardId, TRIM_HORIZON);
        return oldest.status === 'iterator' ? { ...oldest, trimmed: true } : oldest;
      }
      if (name === 'ResourceNotFoundException' && !(await this.listShards()).some((shard) => shard.shardId === shardId)) {
        return { status: 'gone' };
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
