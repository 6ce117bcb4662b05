import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { RelayResult, RelayRunOptions } from '../relay/index.js';
import type { StreamRecordInput } from '../relay/stream-record.js';
import type { RecordsTrimmedError } from './errors.js';
import type { FailurePolicy } from './failure-policy.js';
import type { ProcessorSettings } from './settings.js';
import type { StreamSource } from './stream-source.js';

/** The part of the relay core the processor calls; a `Relay` fits. */
export interface RecordPublisher {
  /**
   * `signal` ends the publishing at once: requests in flight are aborted, and every record not
   * delivered fails; `mayPublish` is asked before every request, and ends the publishing as well
   * once it returns `false`.
   */
  relay(records: readonly StreamRecordInput[], options?: Pick<RelayRunOptions, 'signal' | 'mayPublish'>): Promise<RelayResult>;
}

/** What a consumer reports to its worker. */
export interface ConsumerContext {
  readonly source: StreamSource;
  readonly publisher: RecordPublisher;
  readonly settings: ProcessorSettings;
  /** Whether every parent of the shard is finished, as of the latest lease scan. */
  parentsFinished(): boolean;
  /** Aborted once the worker begins stopping: finish the batch in flight, then return. */
  readonly stopping: AbortSignal;
  /** How long the worker has been stopping, in ms; `undefined` while it runs. */
  stoppingFor(): number | undefined;
  /** Resolves after `ms`, or at once when the worker stops or `signal` (if given) aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * `records` are done with (published, ignored, or given up on and written to the on-failure
   * destination), each reported once; `result.published` counts the events SNS accepted since the last report.
   */
  processed(records: readonly _Record[], result: RelayResult): void;
  /**
   * A read or publish failed; the consumer retries after a pause. After a publish failure,
   * `stalled` names the oldest record of the page not published (the one retried from); after a
   * failed read (`GetShardIterator` or `GetRecords`), when the shard was last read (on the
   * worker's monotonic clock, `monotonicNow`): records written since may have waited that long.
   */
  failed(error: unknown, stalled: { readonly unpublished: _Record } | { readonly readAt: number }): void;
  /**
   * A page's publishing was cut off (`reason`: the lease may have expired, or the worker had been
   * stopping for `handOffTimeoutMs`): `unpublished`, from the oldest record not published on, is
   * left to the next holder. Reported before the checkpoint of what went out is awaited, which may
   * find the lease taken.
   */
  cutOff(reason: string, unpublished: readonly _Record[]): void;
  /** A checkpoint write failed for another reason than a lost lease; it is retried while the lease is held, unless stopping. */
  checkpointFailed(error: unknown): void;
  /** Records were trimmed from the stream before they were read: they are skipped. */
  trimmed(error: RecordsTrimmedError): void;
  /** @default none: a failing record is retried until it is delivered */
  readonly failures?: FailurePolicy;
}

/** How a consumer's run ended. */
export type ConsumerExit = 'shard-end' | 'stopped' | 'lease-lost';
