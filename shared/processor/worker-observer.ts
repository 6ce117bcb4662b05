import type { LagByEventType } from '../lag-by-event-type.js';
import type { OnFailureCondition } from '../on-failure/batch-record.js';

/**
 * Records of a shard done with, for logs and metrics: a page published, or the part of one before a
 * failed record, or the rest of one given up on (see `WorkerStatus.recordsProcessed`).
 */
export interface BatchReport {
  readonly shardId: string;
  readonly records: number;
  /** Events SNS accepted; those of a page given up on are counted with the records before the failed one. */
  readonly published: number;
  readonly ignored: number;
  /** Now minus the page's first (oldest) record's approximate creation time (1-second resolution on AWS). */
  readonly lagMs: number | undefined;
  /** Per aggregate type with events published from the page: now minus its oldest such record's approximate creation time. */
  readonly lagByAggregateType?: Readonly<Record<string, number>>;
  /**
   * Per aggregate type, per event type of its records with events published from the page (a
   * declared type, or `UNDECLARED_EVENT_TYPE` for any other): now minus the oldest such record's
   * approximate creation time. Absent when the config declares no `eventTypes`.
   */
  readonly lagByEventType?: LagByEventType;
}

/** A page of a shard that failed to publish; the shard retries it. */
export interface PublishFailureReport {
  readonly shardId: string;
  /** Now minus the approximate creation time of the oldest record not published. */
  readonly lagMs: number | undefined;
}

/**
 * A page whose publishing the publish cut-off ended: its lease may have expired in another
 * worker's eyes, or the worker had been stopping for `handOffTimeoutMs`. No request was sent
 * after that moment; the records from `sequenceNumber` on are left to the next holder of the shard.
 */
export interface PublishCutOffReport {
  readonly shardId: string;
  /** Why, e.g. `the lease of <shard> may have expired: not written for 412 ms`. */
  readonly reason: string;
  /** The oldest record of the page not published: where the next holder resumes. */
  readonly sequenceNumber: string | undefined;
  /** Records of the page from that one on. */
  readonly records: number;
  /** Now minus the approximate creation time of that record. */
  readonly lagMs: number | undefined;
}

/** A shard whose records could not be read (`GetShardIterator` or `GetRecords` failed); the shard retries. */
export interface ReadFailureReport {
  readonly shardId: string;
  /** Now minus when the shard was last read (or reading began): how long a record written since may have waited unread. */
  readonly lagMs: number;
}

/** Records of a shard trimmed from the stream before they were read: skipped, never published. */
export interface TrimReport {
  readonly shardId: string;
  /** Where reading should have resumed. */
  readonly checkpoint: string;
  /** The whole shard had left the stream; it was marked finished so its children could start. */
  readonly shardGone: boolean;
}

/** Records of a shard given up on after their bounds (`relay.maxRetryAttempts`, `relay.maxRecordAgeSeconds`) were spent. */
export interface OnFailureReport {
  readonly shardId: string;
  /** Which bound was spent: `RetryAttemptsExhausted` or `RecordAgeExceeded`. */
  readonly condition: OnFailureCondition;
  /** Attempts made at the first of them. */
  readonly attempts: number;
  /** Records given up on: the failing one and every later record of its page not delivered. */
  readonly records: number;
  readonly firstSequenceNumber: string | undefined;
  readonly lastSequenceNumber: string | undefined;
  /** Now minus the approximate creation time of the first of them. */
  readonly lagMs: number | undefined;
}

/**
 * What a worker reports as it runs; `processorObserver` turns it into structured logs and EMF
 * metrics, tests may listen directly. Every callback is optional and must not throw.
 */
export interface WorkerObserver {
  batch?(report: BatchReport): void;
  publishFailed?(report: PublishFailureReport): void;
  /** Instead of `publishFailed` (and `error`) when the page failed because publishing was cut off. */
  publishCutOff?(report: PublishCutOffReport): void;
  readFailed?(report: ReadFailureReport): void;
  /** Records given up on were written to the on-failure destination, as the object `key`; the shard went on past them. */
  sentToOnFailure?(report: OnFailureReport & { readonly key: string }): void;
  /** Writing records given up on to the on-failure destination failed: the shard waits, retrying the write. */
  onFailureWriteFailed?(report: OnFailureReport & { readonly error: unknown }): void;
  /** Also reported through `error`, with a `RecordsTrimmedError`. */
  trimmed?(report: TrimReport): void;
  leaseScan?(counts: { readonly held: number; readonly total: number }): void;
  leaseAcquired?(shardId: string): void;
  leaseLost?(shardId: string, reason: string): void;
  leaseReleased?(shardId: string): void;
  consumerExited?(shardId: string, exit: 'shard-end' | 'stopped' | 'lease-lost'): void;
  error?(message: string, error: unknown): void;
}
