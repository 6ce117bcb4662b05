import type { RecordPublisher } from './consumer-context.js';
import type { LeaseStore } from './lease.js';
import type { OnFailureWriter } from './on-failure-writer.js';
import type { RetryBounds } from './retry-budget.js';
import type { ProcessorSettings } from './settings.js';
import type { StreamSource } from './stream-source.js';
import type { WorkerObserver } from './worker-observer.js';

export interface ProcessorWorkerOptions {
  readonly source: StreamSource;
  readonly leases: LeaseStore;
  /** The relay core restricted to the low-latency aggregate types (see `createProcessorRelay`). */
  readonly publisher: RecordPublisher;
  /** Unique per running worker, e.g. the ECS task id. */
  readonly workerId: string;
  readonly settings?: Partial<ProcessorSettings>;
  /** Logs and metrics; every callback is optional. */
  readonly observer?: WorkerObserver;
  /**
   * How long a failing record is retried before its page's undelivered records go to `onFailure`
   * (`createProcessor` takes the config's `relay.maxRetryAttempts` and `relay.maxRecordAgeSeconds`).
   * @default no limit: a failing record is retried until it is delivered
   */
  readonly retryBounds?: RetryBounds;
  /** Writes the records given up on. @default none: a record whose bounds are spent is retried on, reported at every attempt */
  readonly onFailure?: OnFailureWriter;
  /**
   * The config's declared event types (`declaredEventTypes(config)`), which bound the lag per event
   * type of its batch reports. @default none: batch reports carry no lag per event type
   */
  readonly declaredEventTypes?: ReadonlySet<string>;
}

/** A worker's state for the health endpoint and tests. */
export interface WorkerStatus {
  readonly workerId: string;
  readonly state: 'starting' | 'running' | 'stopping' | 'stopped';
  /** Shard ids this worker holds. */
  readonly leases: readonly string[];
  /** Leases in the table as of the last scan. */
  readonly leasesInTable: number;
  /**
   * When the lease table was last read successfully, on the worker's monotonic clock (`monotonicNow`:
   * epoch ms at the process's start, then steady, so an NTP step of the wall clock does not move it);
   * 0 before the first scan.
   */
  readonly lastScanAt: number;
  /**
   * Stream records this worker is done with, each counted once however often it was retried: those
   * published, those ignored (not the processor's: another path's types, business items, removals),
   * and those given up on and written to the on-failure destination, with the delivered and ignored
   * records of their page behind them.
   * A record this worker reads again, after losing a lease and taking it back from its last
   * checkpoint, is not counted again; one the next holder of a lease publishes again is counted by that worker.
   */
  readonly recordsProcessed: number;
  /** Events SNS accepted, the repeats of a page retried after a failed record included. */
  readonly eventsPublished: number;
}
