import { sharedAbortController } from '../../abort.js';
import { sleep } from '../../backoff.js';
import { StreamSource } from '../../processor/stream-source.js';
import { StreamRunnerOptionsError } from './errors.js';
import { compileFilters, type RecordTest } from './filter-pattern.js';
import { ShardReader } from './shard-reader.js';
import type { ReaderContext, ShardState, StreamRunnerOptions, StreamRunnerProgress, StreamRunnerStats } from './types.js';

export type * from './types.js';

const SHARD_REFRESH_MS = 1000;

/**
 * A local event source mapping: reads a DynamoDB stream (DynamoDB Local's) shard by shard,
 * parents before children, and invokes a real Lambda handler with the exact
 * `DynamoDBStreamEvent` shape, applying the deployed mapping's settings from one definition:
 * filter criteria, batch size, batching window, parallelization factor, ReportBatchItemFailures checkpointing,
 * bisect on error, maximum retry attempts, maximum record age, the function's timeout and the
 * on-failure destination; with checkpoints kept across runs when given a store.
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

  /**
   * @throws FilterPatternError when the settings' filter criteria use an operator the runner does not implement
   * @throws StreamRunnerOptionsError when the settings' function timeout is not a positive number of seconds, or `timeoutMs` differs from it
   */
  constructor(private readonly options: StreamRunnerOptions) {
    checkFunctionTimeout(options);
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
   * Resolves once every shard has been read to its end by a read begun after this call, with
   * nothing pending (every record read handed over and answered, filtered out or given up on),
   * and the shards were listed again: every record written before the call is then done with.
   * Rejects after `timeoutMs`.
   */
  async idle({ timeoutMs = 60_000 }: { timeoutMs?: number } = {}): Promise<void> {
    const since = Date.now();
    for (;;) {
      // Strictly after: a read begun in the same millisecond may have begun before a write that ended in it.
      const shardsDone =
        this.refreshedAt > since &&
        [...this.shards.values()].every(
          (state) => state.status === 'ended' || (state.status === 'reading' && state.pending === 0 && state.drainedSince > since),
        );
      if (shardsDone) return;
      if (Date.now() - since > timeoutMs) throw new Error(`the stream runner did not become idle within ${timeoutMs} ms`);
      // A plain timer: the runner's sleep returns at once once it is stopped, which would spin here.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * Where the runner is, at this moment: when it last listed the shards, what it has read and
   * invoked, and per shard its status, the records not yet done with and since when it is
   * drained (see `ShardState.drainedSince`). The test stack's `waitForIdle` reads it.
   */
  progress(): StreamRunnerProgress {
    const { recordsRead, invocations } = this.stats;
    const shards = [...this.shards.values()].map(({ shard, status, pending, drainedSince }) => ({
      shardId: shard.shardId,
      status,
      pending,
      drainedSince,
    }));
    return { refreshedAt: this.refreshedAt, recordsRead, invocations, shards };
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Resolves after `ms`, or at once when the runner stops (an abort listener added after the stop would never run). */
  private sleep(ms: number): Promise<void> {
    return sleep(ms, this.abort.signal);
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
      if (!this.shards.has(shard.shardId)) this.shards.set(shard.shardId, { shard, status: 'waiting', pending: 0, drainedSince: 0 });
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

/** The runner applies the settings' timeout alone: a second value that disagrees with it would make local runs differ from AWS. */
function checkFunctionTimeout({ settings, timeoutMs }: StreamRunnerOptions): void {
  const seconds: unknown = settings.functionTimeoutSeconds;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) {
    throw new StreamRunnerOptionsError(
      'settings.functionTimeoutSeconds',
      `got ${JSON.stringify(seconds)}; allowed: a positive number of seconds, as relayEventSourceSettings(config) sets from relay.timeoutSeconds`,
    );
  }
  if (timeoutMs !== undefined && timeoutMs !== seconds * 1000) {
    throw new StreamRunnerOptionsError(
      'timeoutMs',
      `got ${JSON.stringify(timeoutMs)}, but settings.functionTimeoutSeconds is ${seconds} (${seconds * 1000} ms); allowed: leave timeoutMs out (the settings' timeout applies) or give the same value`,
    );
  }
}
