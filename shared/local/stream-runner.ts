import {
  DescribeStreamCommand,
  type DescribeStreamCommandOutput,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type GetShardIteratorCommandOutput,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { RelayEventSourceSettings } from '../event-source.js';
import { passesFilters } from './filter-pattern.js';
import { batchFailureRecord, type OnFailureCondition, type StreamBatchFailureRecord } from './on-failure.js';
import { toLambdaRecord } from './stream-event.js';

/** The DynamoDB Streams operations the runner uses; a `DynamoDBStreamsClient` fits. */
export interface StreamsClient {
  send(command: DescribeStreamCommand): Promise<DescribeStreamCommandOutput>;
  send(command: GetShardIteratorCommand): Promise<GetShardIteratorCommandOutput>;
  send(command: GetRecordsCommand): Promise<GetRecordsCommandOutput>;
}

/** A Lambda handler for DynamoDB stream events. */
export type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;

export interface StreamRunnerOptions {
  readonly streams: StreamsClient;
  readonly streamArn: string;
  /** The event source mapping's settings, from `relayEventSourceSettings(config)`. */
  readonly settings: RelayEventSourceSettings;
  readonly handler: StreamHandler;
  /** Receives the invocation record of every batch given up on. @default records are dropped, as without a destination */
  readonly onFailure?: (record: StreamBatchFailureRecord) => Promise<void> | void;
  /** Time between polls of a shard at its end, in ms. @default 250 — four times a second, like Lambda */
  readonly pollIntervalMs?: number;
  /** Reported in on-failure records. @default a local placeholder ARN */
  readonly functionArn?: string;
  /** Errors of the runner itself (a failing GetRecords, a failing destination); it keeps going. @default ignored */
  readonly onError?: (error: unknown) => void;
}

/** Counters of what the runner did, for tests and the local stack's logs. */
export interface StreamRunnerStats {
  invocations: number;
  failedInvocations: number;
  recordsRead: number;
  recordsFilteredOut: number;
  batchesSentToOnFailure: number;
}

/** Lambda's invocation payload limit for synchronous invocations. */
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;
const SHARD_REFRESH_MS = 1000;

interface ShardState {
  readonly shard: Shard;
  status: 'waiting' | 'reading' | 'ended';
  /** Bumped each time the shard was read to its current end with nothing left to hand over. */
  caughtUp: number;
}

/**
 * A local event source mapping: reads a DynamoDB stream (DynamoDB Local's) shard by shard,
 * parents before children, and invokes a real Lambda handler with the exact
 * `DynamoDBStreamEvent` shape, applying the deployed mapping's settings from one definition:
 * filter criteria, batch size, batching window, ReportBatchItemFailures checkpointing,
 * bisect on error, maximum retry attempts, maximum record age and the on-failure destination.
 *
 * @example
 * ```ts
 * const runner = new StreamRunner({ streams, streamArn, settings: relayEventSourceSettings(config), handler });
 * runner.start();
 * await runner.idle();
 * await runner.stop();
 * ```
 */
export class StreamRunner {
  readonly stats: StreamRunnerStats = {
    invocations: 0,
    failedInvocations: 0,
    recordsRead: 0,
    recordsFilteredOut: 0,
    batchesSentToOnFailure: 0,
  };
  private readonly shards = new Map<string, ShardState>();
  private readonly workers = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private coordinator: Promise<void> | undefined;
  private refreshedAt = 0;

  constructor(private readonly options: StreamRunnerOptions) {}

  /** Starts polling; returns at once. */
  start(): void {
    if (this.coordinator !== undefined) return;
    this.coordinator = this.coordinate();
  }

  /** Stops polling and waits for the batch in flight, if any, to finish. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.coordinator;
    await Promise.all(this.workers);
  }

  /**
   * Resolves once every shard has been read to its end after this call, and every record read
   * was handed over (or filtered out or given up on). Rejects after `timeoutMs`.
   */
  async idle({ timeoutMs = 60_000 }: { timeoutMs?: number } = {}): Promise<void> {
    const since = Date.now();
    const refreshed = this.refreshedAt;
    const marks = new Map([...this.shards].map(([id, state]) => [id, state.caughtUp]));
    for (;;) {
      const shardsDone =
        this.refreshedAt > refreshed &&
        [...this.shards].every(
          ([id, state]) => state.status === 'ended' || (state.status === 'reading' && state.caughtUp > (marks.get(id) ?? 0)),
        );
      if (shardsDone) return;
      if (Date.now() - since > timeoutMs) throw new Error(`the stream runner did not become idle within ${timeoutMs} ms`);
      await this.sleep(20);
    }
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private sleep(ms: number): Promise<void> {
    const { signal } = this.abort;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private report(error: unknown): void {
    this.options.onError?.(error);
  }

  /** Discovers shards and starts a reader for each whose parent is finished (or gone). */
  private async coordinate(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.refreshShards();
      } catch (error) {
        this.report(error);
      }
      await this.sleep(SHARD_REFRESH_MS);
    }
  }

  private async refreshShards(): Promise<void> {
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await this.options.streams.send(
        new DescribeStreamCommand({ StreamArn: this.options.streamArn, ExclusiveStartShardId: exclusiveStartShardId }),
      );
      for (const shard of StreamDescription?.Shards ?? []) {
        if (shard.ShardId !== undefined && !this.shards.has(shard.ShardId)) {
          this.shards.set(shard.ShardId, { shard, status: 'waiting', caughtUp: 0 });
        }
      }
      exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId !== undefined);
    this.startReadyShards();
    this.refreshedAt = Date.now();
  }

  private startReadyShards(): void {
    for (const state of this.shards.values()) {
      const parent = state.shard.ParentShardId === undefined ? undefined : this.shards.get(state.shard.ParentShardId);
      if (state.status !== 'waiting' || (parent !== undefined && parent.status !== 'ended') || this.stopped) continue;
      state.status = 'reading';
      const context: ReaderContext = {
        stats: this.stats,
        stopped: () => this.stopped,
        sleep: (ms) => this.sleep(ms),
        report: (error) => this.report(error),
      };
      const worker = new ShardReader(context, state, this.options)
        .run()
        .catch((error: unknown) => this.report(error))
        .finally(() => {
          state.status = 'ended';
          this.workers.delete(worker);
          this.startReadyShards();
        });
      this.workers.add(worker);
    }
  }
}

/** What a shard reader needs from its runner. */
interface ReaderContext {
  readonly stats: StreamRunnerStats;
  stopped(): boolean;
  sleep(ms: number): Promise<void>;
  report(error: unknown): void;
}

/** Reads one shard and hands its records to the handler with the mapping's semantics. */
class ShardReader {
  private readonly pending: DynamoDBRecord[] = [];
  private iterator: string | undefined;
  private lastRead: string | undefined;
  private shardEnded = false;
  private firstPendingAt = 0;
  /** Invocations of the current head batch that failed. */
  private retries = 0;
  /**
   * Sizes of the batches to come after a bisection or a partial failure, first one first; a
   * bisected batch's halves are handed over separately, as Lambda does. Empty: full batches.
   */
  private segments: number[] = [];

  constructor(
    private readonly context: ReaderContext,
    private readonly state: ShardState,
    private readonly options: StreamRunnerOptions,
  ) {}

  private get shardId(): string {
    return this.state.shard.ShardId!;
  }

  async run(): Promise<void> {
    const { stopped, sleep, report } = this.context;
    const pollInterval = this.options.pollIntervalMs ?? 250;
    while (!stopped()) {
      let atEnd = false;
      if (!this.shardEnded && this.pending.length < this.options.settings.batchSize) {
        try {
          atEnd = (await this.read()) === 0;
        } catch (error) {
          report(error);
          await sleep(pollInterval);
          continue;
        }
      }
      if (this.pending.length === 0) {
        if (this.shardEnded) return;
        if (atEnd) {
          this.state.caughtUp++;
          await sleep(pollInterval);
        }
        continue;
      }
      const windowMs = this.options.settings.maxBatchingWindowSeconds * 1000;
      const full = this.pending.length >= this.options.settings.batchSize;
      if (!full && !this.shardEnded && Date.now() - this.firstPendingAt < windowMs) {
        await sleep(pollInterval);
        continue;
      }
      await this.invokeHead();
    }
  }

  /** One GetRecords call; renews an expired iterator from the last record read. */
  private async read(): Promise<number> {
    const { streams, streamArn, settings } = this.options;
    if (this.iterator === undefined) {
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: this.shardId,
          ...(this.lastRead === undefined
            ? { ShardIteratorType: settings.startingPosition }
            : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: this.lastRead }),
        }),
      );
      if (ShardIterator === undefined) {
        this.shardEnded = true;
        return 0;
      }
      this.iterator = ShardIterator;
    }
    let output: GetRecordsCommandOutput;
    try {
      output = await streams.send(new GetRecordsCommand({ ShardIterator: this.iterator, Limit: 1000 }));
    } catch (error) {
      if ((error as { name?: string }).name === 'ExpiredIteratorException') {
        this.iterator = undefined;
        return this.read();
      }
      throw error;
    }
    this.iterator = output.NextShardIterator;
    if (this.iterator === undefined) this.shardEnded = true;
    const records = output.Records ?? [];
    this.context.stats.recordsRead += records.length;
    for (const raw of records) {
      this.lastRead = raw.dynamodb?.SequenceNumber ?? this.lastRead;
      const record = toLambdaRecord(raw, streamArn);
      if (!passesFilters(settings.filterPatterns, record)) {
        this.context.stats.recordsFilteredOut++;
        continue;
      }
      if (this.pending.length === 0) this.firstPendingAt = Date.now();
      this.pending.push(record);
    }
    return records.length;
  }

  /** The next batch: up to the batch size (or the pending segment's size) and the payload limit. */
  private headBatch(): DynamoDBRecord[] {
    const max = Math.min(this.options.settings.batchSize, this.segments[0] ?? Number.POSITIVE_INFINITY);
    const batch: DynamoDBRecord[] = [];
    let bytes = 20;
    for (const record of this.pending) {
      const size = JSON.stringify(record).length + 1;
      if (batch.length >= max || (batch.length > 0 && bytes + size > MAX_PAYLOAD_BYTES)) break;
      batch.push(record);
      bytes += size;
    }
    return batch;
  }

  private async invokeHead(): Promise<void> {
    const { settings, handler } = this.options;
    const expired = this.expiredPrefix();
    if (expired > 0) {
      await this.giveUp(this.pending.slice(0, expired), 'RecordAgeExceeded', false);
      this.pending.splice(0, expired);
      return;
    }
    const batch = this.headBatch();
    this.context.stats.invocations++;
    let failedAt: number | undefined;
    let threw = false;
    try {
      const response = await handler({ Records: batch });
      failedAt = this.failedIndex(batch, response);
    } catch {
      threw = true;
      failedAt = 0;
    }
    if (failedAt === undefined) {
      this.pending.splice(0, batch.length);
      this.segments.shift();
      this.retries = 0;
      return;
    }
    this.context.stats.failedInvocations++;
    // The checkpoint moves to just before the first failed record; everything before it is done.
    this.pending.splice(0, failedAt);
    const remaining = batch.length - failedAt;
    if (threw && settings.bisectBatchOnError && remaining > 1) {
      // Splitting a batch does not count against the retry quota.
      this.segments.splice(0, 1, Math.ceil(remaining / 2), Math.floor(remaining / 2));
      return;
    }
    if (settings.bisectBatchOnError) this.segments.splice(0, 1, remaining);
    else this.segments = [];
    if (failedAt > 0) this.retries = 0;
    this.retries++;
    if (this.retries > settings.maxRetryAttempts) {
      await this.giveUp(batch.slice(failedAt), 'RetryAttemptsExhausted', threw);
      this.pending.splice(0, remaining);
      this.segments.shift();
      this.retries = 0;
    }
  }

  /**
   * Index of the lowest failed record (ReportBatchItemFailures), or `undefined` when all
   * succeeded. An identifier that is empty or not in the batch fails the whole batch, as on AWS.
   */
  private failedIndex(batch: readonly DynamoDBRecord[], response: DynamoDBBatchResponse | undefined): number | undefined {
    const failures = response?.batchItemFailures ?? [];
    if (failures.length === 0) return undefined;
    let lowest: number | undefined;
    for (const failure of failures) {
      const index = batch.findIndex((r) => r.dynamodb?.SequenceNumber === failure.itemIdentifier);
      if (typeof failure.itemIdentifier !== 'string' || failure.itemIdentifier === '' || index < 0) return 0;
      lowest = lowest === undefined ? index : Math.min(lowest, index);
    }
    return lowest;
  }

  /** How many records at the head are older than the maximum record age. */
  private expiredPrefix(): number {
    const oldest = Date.now() / 1000 - this.options.settings.maxRecordAgeSeconds;
    let count = 0;
    while (count < this.pending.length && (this.pending[count]!.dynamodb?.ApproximateCreationDateTime ?? Infinity) < oldest) count++;
    return count;
  }

  private async giveUp(records: readonly DynamoDBRecord[], condition: OnFailureCondition, functionError: boolean): Promise<void> {
    this.context.stats.batchesSentToOnFailure++;
    const record = batchFailureRecord({
      records,
      shardId: this.shardId,
      streamArn: this.options.streamArn,
      functionArn: this.options.functionArn ?? 'arn:aws:lambda:us-east-1:000000000000:function:outbox-relay-local',
      condition,
      invokeCount: condition === 'RetryAttemptsExhausted' ? this.retries : 0,
      functionError,
    });
    try {
      await this.options.onFailure?.(record);
    } catch (error) {
      this.context.report(error);
    }
  }
}
