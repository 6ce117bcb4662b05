import { randomUUID } from 'node:crypto';
import { GetRecordsCommand, type GetRecordsCommandOutput, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { DEFAULT_RELAY_TIMEOUT_SECONDS } from '../event-source.js';
import type { ShardInfo } from '../processor/stream-source.js';
import { passesFilters } from './filter-pattern.js';
import { batchFailureRecord, type OnFailureCondition } from './on-failure.js';
import { LOCAL_RELAY_FUNCTION_NAME } from './resources.js';
import { toLambdaRecord } from './stream-event.js';
import type { StreamInvocationContext, StreamRunnerOptions, StreamRunnerStats } from './stream-runner.js';

/** Lambda's invocation payload limit for synchronous invocations. */
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;
/** The most records one GetRecords call returns. */
const MAX_RECORDS_PER_READ = 1000;

/** What an invocation that outlived the function's timeout resolves to. */
const TIMED_OUT = Symbol('timed out');

/** The size of `value` as JSON in UTF-8, as Lambda counts its payload limit. */
const jsonLength = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/**
 * An upper bound of `jsonLength(value)` (UTF-8 bytes of JSON), at a fraction of its cost: every
 * string counts six bytes per UTF-16 code unit (the longest escape, `\uXXXX`, is six ASCII bytes;
 * any other unit takes at most three, a surrogate pair four for two units), every number 32
 * (more than any double prints), and every separator is counted.
 */
export function jsonLengthBound(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return 6 * value.length + 2;
    case 'number':
      return 32;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return jsonLengthBound((value as { toJSON(): unknown }).toJSON());
      let length = 2;
      if (Array.isArray(value)) {
        for (const item of value) length += jsonLengthBound(item) + 1;
        return length;
      }
      for (const key in value) length += 6 * key.length + 4 + jsonLengthBound((value as Record<string, unknown>)[key]);
      return length;
    }
    default:
      return 4;
  }
}

/** A shard as the runner tracks it. */
export interface ShardState {
  readonly shard: ShardInfo;
  status: 'waiting' | 'reading' | 'ended';
  /** Bumped each time the shard was read to its current end with nothing left to hand over. */
  caughtUp: number;
}

/** What a shard reader needs from its runner. */
export interface ReaderContext {
  readonly stats: StreamRunnerStats;
  stopped(): boolean;
  sleep(ms: number): Promise<void>;
  report(error: unknown): void;
  /** Whether a complete listing of the stream's shards has this one (rejects when the listing fails). */
  listed(shardId: string): Promise<boolean>;
}

type ReadResult = 'records' | 'empty' | 'error';

/**
 * One of a shard's concurrent batch streams: with a parallelization factor of N, Lambda
 * processes up to N batches of a shard at once, keeping order per item (partition and sort
 * key). Every record of an item goes to the same lane, and a lane has one batch in flight.
 */
interface BatchLane {
  readonly pending: DynamoDBRecord[];
  firstPendingAt: number;
  /** Invocations of the lane's current head batch that failed. */
  retries: number;
  /**
   * Sizes of the batches to come after a bisection or a partial failure, first one first; a
   * bisected batch's halves are handed over separately, as Lambda does. Empty: full batches.
   */
  segments: number[];
  /** How many records were pending when the head batch was last found to fit in one payload: no need to size it again until more come. */
  fitsUpTo: number;
}

/** Which of `lanes` lanes a record goes to: FNV-1a over its item's keys, so an item keeps one lane. */
export function laneIndex(record: DynamoDBRecord, lanes: number): number {
  if (lanes === 1) return 0;
  const key = JSON.stringify(record.dynamodb?.Keys ?? {});
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}

/** Reads one shard and hands its records to the handler with the mapping's semantics. */
export class ShardReader {
  private readonly lanes: BatchLane[];
  private iterator: string | undefined;
  /** The last record read, or the stored checkpoint until one is read. */
  private lastRead: string | undefined;
  /** The sequence number read just before each record handed to a lane: the checkpoint while that record is the oldest not done. */
  private readonly readBefore = new WeakMap<DynamoDBRecord, string | undefined>();
  private checkpoint: string | undefined;
  private shardEnded = false;
  private reading: Promise<ReadResult> | undefined;
  private nextReadAt = 0;
  /** Resolves when a lane next finishes an invocation: lanes wait on it for room in the read-ahead buffer. */
  private progressed: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(
    private readonly context: ReaderContext,
    private readonly state: ShardState,
    private readonly options: StreamRunnerOptions,
  ) {
    this.lanes = Array.from({ length: Math.max(1, options.settings.parallelizationFactor) }, () => ({
      pending: [],
      firstPendingAt: 0,
      retries: 0,
      segments: [],
      fitsUpTo: 0,
    }));
    this.checkpoint = options.checkpoints?.get(this.shardId);
    this.lastRead = this.checkpoint;
  }

  private get shardId(): string {
    return this.state.shard.shardId;
  }

  private pendingCount(): number {
    let count = 0;
    for (const lane of this.lanes) count += lane.pending.length;
    return count;
  }

  private nextProgress(): Promise<void> {
    if (this.progressed === undefined) {
      let resolve: () => void = () => {};
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      this.progressed = { promise, resolve };
    }
    return this.progressed.promise;
  }

  private progress(): void {
    this.progressed?.resolve();
    this.progressed = undefined;
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
          if ((await this.reading) === 'empty' && this.pendingCount() === 0) this.state.caughtUp++;
        } else if (this.shardEnded) {
          break;
        } else if (Date.now() < this.nextReadAt) {
          await sleep(this.nextReadAt - Date.now());
        } else {
          // The read-ahead buffer is full of other lanes' records: wait until one hands some over.
          await Promise.race([this.nextProgress(), sleep(pollInterval)]);
        }
        continue;
      }
      const windowMs = this.options.settings.maxBatchingWindowSeconds * 1000;
      const waited = Date.now() - lane.firstPendingAt;
      // A batch is full at the batch size, or when the records pending no longer fit in one payload.
      const full = lane.pending.length >= this.options.settings.batchSize || (waited < windowMs && this.cutByPayload(lane));
      if (!full && !this.shardEnded && waited < windowMs) {
        await (this.reading ?? sleep(Math.min(pollInterval, windowMs - waited)));
        continue;
      }
      await this.invokeHead(lane);
      this.progress();
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
    const reading: Promise<ReadResult> = this.read().then(
      (count) => {
        if (count > 0) return 'records';
        this.nextReadAt = Date.now() + pollInterval;
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
      const name = (error as { name?: string }).name;
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
      const name = (error as { name?: string }).name;
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
      if (!passesFilters(settings.filterPatterns, record)) {
        this.context.stats.recordsFilteredOut++;
        continue;
      }
      this.readBefore.set(record, before);
      const lane = this.lanes[laneIndex(record, this.lanes.length)]!;
      if (lane.pending.length === 0) lane.firstPendingAt = Date.now();
      lane.pending.push(record);
    }
    // Records filtered out are done: with nothing before them pending, they move the checkpoint.
    this.moveCheckpoint();
    return records.length;
  }

  /** Takes the first `count` records of a lane as done (answered, or given up on), and moves the checkpoint past them. */
  private settle(lane: BatchLane, count: number): void {
    lane.pending.splice(0, count);
    lane.fitsUpTo = 0;
    this.moveCheckpoint();
  }

  /**
   * The checkpoint is the last record read before the oldest one still pending in any lane (or
   * the last read, when none is pending): every record up to it is done, whatever the lanes'
   * order of completion.
   */
  private moveCheckpoint(): void {
    const { checkpoints } = this.options;
    if (checkpoints === undefined) return;
    let oldest: DynamoDBRecord | undefined;
    for (const lane of this.lanes) {
      const head = lane.pending[0];
      if (
        head !== undefined &&
        (oldest === undefined || BigInt(head.dynamodb!.SequenceNumber!) < BigInt(oldest.dynamodb!.SequenceNumber!))
      ) {
        oldest = head;
      }
    }
    const checkpoint = oldest === undefined ? this.lastRead : this.readBefore.get(oldest);
    if (checkpoint === undefined || checkpoint === this.checkpoint) return;
    this.checkpoint = checkpoint;
    checkpoints.set(this.shardId, checkpoint);
  }

  /**
   * Whether the lane's records pending no longer fit in one payload, so its next batch is cut
   * at 6 MB already: Lambda invokes then instead of waiting out the batching window.
   */
  private cutByPayload(lane: BatchLane): boolean {
    const max = Math.min(this.options.settings.batchSize, lane.segments[0] ?? Number.POSITIVE_INFINITY);
    if (lane.pending.length <= lane.fitsUpTo) return false;
    if (this.headBatch(lane).length < Math.min(max, lane.pending.length)) return true;
    lane.fitsUpTo = lane.pending.length;
    return false;
  }

  /**
   * The next batch: up to the batch size (or the pending segment's size) and the payload limit.
   * Cheap upper bounds of the records' JSON sizes (UTF-8 bytes) are summed while they prove the batch fits;
   * once they cannot, exact sizes take over, so the cut is where the exact sizes put it.
   */
  private headBatch(lane: BatchLane): DynamoDBRecord[] {
    const max = Math.min(this.options.settings.batchSize, lane.segments[0] ?? Number.POSITIVE_INFINITY);
    const batch: DynamoDBRecord[] = [];
    const envelope = '{"Records":[]}'.length;
    let bytes = envelope;
    let exact = false;
    for (const record of lane.pending) {
      if (batch.length >= max) break;
      let size = (exact ? jsonLength(record) : jsonLengthBound(record)) + 1;
      if (!exact && bytes + size > MAX_PAYLOAD_BYTES) {
        exact = true;
        bytes = envelope + batch.reduce((sum, r) => sum + jsonLength(r) + 1, 0);
        size = jsonLength(record) + 1;
      }
      if (batch.length > 0 && bytes + size > MAX_PAYLOAD_BYTES) break;
      batch.push(record);
      bytes += size;
    }
    return batch;
  }

  private async invokeHead(lane: BatchLane): Promise<void> {
    const { settings, handler } = this.options;
    const batch = this.headBatch(lane);
    const expired = this.expiredPrefix(batch);
    if (expired > 0) {
      // The head batch's failed invocations are its invocations so far: it never succeeded.
      await this.giveUp(batch.slice(0, expired), 'RecordAgeExceeded', false, lane.retries);
      this.settle(lane, expired);
      // The batch ends here, as when its retries run out; unexpired records of a bisected
      // segment stay one segment.
      if (expired < batch.length && lane.segments.length > 0) lane.segments[0] = batch.length - expired;
      else lane.segments.shift();
      lane.retries = 0;
      return;
    }
    this.context.stats.invocations++;
    let failedAt: number | undefined;
    let threw = false;
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_RELAY_TIMEOUT_SECONDS * 1000;
    const deadline = Date.now() + timeoutMs;
    const context: StreamInvocationContext = {
      functionName: LOCAL_RELAY_FUNCTION_NAME,
      awsRequestId: randomUUID(),
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    };
    const invocation = Promise.resolve().then(() => handler({ Records: batch }, context));
    // Abandoned when it outlives the timeout: whatever it settles to then is ignored.
    invocation.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
    });
    try {
      const response = await Promise.race([invocation, timedOut]);
      if (response === TIMED_OUT) {
        threw = true;
        failedAt = 0;
        this.context.report(
          new Error(
            `Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds: the invocation with ${batch.length} records of ${this.shardId} is a function error`,
          ),
        );
      } else {
        failedAt = this.failedIndex(batch, response);
      }
    } catch {
      threw = true;
      failedAt = 0;
    } finally {
      clearTimeout(timer);
    }
    if (failedAt === undefined) {
      this.settle(lane, batch.length);
      lane.segments.shift();
      lane.retries = 0;
      return;
    }
    this.context.stats.failedInvocations++;
    // The checkpoint moves to just before the first failed record; everything before it is done.
    this.settle(lane, failedAt);
    const remaining = batch.length - failedAt;
    if (threw && settings.bisectBatchOnError && remaining > 1) {
      // Splitting a batch does not count against the retry quota.
      lane.segments.splice(0, 1, Math.ceil(remaining / 2), Math.floor(remaining / 2));
      return;
    }
    if (settings.bisectBatchOnError) lane.segments.splice(0, 1, remaining);
    else lane.segments = [];
    if (failedAt > 0) lane.retries = 0;
    lane.retries++;
    // -1: no limit, as on AWS; the batch is retried until it succeeds or its records age out.
    if (settings.maxRetryAttempts !== -1 && lane.retries > settings.maxRetryAttempts) {
      await this.giveUp(batch.slice(failedAt), 'RetryAttemptsExhausted', threw, lane.retries);
      this.settle(lane, remaining);
      lane.segments.shift();
      lane.retries = 0;
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

  /** How many records at the head of a batch are older than the maximum record age (none when it is -1, no limit). */
  private expiredPrefix(batch: readonly DynamoDBRecord[]): number {
    const { maxRecordAgeSeconds } = this.options.settings;
    // -1: no limit, as on AWS (records then live until the stream trims them).
    if (maxRecordAgeSeconds === -1) return 0;
    const oldest = Date.now() / 1000 - maxRecordAgeSeconds;
    let count = 0;
    while (count < batch.length && (batch[count]!.dynamodb?.ApproximateCreationDateTime ?? Infinity) < oldest) count++;
    return count;
  }

  private async giveUp(
    records: readonly DynamoDBRecord[],
    condition: OnFailureCondition,
    functionError: boolean,
    /** Invocations of the batch before it was given up on (0 for records that expired before they were sent). */
    invokeCount: number,
  ): Promise<void> {
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
