import {
  type _Record,
  DescribeStreamCommand,
  type DescribeStreamCommandOutput,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type GetShardIteratorCommandOutput,
} from '@aws-sdk/client-dynamodb-streams';
import { errorName } from '../aws/error-name.js';
import { IncompleteShardListingError, StreamCallTimeoutError } from './errors.js';
import { TRIM_HORIZON } from './lease.js';

/**
 * The DynamoDB Streams operations the processor uses. A `DynamoDBStreamsClient` fits; so does a
 * simulated stream that splits shards, which DynamoDB Local never does.
 */
export interface StreamsApi {
  send(command: DescribeStreamCommand, options?: StreamsCallOptions): Promise<DescribeStreamCommandOutput>;
  send(command: GetShardIteratorCommand, options?: StreamsCallOptions): Promise<GetShardIteratorCommandOutput>;
  send(command: GetRecordsCommand, options?: StreamsCallOptions): Promise<GetRecordsCommandOutput>;
}

/** What a call to the Streams API is given: a signal that abandons it (the SDK's `abortSignal`). */
export interface StreamsCallOptions {
  readonly abortSignal?: AbortSignal;
}

/** How long one Streams API call of a `StreamSource` method may take. */
export interface StreamCallBound {
  /**
   * A call still unanswered after this long is abandoned (its `abortSignal` aborted) and fails
   * with a `StreamCallTimeoutError`, even if the client ignores the signal.
   * @default no bound beyond the client's own timeouts
   */
  readonly timeoutMs?: number;
  /** Abandons the call when it fires (a read ahead no longer wanted): its timer ends with it. */
  readonly signal?: AbortSignal;
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
  async listShards(bound: StreamCallBound = {}): Promise<ShardInfo[]> {
    const shards: ShardInfo[] = [];
    const pagesFrom = new Set<string>();
    let exclusiveStartShardId: string | undefined;
    do {
      const command = new DescribeStreamCommand({
        StreamArn: this.streamArn,
        ...(exclusiveStartShardId === undefined ? {} : { ExclusiveStartShardId: exclusiveStartShardId }),
      });
      const { StreamDescription } = await bounded('DescribeStream', this.streamArn, bound, (options) =>
        this.streams.send(command, options),
      );
      if (StreamDescription === undefined) {
        throw new IncompleteShardListingError(this.streamArn, 'returned no stream description');
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
          throw new IncompleteShardListingError(this.streamArn, `paginated from shard ${exclusiveStartShardId} twice`);
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
  async iterator(shardId: string, checkpoint: string, bound: StreamCallBound = {}): Promise<ShardIteratorResult> {
    const position =
      checkpoint === TRIM_HORIZON
        ? ({ ShardIteratorType: 'TRIM_HORIZON' } as const)
        : ({ ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: checkpoint } as const);
    try {
      const command = new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shardId, ...position });
      const { ShardIterator } = await bounded('GetShardIterator', shardId, bound, (options) => this.streams.send(command, options));
      return { status: 'iterator', ...(ShardIterator === undefined ? {} : { iterator: ShardIterator }), trimmed: false };
    } catch (error) {
      const name = errorName(error);
      // A checkpoint older than the retention window: everything still in the shard comes after it.
      if (checkpoint !== TRIM_HORIZON && name === 'TrimmedDataAccessException') {
        const oldest = await this.iterator(shardId, TRIM_HORIZON, bound);
        return oldest.status === 'iterator' ? { ...oldest, trimmed: true } : oldest;
      }
      if (name === 'ResourceNotFoundException' && !(await this.listShards(bound)).some((shard) => shard.shardId === shardId)) {
        return { status: 'gone' };
      }
      throw error;
    }
  }

  async read(iterator: string, limit = MAX_RECORDS_PER_READ, bound: StreamCallBound = {}): Promise<ReadResult> {
    try {
      const command = new GetRecordsCommand({ ShardIterator: iterator, Limit: limit });
      const output = await bounded('GetRecords', 'the shard', bound, (options) => this.streams.send(command, options));
      return {
        status: 'records',
        records: output.Records ?? [],
        ...(output.NextShardIterator === undefined ? {} : { next: output.NextShardIterator }),
      };
    } catch (error) {
      const name = errorName(error);
      if (name === 'ExpiredIteratorException') return { status: 'expired' };
      if (name === 'TrimmedDataAccessException') return { status: 'trimmed' };
      throw error;
    }
  }
}

/**
 * Runs one Streams API call within `bound.timeoutMs`. A client without timeouts of its own (or
 * a connection the SDK's timeouts miss) would otherwise hold a shard's reader for ever, while
 * its lease is renewed and nothing says the shard is stuck; a failed call goes the consumer's
 * way for failed reads instead: reported (the lag rises), retried after a pause.
 */
function bounded<T>(
  operation: string,
  target: string,
  bound: StreamCallBound,
  call: (options: StreamsCallOptions) => Promise<T>,
): Promise<T> {
  const { timeoutMs, signal } = bound;
  if (timeoutMs === undefined) return call(signal === undefined ? {} : { abortSignal: signal });
  const abort = new AbortController();
  const abandon = () => abort.abort(signal?.reason);
  signal?.addEventListener('abort', abandon, { once: true });
  if (signal?.aborted === true) abandon();
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Settled first, so the call's own answer to the abort (an `AbortError`) is not the one reported.
      reject(new StreamCallTimeoutError(operation, target, timeoutMs));
      abort.abort();
    }, timeoutMs);
    call({ abortSignal: abort.signal })
      .then(resolve, reject)
      .finally(() => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abandon);
      });
  });
}
