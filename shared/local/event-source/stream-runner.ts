import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { sharedAbortController } from '../../abort.js';
import type { RelayEventSourceSettings } from '../../event-source.js';
import { type ShardInfo, StreamSource, type StreamsApi } from '../../processor/stream-source.js';
import type { CheckpointStore } from './checkpoints.js';
import { compileFilters, type RecordTest } from './filter-pattern.js';
import type { OnFailureDestination } from './on-failure.js';
import { ShardReader } from './shard-reader.js';

/** The DynamoDB Streams operations the runner uses; a `DynamoDBStreamsClient` fits. */
export type StreamsClient = StreamsApi;

/** The part of Lambda's context the runner passes: the function's name, the request id and the time left before the timeout. */
export type StreamInvocationContext = Pick<Context, 'functionName' | 'awsRequestId' | 'getRemainingTimeInMillis'>;

/** A Lambda handler for DynamoDB stream events. */
export type StreamHandler = (event: DynamoDBStreamEvent, context: StreamInvocationContext) => Promise<DynamoDBBatchResponse | undefined>;

export interface StreamRunnerOptions {
  readonly streams: StreamsClient;
  readonly streamArn: string;
  /** The event source mapping's settings, from `relayEventSourceSettings(config)`. */
  readonly settings: RelayEventSourceSettings;
  readonly handler: StreamHandler;
  /**
   * Receives the invocation record of every batch given up on, and the batch itself (an S3
   * destination keeps it as `payload`; SQS and SNS destinations get the record only).
   * @default records are dropped, as without a destination
   */
  readonly onFailure?: OnFailureDestination;
  /** Time between polls of a shard at its end, in ms. @default 250 — four times a second, like Lambda */
  readonly pollIntervalMs?: number;
  /** Reported in on-failure records. @default a local placeholder ARN */
  readonly functionArn?: string;
  /**
   * The function's timeout, in ms: the handler's context counts down from it, and an invocation
   * not answered by then is a function error (`Task timed out after N seconds`), retried or
   * bisected as on AWS; the abandoned call's result is ignored.
   * @default `DEFAULT_RELAY_TIMEOUT_SECONDS`, the default of the config's `relay.timeoutSeconds` (the local stack passes the config's)
   */
  readonly timeoutMs?: number;
  /**
   * Keeps each shard's checkpoint (the last record done with), and resumes each shard it knows
   * after it; shards without one start at the mapping's starting position.
   * @default none: every start reads the stream from its starting position
   */
  readonly checkpoints?: CheckpointStore;
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
  /** The mapping's filter criteria: whether a record (in the Lambda shape) is handed to the function. */
  readonly passesFilters: RecordTest;
}

const SHARD_REFRESH_MS = 1000;

/**
 * A local event source mapping: reads a DynamoDB stream (DynamoDB Local's) shard by shard,
 * parents before children, and invokes a real Lambda handler with the exact
 * `DynamoDBStreamEvent` shape, applying the deployed mapping's settings from one definition:
 * filter criteria, batch size, batching window, parallelization factor, ReportBatchItemFailures checkpointing,
 * bisect on error, maximum retry attempts, maximum record age and the on-failure destination; with
 * the function's timeout, and with checkpoints kept across runs when given a store.
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
  /** Every lane of every shard, and the coordinator, sleep on it. */
  private readonly abort = sharedAbortController();
  private coordinator: Promise<void> | undefined;
  private refreshedAt = 0;
  private readonly source: StreamSource;
  private readonly passesFilters: RecordTest;

  /** @throws FilterPatternError when the settings' filter criteria use an operator the runner does not implement */
  constructor(private readonly options: StreamRunnerOptions) {
    this.source = new StreamSource(options.streams, options.streamArn);
    this.passesFilters = compileFilters(options.settings.filterPatterns);
  }

  /** Starts polling; returns at once. */
  start(): void {
    if (this.coordinator !== undefined) return;
    this.coordinator = this.coordinate();
  }

  /** Stops polling, waits for the batches in flight, if any, to finish (or time out), and stores the checkpoints. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.coordinator;
    await Promise.all(this.workers);
    await this.options.checkpoints?.flush();
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

  /** Lists every shard (a complete listing, or an error), tracks the new ones and starts those ready. */
  private async refreshShards(): Promise<void> {
    const listed = await this.source.listShards();
    for (const shard of listed) {
      if (!this.shards.has(shard.shardId)) this.shards.set(shard.shardId, { shard, status: 'waiting', caughtUp: 0 });
    }
    // A checkpoint of a shard that has left the stream (trimmed 24 hours after it closed) is of no more use.
    if (listed.length > 0) this.options.checkpoints?.retain(new Set(listed.map((shard) => shard.shardId)));
    this.startReadyShards();
    this.refreshedAt = Date.now();
  }

  private startReadyShards(): void {
    for (const state of this.shards.values()) {
      const parent = state.shard.parentShardId === undefined ? undefined : this.shards.get(state.shard.parentShardId);
      if (state.status !== 'waiting' || (parent !== undefined && parent.status !== 'ended') || this.stopped) continue;
      state.status = 'reading';
      const context: ReaderContext = {
        stats: this.stats,
        stopped: () => this.stopped,
        sleep: (ms) => this.sleep(ms),
        report: (error) => this.report(error),
        listed: async (shardId) => (await this.source.listShards()).some((shard) => shard.shardId === shardId),
        passesFilters: this.passesFilters,
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
