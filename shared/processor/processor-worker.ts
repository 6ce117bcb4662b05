import type { ProcessorSettings } from './settings.js';
import type { WorkerStatus } from './worker-types.js';

/**
 * One stream processor worker, as `createProcessor` builds it and `startProcessor` starts it:
 * discovers the stream's shards, holds and balances leases with the other workers, runs a consumer
 * per held shard and publishes through the relay core. `stop()` is the graceful hand-off
 * (SIGTERM): each shard's batch in flight is finished and checkpointed, and its lease released as
 * soon as that is done, so another worker takes it on its next scan; leases are renewed until
 * then, however long the batch takes, so none expires while it is published.
 *
 * Users get one from `createProcessor` or `startProcessor`; the worker itself is not constructed
 * directly.
 *
 * @example
 * ```ts
 * const worker: ProcessorWorker = createProcessor({
 *   config, streams, streamArn, document, leaseTableName, sns, sqs, topicArns, deadLetterQueueUrl,
 * });
 * process.once('SIGTERM', () => void worker.stop());
 * await worker.start();
 * ```
 */
export interface ProcessorWorker {
  /** The settings it runs with: those given over every default, as `processorSettings` checks them. */
  readonly settings: ProcessorSettings;
  /** Names this worker in the leases it holds: the `workerId` given, or the one made when none was. */
  readonly workerId: string;
  /** Its state, the leases it holds and its counters now, for the health endpoint (`startHealthServer`) and tests. */
  status(): WorkerStatus;
  /**
   * Syncs shards and scans leases once, then keeps doing so in the background; resolves when
   * ready. A transient failure of the first sync or scan (throttling, a server or network error)
   * is reported to `observer.error` and retried with back-off; any other rejects with a
   * `ProcessorStartError`, after any lease taken is handed over. A `stop()` meanwhile ends the
   * start where it is, and hands over any lease it took. Called again, it returns the same start;
   * after a `stop()` or `halt()`, it resolves at once and starts nothing.
   */
  start(): Promise<void>;
  /**
   * Graceful: each consumer finishes and checkpoints its batch in flight and releases its lease
   * as soon as it is done, while the leases still held keep being renewed; resolves once every
   * lease is released. Called again, it returns the same stop.
   */
  stop(): Promise<void>;
  /**
   * Stops at once, as a crash would: no checkpoint, no release, no further lease write, no lease
   * reported lost (a write queued before the halt finds it dropped, quietly). Its leases expire
   * after the failover time. For failure drills and tests.
   */
  halt(): Promise<void>;
}
