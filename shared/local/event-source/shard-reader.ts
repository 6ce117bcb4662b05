import { GetRecordsCommand, type GetRecordsCommandOutput, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { errorName } from '../../aws/error-name.js';
import { batchFailureRecord, type OnFailureCondition } from '../../on-failure/batch-record.js';
import { toLambdaRecord } from '../../on-failure/lambda-record.js';
import { expiredPrefix } from './batch-failures.js';
import { type BatchLane, emptyLane, laneIndex } from './batch-lanes.js';
import { cutByPayload, headBatch } from './head-batch.js';
import { ProgressSignal } from './progress-signal.js';
import { retryWaitMs } from './retry-wait.js';
import { ShardCheckpoint } from './shard-checkpoint.js';
import { invokeBatch } from './timed-invocation.js';
import type { ReaderContext, ShardState, StreamRunnerOptions } from './types.js';
import { LOCAL_RELAY_FUNCTION_NAME } from './types.js';

/** The most records one GetRecords call returns. */
const MAX_RECORDS_PER_READ = 1000;

type ReadResult = 'records' | 'empty' | 'error';

/** Reads one shard and hands its records to the handler with the mapping's semantics. */
export class ShardReader {
  private readonly lanes: BatchLane[];
  private iterator: string | undefined;
  /** The last record read, or the stored checkpoint until one is read. */
  private lastRead: string | undefined;
  private readonly checkpoint: ShardCheckpoint;
  private shardEnded = false;
  private reading: Promise<ReadResult> | undefined;
  private nextReadAt = 0;
  /** Resolves when a lane next finishes an invocation: lanes wait on it for room in the read-ahead buffer. */
  private readonly progressed = new ProgressSignal();

  constructor(
    private readonly context: ReaderContext,
    private readonly state: ShardState,
    private readonly options: StreamRunnerOptions,
  ) {
    this.lanes = Array.from({ length: Math.max(1, options.settings.parallelizationFactor) }, emptyLane);
    this.checkpoint = new ShardCheckpoint(options.checkpoints, this.shardId);
    this.lastRead = this.checkpoint.current;
  }

  private get shardId(): string {
    return this.state.shard.shardId;
  }

  private pendingCount(): number {
    let count = 0;
    for (const lane of this.lanes) count += lane.pending.length;
    return count;
  }

  async run(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => this.runLane(lane)));
    await this.reading;
  }

  private async runLane(lane: BatchLane): Promise<void> {
    const { stopped, sleep } = this.context;
    const pollInterval = this.options.pollIntervalMs ?? 250;
    while (!stopped()) {
      this.startReading(pollInterval);
      if (lane.pending.length === 0) {
        if (this.reading !== undefined) {
          await this.reading;
        } else if (this.shardEnded) {
          break;
        } else if (Date.now() < this.nextReadAt) {
          await sleep(this.nextReadAt - Date.now());
        } else {
          // The read-ahead buffer is full of other lanes' records: wait until one hands some over.
          await Promise.race([this.progressed.next(), sleep(pollInterval)]);
        }
        continue;
      }
      const windowMs = this.options.settings.maxBatchingWindowSeconds * 1000;
      const waited = Date.now() - lane.firstPendingAt;
      // A batch is full at the batch size, or when the records pending no longer fit in one payload.
      const full =
        lane.pending.length >= this.options.settings.batchSize ||
        (waited < windowMs && cutByPayload(lane, this.options.settings.batchSize));
      if (!full && !this.shardEnded && waited < windowMs) {
        await (this.reading ?? sleep(Math.min(pollInterval, windowMs - waited)));
        continue;
      }
      const wait = await this.invokeHead(lane);
      this.progressed.fire();
      // Timers and I/O run before the next invocation, and a retry backs off: a handler failing at once would spin.
      if (wait !== undefined) await sleep(wait);
    }
  }

  /**
   * Starts the next GetRecords unless one is running, the buffer is full or the shard was
   * just found empty: reading goes on while the handler works, as Lambda's pollers do, and an
   * empty shard is polled once per interval.
   */
  private startReading(pollInterval: number): void {
    const readAhead = Math.max(2 * this.options.settings.batchSize * this.lanes.length, 2000);
    if (this.shardEnded || this.reading !== undefined || this.pendingCount() >= readAhead || Date.now() < this.nextReadAt) return;
    const startedAt = Date.now();
    const reading: Promise<ReadResult> = this.read().then(
      (count) => {
        if (count > 0) return 'records';
        this.nextReadAt = Date.now() + pollInterval;
        if (this.pendingCount() === 0) this.state.drainedSince = startedAt;
        return 'empty';
      },
      (error: unknown) => {
        this.context.report(error);
        this.nextReadAt = Date.now() + pollInterval;
        return 'error';
      },
    );
    this.reading = reading.finally(() => {
      this.reading = undefined;
    });
  }

  /**
   * A shard iterator after the last record read (or the checkpoint), else at the starting
   * position. When the records after it were trimmed, or the stream does not know the sequence
   * number, the shard is read from its oldest record kept. A shard the stream no longer has is
   * done, but only when a complete listing agrees: a shard `GetShardIterator` does not know for
   * a moment is tried again at the next poll.
   */
  private async shardIterator(): Promise<string | undefined> {
    const { streams, streamArn, settings } = this.options;
    const from = (type: string, sequenceNumber?: string) =>
      streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: this.shardId,
          ShardIteratorType: type as 'TRIM_HORIZON',
          ...(sequenceNumber === undefined ? {} : { SequenceNumber: sequenceNumber }),
        }),
      );
    try {
      const { ShardIterator } = await (this.lastRead === undefined
        ? from(settings.startingPosition)
        : from('AFTER_SEQUENCE_NUMBER', this.lastRead));
      return ShardIterator;
    } catch (error) {
      const name = errorName(error);
      if (name === 'ResourceNotFoundException') {
        if (!(await this.context.listed(this.shardId))) return undefined;
        throw error;
      }
      if (this.lastRead === undefined || (name !== 'TrimmedDataAccessException' && name !== 'ValidationException')) throw error;
      this.context.report(
        new Error(
          `shard ${this.shardId}: no records after sequence number ${this.lastRead} (${name}); reading the shard from its oldest record kept (TRIM_HORIZON)`,
          { cause: error },
        ),
      );
      this.lastRead = undefined;
      return (await from('TRIM_HORIZON')).ShardIterator;
    }
  }

  /** One GetRecords call; renews an expired iterator from the last record read. */
  private async read(): Promise<number> {
    const { streams, streamArn, settings } = this.options;
    if (this.iterator === undefined) {
      const iterator = await this.shardIterator();
      if (iterator === undefined) {
        this.shardEnded = true;
        return 0;
      }
      this.iterator = iterator;
    }
    // While the handler waits for records, ask for just what fills its next batches, so they
    // start as soon as they are there; while it works, read ahead in full pages.
    const missing = settings.batchSize * this.lanes.length - this.pendingCount();
    const limit = missing > 0 ? Math.min(missing, MAX_RECORDS_PER_READ) : MAX_RECORDS_PER_READ;
    let output: GetRecordsCommandOutput;
    try {
      output = await streams.send(new GetRecordsCommand({ ShardIterator: this.iterator, Limit: limit }));
    } catch (error) {
      const name = errorName(error);
      if (name === 'ExpiredIteratorException') {
        this.iterator = undefined;
        return this.read();
      }
      if (name === 'TrimmedDataAccessException') {
        // The iterator points before the oldest record kept (DynamoDB Local also says so of a
        // TRIM_HORIZON iterator taken on an empty shard): take a fresh one from the same place.
        this.iterator = undefined;
      }
      throw error;
    }
    this.iterator = output.NextShardIterator;
    if (this.iterator === undefined) this.shardEnded = true;
    const records = output.Records ?? [];
    this.context.stats.recordsRead += records.length;
    for (const raw of records) {
      const before = this.lastRead;
      this.lastRead = raw.dynamodb?.SequenceNumber ?? this.lastRead;
      const record = toLambdaRecord(raw, streamArn);
      if (!this.context.passesFilters(record)) {
        this.context.stats.recordsFilteredOut++;
        continue;
      }
      this.checkpoint.handedOver(record, before);
      const lane = this.lanes[laneIndex(record, this.lanes.length)]!;
      if (lane.pending.length === 0) lane.firstPendingAt = Date.now();
      lane.pending.push(record);
    }
    // Records filtered out are done: with nothing before them pending, they move the checkpoint.
    this.checkpoint.move(this.lanes, this.lastRead);
    this.state.pending = this.pendingCount();
    return records.length;
  }

  /** Takes the first `count` records of a lane as done (answered, or given up on), and moves the checkpoint past them. */
  private settle(lane: BatchLane, count: number): void {
    lane.pending.splice(0, count);
    this.state.pending = this.pendingCount();
    lane.fitsUpTo = 0;
    this.checkpoint.move(this.lanes, this.lastRead);
  }

  /** Invokes the lane's head batch, or gives up its expired records; the wait after a failure ({@link retryWaitMs}), else `undefined`. */
  private async invokeHead(lane: BatchLane): Promise<number | undefined> {
    const { settings, handler } = this.options;
    const batch = headBatch(lane, settings.batchSize);
    const expired = expiredPrefix(batch, settings.maxRecordAgeSeconds);
    if (expired > 0) {
      // The head batch's failed invocations are its invocations so far: it never succeeded.
      await this.giveUp(batch.slice(0, expired), 'RecordAgeExceeded', false, lane.retries);
      this.settle(lane, expired);
      // The batch ends here, as when its retries run out; unexpired records of a bisected
      // segment stay one segment.
      if (expired < batch.length && lane.segments.length > 0) lane.segments[0] = batch.length - expired;
      else lane.segments.shift();
      lane.retries = 0;
      return undefined;
    }
    this.context.stats.invocations++;
    const { failedAt, functionError } = await invokeBatch(
      handler,
      batch,
      settings.functionTimeoutSeconds * 1000,
      this.context,
      this.shardId,
    );
    if (failedAt === undefined) {
      this.settle(lane, batch.length);
      lane.segments.shift();
      lane.retries = 0;
      return undefined;
    }
    this.context.stats.failedInvocations++;
    // The checkpoint moves to just before the first failed record; everything before it is done.
    this.settle(lane, failedAt);
    const remaining = batch.length - failedAt;
    if (functionError && settings.bisectBatchOnError && remaining > 1) {
      // Splitting a batch does not count against the retry quota.
      lane.segments.splice(0, 1, Math.ceil(remaining / 2), Math.floor(remaining / 2));
      return retryWaitMs(0);
    }
    if (settings.bisectBatchOnError) lane.segments.splice(0, 1, remaining);
    else lane.segments = [];
    if (failedAt > 0) lane.retries = 0;
    lane.retries++;
    // -1: no limit, as on AWS; the batch is retried until it succeeds or its records age out.
    if (settings.maxRetryAttempts !== -1 && lane.retries > settings.maxRetryAttempts) {
      await this.giveUp(batch.slice(failedAt), 'RetryAttemptsExhausted', functionError, lane.retries);
      this.settle(lane, remaining);
      lane.segments.shift();
      lane.retries = 0;
    }
    return retryWaitMs(lane.retries);
  }

  /** Gives `records` up to the on-failure destination; `invokeCount`: the batch's invocations (0 for records expired unsent). */
  private async giveUp(records: readonly DynamoDBRecord[], condition: OnFailureCondition, functionError: boolean, invokeCount: number) {
    this.context.stats.batchesSentToOnFailure++;
    const record = batchFailureRecord({
      records,
      shardId: this.shardId,
      streamArn: this.options.streamArn,
      functionArn: this.options.functionArn ?? `arn:aws:lambda:us-east-1:000000000000:function:${LOCAL_RELAY_FUNCTION_NAME}`,
      condition,
      invokeCount,
      functionError,
    });
    try {
      await this.options.onFailure?.(record, { Records: [...records] });
    } catch (error) {
      this.context.report(error);
    }
  }
}
